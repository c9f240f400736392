"""The README's code runs as written, like the docstring examples.

Every ```python block runs on its own (in a fresh namespace, from a copy of the clone's root
with ``data/``), except those marked ``<!-- no-run: why -->`` on the line above, which are
compiled only. An expression line ending in a comment that is a Python literal
(``.score  # 1.0``) must evaluate to it. The ``evaltoolkit`` commands of the ```bash blocks run
in-process through the command's ``main``, except those that need a model, the benchmarks or a
file the README does not make.
"""

from __future__ import annotations

import ast
import importlib.metadata
import math
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaltoolkit import cli

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
_FENCE = re.compile(r"^```(\w*)\s*$")
_NO_RUN = re.compile(r"^<!--\s*no-run:\s*(\S.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    language: str
    line: int  # of the opening fence, 1-based
    code: str
    no_run: str | None  # why it does not run here


def _blocks() -> list[Block]:
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None or not opening.group(1):
            index += 1
            continue
        end = next(n for n in range(index + 1, len(lines)) if lines[n].startswith("```"))
        marker = _NO_RUN.match(lines[index - 1].strip()) if index else None
        blocks.append(
            Block(
                language=opening.group(1),
                line=index + 1,
                code="\n".join(lines[index + 1 : end]) + "\n",
                no_run=marker.group(1) if marker else None,
            )
        )
        index = end + 1
    return blocks


PYTHON_BLOCKS = [block for block in _blocks() if block.language == "python"]


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory that looks like the clone's root (data/), with its own cache."""
    root = tmp_path / "clone"
    root.mkdir()
    (root / "data").symlink_to(REPO / "data", target_is_directory=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("EVALTOOLKIT_CACHE_DIR", str(tmp_path / "cache"))
    return root


def _literal_comment(source_line: str) -> tuple[bool, object]:
    """The literal an expression line's trailing comment states, if it states one."""
    if "  # " not in source_line:
        return False, None
    comment = source_line.rsplit("  # ", 1)[1].strip()
    try:
        return True, ast.literal_eval(comment)
    except (ValueError, SyntaxError):
        return False, None


def _run_python(block: Block) -> None:
    tree = ast.parse(block.code, filename=f"README.md:{block.line}")
    lines = block.code.splitlines()
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for statement in tree.body:
        source = ast.Module(body=[statement], type_ignores=[])
        stated, expected = _literal_comment(lines[statement.end_lineno - 1])  # type: ignore[operator]
        if isinstance(statement, ast.Expr) and stated:
            expression = ast.Expression(body=statement.value)
            value = eval(compile(expression, f"README.md:{block.line}", "eval"), namespace)
            where = f"README.md line {block.line + statement.lineno}"
            if isinstance(expected, float) and isinstance(value, float):
                assert math.isclose(value, expected, abs_tol=1e-9), (where, value, expected)
            else:
                assert value == expected, (where, value, expected)
        else:
            exec(compile(source, f"README.md:{block.line}", "exec"), namespace)


def _left_untracked(root: Path) -> list[str]:
    """What running a block left in the clone's root that git would show as untracked: a
    reader who runs it from a clone must find only ignored files (results/, ...)."""
    made = sorted(
        path.name + ("/" if path.is_dir() else "") for path in root.iterdir() if path.name != "data"
    )
    return [
        name
        for name in made
        if subprocess.run(
            ["git", "-C", str(REPO), "check-ignore", "-q", "--no-index", name],
            check=False,
        ).returncode
        != 0
    ]


@pytest.mark.parametrize(
    "block", PYTHON_BLOCKS, ids=[f"line{block.line}" for block in PYTHON_BLOCKS]
)
def test_python_block_runs_as_written(block: Block, clone: Path) -> None:
    if block.no_run is not None:
        compile(block.code, f"README.md:{block.line}", "exec")  # at least it is Python
        assert "import" in block.code, "even a block that does not run here imports what it uses"
        return
    _run_python(block)
    assert _left_untracked(clone) == [], f"README.md line {block.line} leaves untracked files"


def test_the_readme_has_blocks_that_run() -> None:
    runnable = [block for block in PYTHON_BLOCKS if block.no_run is None]
    assert len(runnable) >= 3, "the Use, custom scorer and reports blocks run"
    assert any("source_document =" in block.code for block in runnable)


# -- the command line -----------------------------------------------------------------------

_NEEDS_ELSEWHERE = ("../shared/benchmarks", "--api-base")


def _commands() -> list[tuple[int, list[str]]]:
    """Each ``evaltoolkit ...`` line of the bash blocks (continuations joined), with its line."""
    found = []
    for block in _blocks():
        if block.language != "bash" or block.no_run is not None:
            continue
        joined = block.code.replace("\\\n", " ")
        for offset, line in enumerate(joined.splitlines()):
            words = shlex.split(line, comments=True)
            if words[:1] == ["evaltoolkit"]:
                found.append((block.line + offset + 1, words[1:]))
    return found


def _skip_reason(arguments: list[str], root: Path) -> str | None:
    text = " ".join(arguments)
    if any(needed in text for needed in _NEEDS_ELSEWHERE):
        return "needs a model server or the benchmarks"
    if "--model" in arguments and arguments[arguments.index("--model") + 1] != "offline":
        return "needs a model"
    if arguments[:1] in (["run"], ["compare"]) and not (root / arguments[1]).exists():
        return "reads a file of the user's"
    return None


def test_the_command_lines_run(
    clone: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A person at a terminal, answering yes when asked (`cache clear`).
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt="": "y")
    ran = []
    for line, arguments in _commands():
        if _skip_reason(arguments, clone) is not None:
            continue
        try:
            status = cli.main(
                [*arguments, "--no-progress"] if arguments[0] in ("run", "demo") else arguments
            )
        except SystemExit as exit_:  # --help, --version
            status = exit_.code or 0
        captured = capsys.readouterr()
        assert status == 0, (
            f"README.md line {line}: evaltoolkit {' '.join(arguments)}",
            captured.err,
        )
        ran.append(arguments[0])
    assert {"demo", "run", "report", "cache", "--help", "--version"} <= set(ran), ran
    assert _left_untracked(clone) == [], "the README's commands leave untracked files"


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
    text = " ".join(README.read_text(encoding="utf-8").split())
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
