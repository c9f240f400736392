"""Run the code blocks of a Markdown page (the README, docs/*.md) as a reader would.

Every ```python block runs, in the page's order and in one namespace per page (a later block
may use what an earlier one made, as a reader's session does), from a copy of the clone's root
with ``data/``; a block marked ``<!-- no-run: why -->`` on the line above is compiled only. An
expression line ending in a comment that is a Python literal (``.score  # 1.0``) must evaluate
to it. The ``evaltoolkit`` commands of the ```bash blocks run in-process through the command's
``main``, in the same order, except those that need a model, the benchmarks or a file the page
does not make. A DeprecationWarning raised by evaltoolkit, or by a block's own call, is an
error: the pages never show a deprecated path.
"""

from __future__ import annotations

import ast
import math
import re
import shlex
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaltoolkit import cli
from evaltoolkit.scorers import scorer_ids, unregister_scorer

REPO = Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^```(\w*)\s*$")
_NO_RUN = re.compile(r"^<!--\s*no-run:\s*(\S.*?)\s*-->$")
# The module name a block's code runs under: warnings from its calls are attributed to it.
BLOCK_MODULE = "__docs__"


@dataclass(frozen=True)
class Block:
    page: str  # relative to the clone's root
    language: str
    line: int  # of the opening fence, 1-based
    code: str
    no_run: str | None  # why it does not run here

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a page that name a language, in order."""
    page = path.relative_to(REPO).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None or not opening.group(1):
            index += 1
            continue
        end = next(n for n in range(index + 1, len(lines)) if lines[n].startswith("```"))
        marker = _NO_RUN.match(lines[index - 1].strip()) if index else None
        found.append(
            Block(
                page=page,
                language=opening.group(1),
                line=index + 1,
                code="\n".join(lines[index + 1 : end]) + "\n",
                no_run=marker.group(1) if marker else None,
            )
        )
        index = end + 1
    return found


def make_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
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


def check_not_run(block: Block) -> None:
    compile(block.code, block.where, "exec")  # at least it is Python
    assert "import" in block.code, (
        f"{block.where}: even a block that does not run here imports what it uses"
    )


def run_python(block: Block, namespace: dict[str, object]) -> None:
    """Run one block statement by statement in ``namespace``, checking the stated literals."""
    tree = ast.parse(block.code, filename=block.where)
    lines = block.code.splitlines()
    with warnings.catch_warnings():
        # Attributed to evaltoolkit (its own use of a deprecated path) or to the block (a
        # deprecated path of evaltoolkit's called from the page, stacklevel pointing there).
        for module in (r"evaltoolkit(\.|$)", re.escape(BLOCK_MODULE)):
            warnings.filterwarnings("error", category=DeprecationWarning, module=module)
        for statement in tree.body:
            source = ast.Module(body=[statement], type_ignores=[])
            stated, expected = _literal_comment(lines[statement.end_lineno - 1])  # type: ignore[operator]
            if isinstance(statement, ast.Expr) and stated:
                expression = ast.Expression(body=statement.value)
                value = eval(compile(expression, block.where, "eval"), namespace)
                where = f"{block.page} line {block.line + statement.lineno}"
                if isinstance(expected, float) and isinstance(value, float):
                    assert math.isclose(value, expected, abs_tol=1e-9), (where, value, expected)
                else:
                    assert value == expected, (where, value, expected)
            else:
                exec(compile(source, block.where, "exec"), namespace)


def new_namespace() -> dict[str, object]:
    return {"__name__": BLOCK_MODULE}


def left_untracked(root: Path) -> list[str]:
    """What running a page left in the clone's root that git would show as untracked: a
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


# -- the command line -----------------------------------------------------------------------

_NEEDS_ELSEWHERE = ("../shared/benchmarks", "--api-base")


def commands(block: Block) -> list[tuple[int, list[str]]]:
    """Each ``evaltoolkit ...`` line of a bash block (continuations joined), with its line."""
    if block.language != "bash" or block.no_run is not None:
        return []
    found = []
    joined = block.code.replace("\\\n", " ")
    for offset, line in enumerate(joined.splitlines()):
        words = shlex.split(line, comments=True)
        if words[:1] == ["evaltoolkit"]:
            found.append((block.line + offset + 1, words[1:]))
    return found


def skip_reason(arguments: list[str], root: Path) -> str | None:
    """Why a command of a page does not run in the tests, or None when it does."""
    text = " ".join(arguments)
    if any(needed in text for needed in _NEEDS_ELSEWHERE):
        return "needs a model server or the benchmarks"
    if "--model" in arguments and arguments[arguments.index("--model") + 1] != "offline":
        return "needs a model"
    if arguments[:1] in (["run"], ["compare"]) and not (root / arguments[1]).exists():
        return "reads a file of the user's"
    return None


def run_command(
    page: str,
    line: int,
    arguments: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One command through ``cli.main``, as a person at a terminal who answers yes."""
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt="": "y")
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=DeprecationWarning, module=r"evaltoolkit(\.|$)")
        try:
            status = cli.main(
                [*arguments, "--no-progress"] if arguments[0] in ("run", "demo") else arguments
            )
        except SystemExit as exit_:  # --help, --version
            status = exit_.code or 0
    captured = capsys.readouterr()
    assert status == 0, (f"{page} line {line}: evaltoolkit {' '.join(arguments)}", captured.err)


def run_page(
    path: Path,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> list[str]:
    """Run every block of a page in order in one namespace; the commands that ran."""
    namespace = new_namespace()
    ran: list[str] = []
    registered = set(scorer_ids())
    try:
        for block in blocks(path):
            if block.language == "python":
                if block.no_run is not None:
                    check_not_run(block)
                else:
                    run_python(block, namespace)
            for line, arguments in commands(block):
                if skip_reason(arguments, root) is None:
                    run_command(block.page, line, arguments, monkeypatch, capsys)
                    ran.append(arguments[0])
    finally:
        # A page that registers its own scorer (`register_scorer`) leaves the registry of
        # the process as it found it, for the other pages and tests.
        for scorer_id in set(scorer_ids()) - registered:
            unregister_scorer(scorer_id)
    assert left_untracked(root) == [], f"{path.name}'s code leaves untracked files"
    return ran
