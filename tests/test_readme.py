"""The README's code runs as written, like the docstring examples and the docs' pages.

The README is what a newcomer reads first: what evaltoolkit is, the two set-up commands, a
tour whose blocks run here (tests/markdown_blocks.py says how), and links to the pages of
``docs/``, whose blocks tests/test_docs.py runs the same way.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
from markdown_blocks import REPO, blocks, make_clone, run_page

from evaltoolkit.cli import _internal as cli

README = REPO / "README.md"
PYTHON_BLOCKS = [block for block in blocks(README) if block.language == "python"]


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_clone(tmp_path, monkeypatch)


def test_the_readme_runs_as_written(
    clone: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = run_page(README, clone, monkeypatch, capsys)
    assert {"run", "report"} <= set(ran), ran


def test_the_readme_has_blocks_that_run() -> None:
    runnable = [block for block in PYTHON_BLOCKS if block.no_run is None]
    assert any("source_document =" in block.code for block in runnable), "the tour runs"


def test_the_readme_is_a_readme() -> None:
    # Issue 33: it was a 1,327-line manual; the manual is docs/ now.
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_the_readme_test_command_is_what_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    command = ci[ci.index("# The README's test command, exactly:") + 1]
    assert f"```bash\n{command}\n```" in readme
    demo = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && evaltoolkit demo"
    assert f"```bash\n{demo}\n```" in readme


def test_the_readme_links_every_docs_page() -> None:
    readme = README.read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[^)#]+)\)", readme))
    for target in linked:
        assert (REPO / target).is_file(), target
    pages = {
        path.relative_to(REPO).as_posix()
        for path in (REPO / "docs").glob("*.md")
        if path.name != "index.md"
    }
    assert pages <= linked, sorted(pages - linked)


# -- the demo's hint ------------------------------------------------------------------------


def test_the_demo_hint_names_a_command_the_main_install_provides() -> None:
    program, subcommand = cli.NOTEBOOK_COMMAND.split()[:2]
    script = f"{program}-{subcommand}"  # `jupyter lab` runs the `jupyter-lab` script
    [entry] = importlib.metadata.entry_points(group="console_scripts", name=script)
    assert entry.dist is not None
    provider = entry.dist.metadata["Name"].lower()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {
        re.split(r"[<>=!~\[; ]", requirement)[0].lower() for requirement in project["dependencies"]
    }
    assert provider in runtime, f"{cli.NOTEBOOK_COMMAND!r} needs {provider} among the dependencies"
    readme = README.read_text(encoding="utf-8")
    assert f"`{cli.NOTEBOOK_COMMAND.rstrip('/')}/`" in readme
