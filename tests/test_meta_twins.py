"""Blocking twins generated from their async functions, and judge_comparison's deprecation."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

import evaltoolkit as et
from evaltoolkit import meta
from evaltoolkit._internal.sync import blocking

DEMO = "data/demo_summaries.jsonl"
COLUMNS = {"input_col": "input", "output_col": "output"}
TIMING = ["mean_latency_s"]  # wall time differs between two runs


def _judges() -> dict[str, et.Scorer]:
    return {
        "default": et.create_summarization_scorer(),
        "strict": et.create_summarization_scorer(offline_settings={"answer_share": 1.0}),
    }


def _options() -> dict[str, Any]:
    # Eight items keep it quick; the bootstrap still ranks and pairs the judges.
    return {"label": "human_score", "n_bootstrap": 30, "limit": 8, "progress": False, **COLUMNS}


@pytest.fixture(autouse=True)
def _in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    from _support import REPO

    monkeypatch.chdir(REPO)


@pytest.mark.parametrize(
    ("twin", "async_twin"),
    [
        (meta.compare_judges, meta.acompare_judges),
        (meta.meta_evaluate, meta.ameta_evaluate),
        (meta.repeatability, meta.arepeatability),
        (et.run_evals, et.arun_evals),
        (et.score_frame, et.runner.ascore_frame),
    ],
    ids=lambda function: function.__name__,
)
def test_a_blocking_twin_has_its_async_twins_signature_and_docstring(
    twin: Callable[..., Any], async_twin: Callable[..., Any]
) -> None:
    assert inspect.signature(twin) == inspect.signature(async_twin)
    assert not inspect.iscoroutinefunction(twin)
    assert inspect.iscoroutinefunction(async_twin)
    assert twin.__name__ == async_twin.__name__.removeprefix("a")
    assert twin.__doc__ is not None and async_twin.__doc__ is not None
    assert f"The blocking twin of :func:`{async_twin.__name__}`" in twin.__doc__
    # The summary line and the sections are the async function's own.
    assert twin.__doc__.splitlines()[0] == async_twin.__doc__.splitlines()[0]
    assert "Example:" in twin.__doc__


def _deprecated(name: str) -> Any:
    """The de-listed alias, taken from its old public path (which warns on access)."""
    with pytest.warns(DeprecationWarning, match=rf"meta\.{name} is deprecated: use compare_judges"):
        return getattr(meta, name)


def test_the_deprecated_alias_keeps_the_signature_it_had() -> None:
    survivor = inspect.signature(meta.acompare_judges)
    without_keep_runs = survivor.replace(
        parameters=[p for p in survivor.parameters.values() if p.name != "keep_runs"],
        return_annotation="JudgeComparison",
    )
    assert inspect.signature(_deprecated("judge_comparison")) == without_keep_runs
    assert inspect.signature(_deprecated("ajudge_comparison")) == without_keep_runs


async def test_a_blocking_twin_runs_inside_a_running_event_loop() -> None:
    async def atotal(values: list[int], *, start: int = 0) -> int:
        """Add the values."""
        await asyncio.sleep(0)
        return start + sum(values)

    total = blocking(atotal)
    asyncio.get_running_loop()  # a Jupyter cell's situation: a loop is running here
    assert total([1, 2], start=3) == 6
    assert total.__name__ == "total"
    assert blocking(atotal, name="add").__name__ == "add"


def test_judge_comparison_warns_and_returns_what_compare_judges_keeps() -> None:
    with pytest.warns(DeprecationWarning, match=r"compare_judges\(\.\.\., keep_runs=True\)"):
        old = _deprecated("judge_comparison")(DEMO, _judges(), **_options())
    kept = meta.compare_judges(DEMO, _judges(), keep_runs=True, **_options())
    board = meta.compare_judges(DEMO, _judges(), **_options())
    assert isinstance(old, meta.JudgeComparison)
    assert isinstance(kept, meta.JudgeComparison)
    assert isinstance(board, pd.DataFrame)
    pd.testing.assert_frame_equal(
        old.leaderboard.drop(columns=TIMING), kept.leaderboard.drop(columns=TIMING)
    )
    pd.testing.assert_frame_equal(kept.leaderboard.drop(columns=TIMING), board.drop(columns=TIMING))
    pd.testing.assert_frame_equal(old.pairwise, kept.pairwise)
    assert old.leaderboard.attrs["ranking"] == board.attrs["ranking"]
    assert sorted(old.results) == ["default", "strict"]
    assert len(old.results["strict"]) == 8
    pd.testing.assert_frame_equal(
        old.paired("default", "strict", n_bootstrap=30),
        kept.paired("default", "strict", n_bootstrap=30),
    )


async def test_ajudge_comparison_warns_and_returns_what_acompare_judges_keeps() -> None:
    with pytest.warns(DeprecationWarning, match=r"acompare_judges\(\.\.\., keep_runs=True\)"):
        pending = _deprecated("ajudge_comparison")(DEMO, _judges(), **_options())
    old = await pending
    kept = await meta.acompare_judges(DEMO, _judges(), keep_runs=True, **_options())
    assert isinstance(old, meta.JudgeComparison)
    pd.testing.assert_frame_equal(
        old.leaderboard.drop(columns=TIMING), kept.leaderboard.drop(columns=TIMING)
    )
