"""The loop that scores data items, shared by a run in one process and by Dask workers.

:mod:`evaltoolkit.runner` runs it in this process; :mod:`evaltoolkit.runner._distributed` runs it in
each task on a worker. Both import it from here, so neither reaches into the other.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import math
import time
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..judge._internal import shared_call_limit
from ..records import EvalResult, ItemResult, ScoreResult, StepError
from ..records._internal import new_run_id
from ..records.items import GROUND_TRUTH_ALIASES, DataItem, check_unique_columns, load_items
from ..scorers import Scorer
from ._estimate import Budget

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ItemCallback",
    "Scorers",
    "Target",
    "ascore_rows",
    "call_item_callback",
    "check_count",
    "frame_items",
    "is_dask_frame",
    "named_scorers",
    "progress_bar",
    "run_items",
    "score_columns",
    "score_items",
]

Target = Callable[[Any], Any]
ItemCallback = Callable[[ItemResult], Any]
Scorers = Scorer | Sequence[Scorer] | Mapping[str, Scorer]

# Below this many items the progress bar stays hidden unless the run is slow.
_PROGRESS_DELAY_S = 0.5


def named_scorers(scorers: Scorers) -> dict[str, Scorer]:
    """The scorers by the name their results go under: a dict as given, else each one's id."""
    if isinstance(scorers, Scorer):
        return {scorers.id: scorers}
    if isinstance(scorers, str) or not isinstance(scorers, Iterable):
        hint = (
            f" (to use the scorer {scorers!r}, create it: create_scorer({scorers!r}))"
            if isinstance(scorers, str)
            else ""
        )
        given = "None" if scorers is None else type(scorers).__name__
        raise ConfigurationError(
            f"scorers is {given}{hint}; pass a scorer (from create_*_scorer), "
            "a list of scorers, or a dict naming each scorer"
        )
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


def _not_started(
    item: DataItem, scorers: Mapping[str, Scorer], run_id: str, why: str
) -> ItemResult:
    """An item the run did not start (a budget reached): NaN scores, no error."""
    return ItemResult(
        item_id=item.item_id,
        index=item.index,
        input=item.input,
        output=item.output,
        ground_truth=item.ground_truth,
        fields=item.fields,
        scorer_results={
            name: ScoreResult(
                scorer=name, score=math.nan, reason=why, run_id=run_id, not_scored=why
            )
            for name in scorers
        },
        notes=tuple(item.notes),
    )


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
    budget: Budget | None = None,
) -> ItemResult:
    if budget is not None and budget.stopped:
        return _not_started(item, scorers, run_id, budget.message)
    started = time.perf_counter()
    output = item.output
    failure: StepError | None = None
    reservation: float | None = None
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
    if failure is None and budget is not None:
        # Planned once the output is known: with a target, only after it has answered.
        reservation = await budget.reserve(dataclasses.replace(item, output=output))
        if reservation is None:
            return dataclasses.replace(
                _not_started(item, scorers, run_id, budget.message), output=output
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
    if budget is not None and reservation is not None:
        budget.settle(reservation, [result.cost for result in results])
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


async def call_item_callback(callback: ItemCallback, item_result: ItemResult) -> None:
    """Call ``on_item_complete`` (sync or async); what it raises becomes a warning."""
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


def progress_bar(total: int, enabled: bool) -> Any:
    """A tqdm bar that shows only on a slow run, or None when disabled."""
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="scoring", unit="item", delay=_PROGRESS_DELAY_S, leave=True)


