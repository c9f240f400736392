"""The pages of docs/ run as written, and the site builds without a warning.

Every page's blocks run in order in one namespace per page, from a copy of the clone's root
(tests/markdown_blocks.py says how: stated literals checked, ``evaltoolkit`` commands run,
a DeprecationWarning from evaltoolkit an error). ``mkdocs build --strict`` builds the site,
the API reference included, into a temporary folder.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from markdown_blocks import (
    REPO,
    Block,
    blocks,
    commands,
    make_clone,
    new_namespace,
    run_page,
    run_python,
    skip_reason,
)

DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
PAGES_WITH_CODE = [
    page for page in PAGES if any(b.language in ("python", "bash") for b in blocks(page))
]
WORKFLOW_PAGES = (
    "score.md",
    "disagreement.md",
    "tune.md",
    "compare.md",
    "label.md",
    "cost.md",
    "local-servers.md",
    "scale-out.md",
    "offline-judge.md",
)
PUBLIC_PACKAGES = (
    "evaltoolkit",
    "evaltoolkit.scorers",
    "evaltoolkit.meta",
    "evaltoolkit.judge",
    "evaltoolkit.widgets",
    "evaltoolkit.plots",
    "evaltoolkit.report",
)


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_clone(tmp_path, monkeypatch)


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=[page.stem for page in PAGES_WITH_CODE])
def test_the_page_runs_as_written(
    page: Path, clone: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_page(page, clone, monkeypatch, capsys)


def test_there_is_a_page_per_workflow() -> None:
    assert {page.name for page in PAGES} >= {*WORKFLOW_PAGES, "index.md", "glossary.md"}


def _runnable(page: str) -> list[Block]:
    return [b for b in blocks(DOCS / page) if b.language == "python" and b.no_run is None]


def test_the_pages_have_blocks_that_run() -> None:
    score = " ".join(block.code for block in _runnable("score.md"))
    for made in ("source_document =", "create_judged_scorer(", "write_report(", "estimate_cost"):
        assert made in score or made in " ".join(b.code for b in _runnable("cost.md")), made
    for page in ("disagreement.md", "tune.md", "compare.md", "label.md", "offline-judge.md"):
        assert _runnable(page), f"{page} has no block that runs"


def test_the_command_lines_that_run_cover_the_commands() -> None:
    ran = {
        arguments[0]
        for page in PAGES
        for block in blocks(page)
        for _, arguments in commands(block)
        if skip_reason(arguments, REPO) is None
    }
    assert {"demo", "run", "report", "cache", "--help", "--version"} <= ran, ran


def _block(code: str) -> Block:
    return Block("docs/example.md", "python", 1, code, None)


def _deprecation(module: str) -> str:
    """A block that raises a DeprecationWarning attributed to ``module``."""
    return (
        "import warnings\n"
        f'warnings.warn_explicit("old", DeprecationWarning, "x.py", 1, module="{module}")\n'
    )


def test_a_deprecated_path_in_a_page_is_an_error() -> None:
    called = 'import warnings\nwarnings.warn("old", DeprecationWarning)\n'  # the page's own call
    with pytest.raises(DeprecationWarning):
        run_python(_block(called), new_namespace())
    with pytest.raises(DeprecationWarning):  # inside evaltoolkit
        run_python(_block(_deprecation("evaltoolkit.records")), new_namespace())
    with warnings.catch_warnings(record=True) as seen:  # another library's is not the page's
        warnings.simplefilter("always")
        run_python(_block(_deprecation("pandas.io")), new_namespace())
    assert [str(w.message) for w in seen] == ["old"]


def test_a_stated_literal_that_is_false_fails() -> None:
    with pytest.raises(AssertionError):
        run_python(_block("1 + 1  # 3\n"), new_namespace())


def test_the_api_reference_covers_the_public_packages() -> None:
    documented = {
        match.group(1)
        for page in (DOCS / "api").glob("*.md")
        for match in re.finditer(r"^::: ([\w.]+)\s*$", page.read_text(encoding="utf-8"), re.M)
    }
    assert documented == set(PUBLIC_PACKAGES)
    for name in documented:
        assert importlib.import_module(name).__all__, name


def test_the_compare_runs_reading_is_what_the_demo_prints() -> None:
    # Issue 32: the README read 0.197 [0.072, 0.323] and "Wilcoxon p = 0.002" (a test over
    # items) where the block printed 0.211 [0.079, 0.332] over 5 documents.
    import evaltoolkit as et
    from evaltoolkit import meta

    data = str(REPO / "data" / "demo_summaries.jsonl")
    default = et.run_evals(data, et.create_summarization_scorer(), progress=False)
    fewer = et.run_evals(data, et.create_summarization_scorer(max_questions=3), progress=False)
    row = et.compare_runs(default, fewer, group="doc_id").set_index("score").loc["coverage"]
    parts = meta.tune_test_split(data, test_share=0.5, seed=0)
    table = meta.compare_scores(default, fewer, label="human_score", fields=["doc_id"])
    change = meta.agreement_change(table, "human_score", group="doc_id", split=parts)
    spearman = change[change["metric"] == "spearman"].set_index("part")
    text = " ".join((DOCS / "compare.md").read_text(encoding="utf-8").split())
    assert (
        f"coverage rises by {row['difference']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] "
        f"(B higher on {row['wins']} of {row['n_pairs']} summaries)"
    ) in text
    assert f"documents' mean differences (`test` names it), {row['p_value']:.4f}, the" in text
    assert row["p_value"] == 0.0625 and row["groups"] == 5
    tune, test = spearman.loc["tune"], spearman.loc["test"]
    assert (
        f"Spearman rises by {tune['change']:.3f} on the {tune['groups']:.0f} tune documents and "
        f"does not move ({test['change']:.3f}) on the {test['groups']:.0f} test documents"
    ) in text
    assert f"so it is `{test['verdict']}`" in text


def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    # --strict turns every warning (a broken link or anchor, a page left out of the nav, a
    # docstring cross-reference that resolves to nothing) into a failed build.
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(REPO / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    reference = (tmp_path / "site" / "api" / "meta" / "index.html").read_text(encoding="utf-8")
    assert "compare_runs" in reference
    # A blocking twin made at import (run_evals = blocking(arun_evals)) reads as the function
    # it is: its parameters and its async twin's docs, not a module attribute.
    package = (tmp_path / "site" / "api" / "evaltoolkit" / "index.html").read_text(encoding="utf-8")
    start = package.index('id="evaltoolkit.run_evals"')
    run_evals = package[start : package.index('class="doc doc-heading"', start + 40)]
    assert "module-attribute" not in run_evals
    assert "input_col" in run_evals and "Score every item" in run_evals
