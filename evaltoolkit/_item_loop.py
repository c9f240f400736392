"""The loop that scores data items, shared by a run in one process and by Dask workers.

:mod:`evaltoolkit.runner` runs it in this process; :mod:`evaltoolkit._distributed` runs it in
each task on a worker. Both import it from here, so neither reaches into the other.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import time
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._datasets import DataItem, check_unique_columns
from .errors import ConfigurationError
from .judge import shared_call_limit
from .records import EvalResult, ItemResult, ScoreResult, StepError
from .scorers import Scorer

if TYPE_CHECKING:
    import pandas as pd

Target = Callable[[Any], Any]
ItemCallback = Callable[[ItemResult], Any]
Scorers = Scorer | Sequence[Scorer] | Mapping[str, Scorer]

# Below this many items the progress bar stays hidden unless the run is slow.
_PROGRESS_DELAY_S = 0.5


def _named_scorers(scorers: Scorers) -> dict[str, Scorer]:
    if isinstance(scorers, Scorer):
        return {scorers.id: scorers}
    if isinstance(scorers, Mapping):
        named = dict(scorers)
    else:
        named = {}
        for scorer in scorers:
            if not isinstance(scorer, Scorer):
                raise ConfigurationError(
                    f"scorers must be scorer objects (from create_*_scorer), got "
                    f"{type(scorer).__name__}"
                )
            if scorer.id in named:
                raise ConfigurationError(
                    f"two scorers share the id {scorer.id!r}; pass a dict such as "
                    f"{{'{scorer.id}-a': scorer_a, '{scorer.id}-b': scorer_b}} to name them"
                )
            named[scorer.id] = scorer
    if not named:
        raise ConfigurationError("no scorers given; pass at least one scorer")
    for name, scorer in named.items():
        if not isinstance(scorer, Scorer):
            raise ConfigurationError(
                f"scorer {name!r} is {type(scorer).__name__}, not a scorer object"
            )
    return named


def _failed(scorer_id: str, error: StepError, run_id: str) -> ScoreResult:
    return ScoreResult(scorer=scorer_id, score=math.nan, error=error, run_id=run_id)


async def _call_target(target: Target, item_input: Any) -> Any:
    if inspect.iscoroutinefunction(target):
        return await target(item_input)
    produced = await asyncio.to_thread(target, item_input)
    if inspect.isawaitable(produced):
        return await produced
    return produced


async def _score_item(
    item: DataItem,
    scorers: Mapping[str, Scorer],
    target: Target | None,
    run_id: str,
) -> ItemResult:
    started = time.perf_counter()
    output = item.output
    failure: StepError | None = None
    if item.problem is not None:
        failure = StepError("input", str(item.problem), type(item.problem).__name__)
    elif target is not None:
        try:
            output = await _call_target(target, item.input)
        except Exception as error:  # a failing target fails its item, not the run
            failure = StepError(
                "target",
                f"item {item.item_id!r}: the target raised {type(error).__name__}: {error}",
                type(error).__name__,
            )
    if failure is not None:
        results = [_failed(name, failure, run_id) for name in scorers]
    else:
        results = list(
            await asyncio.gather(
                *(
                    scorer.arun(
                        input=item.input,
                        output=output,
                        ground_truth=item.ground_truth,
                        item_id=item.item_id,
                        run_id=run_id,
                        fields=item.fields,
                    )
                    for scorer in scorers.values()
                )
            )
        )
    named_results = {}
    for name, result in zip(scorers, results, strict=True):
        if result.scorer != name:
            result.scorer = name
        named_results[name] = result
    return ItemResult(
        item_id=item.item_id,
        index=item.index,
        input=item.input,
        output=output,
        ground_truth=item.ground_truth,
        fields=item.fields,
        scorer_results=named_results,
        latency_s=time.perf_counter() - started,
        notes=tuple(item.notes),
    )


async def _notify(callback: ItemCallback, item_result: ItemResult) -> None:
    try:
        outcome = callback(item_result)
        if inspect.isawaitable(outcome):
            await outcome
    except Exception as error:  # a broken callback must not lose the run's results
        warnings.warn(
            f"on_item_complete raised {type(error).__name__} for item "
            f"{item_result.item_id!r}: {error}",
            RuntimeWarning,
            stacklevel=2,
        )


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="scoring", unit="item", delay=_PROGRESS_DELAY_S, leave=True)


def _check_count(name: str, value: object, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be an integer >= 1, got {value!r}")


def _is_dask_frame(value: object) -> bool:
    """Whether ``value`` is a Dask DataFrame, told without importing dask."""
    module = type(value).__module__
    return module.split(".")[0] in ("dask", "dask_expr") and hasattr(value, "map_partitions")


async def _score_items(
    items: Sequence[DataItem],
    scorers: Mapping[str, Scorer],
    target: Target | None,
    run_id: str,
    concurrency: int,
    on_done: Callable[[ItemResult], Awaitable[None]] | None = None,
) -> list[ItemResult]:
    """Score ``items``, ``concurrency`` at a time; their results in the same order.

    The loop of every run, in one process or in each task on a Dask worker.
    """
    results: list[ItemResult | None] = [None] * len(items)
    item_slots = asyncio.Semaphore(concurrency)

    async def process(position: int, item: DataItem) -> None:
        async with item_slots:
            item_result = await _score_item(item, scorers, target, run_id)
        results[position] = item_result
        if on_done is not None:
            await on_done(item_result)

    with shared_call_limit(concurrency):
        await asyncio.gather(*(process(position, item) for position, item in enumerate(items)))
    finished = [result for result in results if result is not None]
    assert len(finished) == len(items), "every item must have a result"
    return finished


def _frame_items(
    frame: pd.DataFrame,
    input: str,
    output: str,
    ground_truth: str | None,
    *,
    by_label: bool = False,
) -> list[dict[str, Any]]:
    """One item per row; its id is the row's position, or with ``by_label`` its index label."""
    named = [column for column in (input, output, ground_truth) if column is not None]
    for column in named:
        if column not in frame.columns:
            raise ConfigurationError(
                f"score_frame: no column {column!r}; the frame has {list(frame.columns)}"
            )
    check_unique_columns(
        [column for column in frame.columns if column in named], where="score_frame: the frame"
    )
    labels = list(frame.index) if by_label else range(len(frame))
    items: list[dict[str, Any]] = []
    for position, label in enumerate(labels):
        row = frame.iloc[position]
        item = {"id": label, "input": row[input], "output": row[output]}
        if ground_truth is not None:
            item["ground_truth"] = row[ground_truth]
        items.append(item)
    return items


def _score_columns(result: EvalResult, frame_columns: Sequence[Any]) -> dict[str, list[Any]]:
    """The columns score_frame adds: per scorer, score, reason, error, then its details; and
    the notes, when loading changed an item (``evaltoolkit.notes`` if the frame has notes)."""
    columns: dict[str, list[Any]] = {}
    for scorer in result.scorer_ids:
        records = [score.to_record() for score in result.results(scorer)]
        detail_keys = list(dict.fromkeys(key for s in result.results(scorer) for key in s.details))
        for key in ("score", "reason", "error", *detail_keys):
            columns[f"{scorer}.{key}"] = [record.get(key) for record in records]
    if any(item.notes for item in result):
        taken = {*frame_columns, *columns}
        column = "notes" if "notes" not in taken else "evaltoolkit.notes"
        columns[column] = ["; ".join(item.notes) or None for item in result]
    return columns
