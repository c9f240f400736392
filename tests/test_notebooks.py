"""Every notebook runs top to bottom on the offline judge, with no network."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

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
