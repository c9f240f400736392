"""build_report and write_report: the page from results, and the file written safely."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.files import atomic_write
from ..errors import ConfigurationError, DataLoadError
from ..records import EvalResult
from ..records._internal import as_eval_result
from ._data import Run, build_data
from ._page import render_page

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["build_report", "write_report"]

ResultsLike = Any  # EvalResult | pd.DataFrame | str | os.PathLike[str]

#: Rows that get a drill-down, at most (the others keep their scores in the table).
MAX_ITEMS = 2000
#: Characters kept of one text (a source, a prompt, a reply).
MAX_TEXT_CHARS = 20_000
#: Budget of the embedded data, in bytes (UTF-8 JSON): the page stays well under 20 MB.
MAX_BYTES = 14_000_000


def _run(name: str | None, value: ResultsLike, position: int) -> Run:
    origin = Path(value) if isinstance(value, str | os.PathLike) else None
    result = as_eval_result(value)
    if origin is not None and not len(result):
        raise DataLoadError(
            f"{str(origin)!r} holds no items (the run it was written from scored none): "
            "there is nothing to report"
        )
    if name is None:
        name = origin.name if origin is not None else f"run {position + 1}"
    return Run(name=name, result=result, origin=origin)


def _runs(results: ResultsLike) -> list[Run]:
    if isinstance(results, EvalResult | str | os.PathLike) or hasattr(results, "columns"):
        return [_run(None, results, 0)]
    if isinstance(results, Mapping):
        runs = [_run(str(name), value, i) for i, (name, value) in enumerate(results.items())]
    elif isinstance(results, Sequence):
        runs = [_run(None, value, i) for i, value in enumerate(results)]
    else:
        raise ConfigurationError(
            "results must be an EvalResult, a DataFrame of its rows, the path of saved results, "
            f"or a list or dict of them; got {type(results).__name__}"
        )
    names = [run.name for run in runs]
    for run in runs:  # two files of the same name: tell them apart
        if names.count(run.name) > 1 and run.origin is not None:
            run.name = str(run.origin)
    return runs


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def build_report(
    results: ResultsLike,
    *,
    title: str | None = None,
    leaderboard: pd.DataFrame | None = None,
    max_items: int = MAX_ITEMS,
    max_text_chars: int = MAX_TEXT_CHARS,
    max_bytes: int = MAX_BYTES,
    top_disagreements: int = 15,
) -> str:
    """Build the report page as HTML text.

    Args:
        results: An EvalResult, the DataFrame of its ``to_frame()``/``to_wide()``, the path
            of saved results, or a list of them (one section each), or a dict naming them.
            May be empty when a leaderboard is given.
        title: The page title (default: "evaltoolkit report").
        leaderboard: The DataFrame of :func:`~evaltoolkit.compare_judges`, shown with its
            pairwise agreement and its agreement-against-cost figure.
        max_items: Rows that get a drill-down, at most.
        max_text_chars: Characters kept of one text.
        max_bytes: Budget of the data embedded in the page.
        top_disagreements: Rows listed as disagreeing most, per run.

    Returns:
        The page.

    Raises:
        ConfigurationError: Results of the wrong kind, or a bad limit.
        DataLoadError: A path that cannot be read as results, or that holds no items.

    Example:
        >>> import evaltoolkit as et
        >>> result = et.run_evals([{"input": "a b", "output": "a", "ground_truth": "a"}],
        ...                       et.create_textual_difference_scorer(), progress=False)
        >>> "<script>alert" in build_report(result, title="<script>alert(1)</script>")
        False
    """
    for name, value in (
        ("max_items", max_items),
        ("max_text_chars", max_text_chars),
        ("max_bytes", max_bytes),
        ("top_disagreements", top_disagreements),
    ):
        _positive(name, value)
    runs = [] if results is None else _runs(results)
    if not runs and leaderboard is None:
        raise ConfigurationError("nothing to report: pass results, a leaderboard, or both")
    data = build_data(
        runs,
        max_items=max_items,
        max_text_chars=max(max_text_chars, 100),
        max_bytes=max_bytes,
        top_disagreements=top_disagreements,
    )
    return render_page(
        runs,
        data,
        title=title or "evaltoolkit report",
        leaderboard=leaderboard,
        max_items=max_items,
        top_disagreements=top_disagreements,
    )


def write_report(
    results: ResultsLike,
    path: str | os.PathLike[str],
    **options: Any,
) -> Path:
    """Write the report of :func:`build_report` to ``path`` (UTF-8) and return the path.

    The file is written under a temporary name and renamed into place, so an interrupted
    write never leaves half a page.

    Args:
        results: What :func:`build_report` takes.
        path: The HTML file to write; its folder is created.
        **options: The options of :func:`build_report` (``title``, ``leaderboard``,
            ``max_items``, ...).

    Example:
        >>> import evaltoolkit as et, tempfile, pathlib
        >>> result = et.run_evals("data/demo_answers.jsonl",
        ...                       et.create_textual_difference_scorer(), progress=False)
        >>> path = write_report(result, pathlib.Path(tempfile.mkdtemp()) / "report.html")
        >>> path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        True
    """
    page = build_report(results, **options)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, lambda tmp: tmp.write_text(page, encoding="utf-8"))
    return target