def check_count(name: str, value: object, *, optional: bool = False) -> None:
    """Refuse a count option (``concurrency``, ``partition_size``, ...) that is not an int >= 1."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be an integer >= 1, got {value!r}")


def is_dask_frame(value: object) -> bool:
    """Whether ``value`` is a Dask DataFrame, told without importing dask."""
    module = type(value).__module__
    return module.split(".")[0] in ("dask", "dask_expr") and hasattr(value, "map_partitions")


async def score_items(
    items: Sequence[DataItem],
    scorers: Mapping[str, Scorer],
    target: Target | None,
    run_id: str,
    concurrency: int,
    on_done: Callable[[ItemResult], Awaitable[None]] | None = None,
    budget: Budget | None = None,
) -> list[ItemResult]:
    """Score ``items``, ``concurrency`` at a time; their results in the same order.

    The loop of every run, in one process or in each task on a Dask worker. With a
    ``budget``, an item starts only while the budget allows it (see :class:`Budget`); the
    others are kept as not scored.
    """
    results: list[ItemResult | None] = [None] * len(items)
    item_slots = asyncio.Semaphore(concurrency)

    async def process(position: int, item: DataItem) -> None:
        async with item_slots:
            item_result = await _score_item(item, scorers, target, run_id, budget)
        results[position] = item_result
        if on_done is not None:
            await on_done(item_result)

    with shared_call_limit(concurrency):
        await asyncio.gather(*(process(position, item) for position, item in enumerate(items)))
    finished = [result for result in results if result is not None]
    assert len(finished) == len(items), "every item must have a result"
    return finished


def frame_items(
    frame: pd.DataFrame,
    input_col: str,
    output_col: str,
    ground_truth_col: str | None,
    *,
    by_label: bool = False,
) -> list[dict[str, Any]]:
    """One item per row; its id is the row's position, or with ``by_label`` its index label."""
    truths = (
        [ground_truth_col]
        if ground_truth_col is not None
        else [alias for alias in GROUND_TRUTH_ALIASES if alias in frame.columns]
    )
    named = [input_col, output_col, *truths]
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
        item = {"id": label, "input": row[input_col], "output": row[output_col]}
        if ground_truth_col is not None:
            item["ground_truth"] = row[ground_truth_col]
        else:
            item.update({alias: row[alias] for alias in truths})
        items.append(item)
    return items


def score_columns(result: EvalResult, frame_columns: Sequence[Any]) -> dict[str, list[Any]]:
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


async def run_items(
    data: Any,
    named: Mapping[str, Scorer],
    *,
    target: Target | None = None,
    concurrency: int,
    on_item_complete: ItemCallback | None = None,
    progress: bool,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    id_col: str | None = None,
    max_cost: float | None = None,
) -> EvalResult:
    """A whole run in this process: load the items, score them, and gather the result.

    ``run_evals`` comes here once its options are checked; ``score_frame`` and the probe of
    a Dask frame's columns come here with a frame's rows.
    """
    items = load_items(
        data,
        input_col=input_col,
        output_col=output_col,
        ground_truth_col=ground_truth_col,
        id_col=id_col,
    )
    budget = None if max_cost is None else Budget(max_cost, named)
    run_id = new_run_id()
    started = time.perf_counter()
    bar = progress_bar(len(items), progress)

    completed = 0

    async def done(item_result: ItemResult) -> None:
        nonlocal completed
        completed += 1
        if bar is not None:
            bar.update(1)
        if on_item_complete is not None:
            await call_item_callback(on_item_complete, item_result)

    try:
        finished = await score_items(items, named, target, run_id, concurrency, done, budget)
    except asyncio.CancelledError as cancelled:
        # Ctrl-C (through run_sync) or a cancelled task: say how far it got. The replies
        # already received are in the judge cache, so the same call resumes from there.
        cancelled.add_note(
            f"interrupted after {completed} of {len(items)} items; rerun the same call to "
            "resume from the judge cache"
        )
        raise
    finally:
        if bar is not None:
            bar.close()
    return EvalResult(
        items=finished,
        scorer_ids=list(named),
        run_id=run_id,
        elapsed_s=time.perf_counter() - started,
    )


async def ascore_rows(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input_col: str,
    output_col: str,
    ground_truth_col: str | None,
    concurrency: int,
    progress: bool,
    by_label: bool = False,
) -> pd.DataFrame:
    """The pandas path of score_frame; a Dask partition is scored by it too."""
    check_count("concurrency", concurrency)
    result = await run_items(
        frame_items(frame, input_col, output_col, ground_truth_col, by_label=by_label),
        named_scorers(scorers),
        concurrency=concurrency,
        progress=progress,
    )
    scored = frame.copy()
    for name, values in score_columns(result, list(frame.columns)).items():
        scored[name] = values
    return scored
