"""Every notebook runs top to bottom on the offline judge, with no network."""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from _support import REPO
from nbclient import NotebookClient

from evaltoolkit.meta import find_benchmarks

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# The meta-evaluation notebook scores the full dev sets; the others take seconds.
TIME_LIMIT_S = 600
CELL_LIMIT_S = 300


def test_notebooks_are_committed_without_outputs() -> None:
    assert NOTEBOOKS, "no notebooks found"
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [], f"{path.name} has outputs committed"
                assert cell.execution_count is None, f"{path.name} has execution counts"


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run a copy beside a copy of the demo data, so outputs and exports stay out of the repo.
    shutil.copytree(REPO / "data", tmp_path / "data")
    (tmp_path / "notebooks").mkdir()
    copy = tmp_path / "notebooks" / path.name
    shutil.copy(path, copy)
    benchmarks = find_benchmarks()
    if benchmarks is not None:
        monkeypatch.setenv("EVALTOOLKIT_BENCHMARKS", str(benchmarks))
    monkeypatch.setenv("EVALTOOLKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(copy, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_LIMIT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(copy.parent)}},
    )
    # A hard limit on the whole notebook, on top of nbclient's per-cell timeout.
    asyncio.run(asyncio.wait_for(client.async_execute(), timeout=TIME_LIMIT_S))
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert errors == []
    check = OUTPUT_CHECKS.get(path.stem)
    if check is not None:
        check(notebook, tmp_path)


def _tagged_text(notebook: Any, tag: str) -> str:
    """The text a cell tagged ``tag`` printed or showed."""
    cells = [cell for cell in notebook.cells if tag in cell.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"one cell tagged {tag!r} expected"
    parts = []
    for output in cells[0].outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif "data" in output:
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def _check_report_and_leaderboard(notebook: Any, folder: Path) -> None:
    """Notebook 06: one leaderboard row per judge, agreements in [-1, 1], a report written."""
    lines = _tagged_text(notebook, "leaderboard-lines").strip().splitlines()
    pattern = re.compile(
        r"(?P<judge>.+): agreement (?P<value>-?[0-9.]+) "
        r"\[(?P<low>-?[0-9.]+), (?P<high>-?[0-9.]+)\] "
        r"\((?P<metric>\w+)\), (?P<scored>\d+) scored, (?P<failed>\d+) failed"
    )
    rows = [pattern.fullmatch(line) for line in lines]
    assert all(rows), lines
    judges = [row["judge"] for row in rows if row]
    assert sorted(judges) == ["10 questions", "5 questions"]
    for row in rows:
        assert row is not None
        value = float(row["value"])
        assert -1.0 <= value <= 1.0
        assert float(row["low"]) <= value <= float(row["high"])
        assert row["metric"] == "spearman_per_group"
        assert int(row["scored"]) > 0
    board = _tagged_text(notebook, "leaderboard")
    assert "5 questions" in board and "10 questions" in board
    report = folder / "results" / "report_and_leaderboard.html"
    page = report.read_text(encoding="utf-8")
    assert "Judge leaderboard" in page
    assert "Run: 5 questions" in page and "Run: 10 questions" in page
    assert "wrote ../results/report_and_leaderboard.html" in _tagged_text(notebook, "report")


# Notebooks whose outputs are checked beyond running without an error.
OUTPUT_CHECKS: dict[str, Callable[[Any, Path], None]] = {
    "06_report_and_leaderboard": _check_report_and_leaderboard,
}
