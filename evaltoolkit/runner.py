"""Score data sets: :func:`run_evals`, its async twin :func:`arun_evals`, and :func:`score_frame`.

Every item appears in the result exactly once, in data order, whatever happens to it: an item
with a bad field, a target that raised or a judge step that failed gets NaN scores with the
error on each scorer's result, and the run goes on. Judge calls go through the judge cache,
so an interrupted run picks up where it stopped when run again.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._datasets import DataItem, check_unique_columns, load_items
from ._sync import run_sync
from .errors import ConfigurationError
from .judge import shared_call_limit
from .records import EvalResult, ItemResult, ScoreResult, StepError, new_run_id
from .scorers import Scorer

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["arun_evals", "ascore_frame", "run_evals", "score_frame"]

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


async def arun_evals(
    data: Any,
    scorers: Scorers,
    *,
    target: Target | None = None,
    concurrency: int = 8,
    on_item_complete: ItemCallback | None = None,
    progress: bool = True,
    input_field: str = "input",
    output_field: str = "output",
    ground_truth_field: str | None = None,
    id_field: str | None = None,
) -> EvalResult:
    """Score every item of ``data`` with every scorer (async twin of :func:`run_evals`)."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigurationError(f"concurrency must be an integer >= 1, got {concurrency!r}")
    if target is not None and not callable(target):
        raise ConfigurationError(f"target must be callable, got {type(target).__name__}")
    named = _named_scorers(scorers)
    items = load_items(
        data,
        input_field=input_field,
        output_field=output_field,
        ground_truth_field=ground_truth_field,
        id_field=id_field,
    )
    run_id = new_run_id()
    started = time.perf_counter()
    results: list[ItemResult | None] = [None] * len(items)
    item_slots = asyncio.Semaphore(concurrency)
    bar = _progress_bar(len(items), progress)
    completed = 0

    async def process(item: DataItem) -> None:
        nonlocal completed
        async with item_slots:
            item_result = await _score_item(item, named, target, run_id)
        results[item.index] = item_result
        completed += 1
        if bar is not None:
            bar.update(1)
        if on_item_complete is not None:
            await _notify(on_item_complete, item_result)

    try:
        with shared_call_limit(concurrency):
            await asyncio.gather(*(process(item) for item in items))
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
    finished = [result for result in results if result is not None]
    assert len(finished) == len(items), "every item must have a result"
    return EvalResult(
        items=finished,
        scorer_ids=list(named),
        run_id=run_id,
        elapsed_s=time.perf_counter() - started,
    )


def run_evals(
    data: Any,
    scorers: Scorers,
    *,
    target: Target | None = None,
    concurrency: int = 8,
    on_item_complete: ItemCallback | None = None,
    progress: bool = True,
    input_field: str = "input",
    output_field: str = "output",
    ground_truth_field: str | None = None,
    id_field: str | None = None,
) -> EvalResult:
    """Score every item of ``data`` with every scorer.

    Works in scripts and inside a running event loop (a Jupyter cell) alike.

    Args:
        data: A list of dicts (``input``, optional ``output``, optional ``ground_truth`` or
            ``groundTruth``, optional ``id``; other fields are kept as columns), a DataFrame,
            or a path to a .jsonl, .json, .csv or .parquet file.
        scorers: A scorer, a list of scorers, or a dict naming each scorer.
        target: Optional callable (sync or async) turning an item's input into the output to
            score; called for every item. Without it, the items' ``output`` is scored.
        concurrency: Items in flight, and judge calls in flight across all scorers.
        on_item_complete: Called with each :class:`ItemResult` as its item completes (may be
            async); ``item_result.scorer_results[scorer.id]`` is that scorer's result.
        progress: Show a progress bar when the run takes more than half a second.
        input_field: The field holding the input.
        output_field: The field holding the output.
        ground_truth_field: The field holding the ground truth (default ``ground_truth`` or
            ``groundTruth``).
        id_field: The field holding the item id (default ``id`` or ``item_id``, else the
            item's position).

    Returns:
        The run's result: ``.scores``, ``.to_frame()``, ``.to_wide()`` and exports.

    Raises:
        ConfigurationError: Bad scorers, target or concurrency.
        DataLoadError: ``data`` is a path that cannot be read.

    Example:
        >>> from evaltoolkit import create_textual_difference_scorer
        >>> result = run_evals(
        ...     [{"input": "Capital of France?", "output": "Paris", "ground_truth": "Paris"}],
        ...     [create_textual_difference_scorer()],
        ...     progress=False,
        ... )
        >>> float(result.scores["textual-difference"])
        1.0
    """
    return run_sync(
        arun_evals(
            data,
            scorers,
            target=target,
            concurrency=concurrency,
            on_item_complete=on_item_complete,
            progress=progress,
            input_field=input_field,
            output_field=output_field,
            ground_truth_field=ground_truth_field,
            id_field=id_field,
        )
    )


def _frame_items(
    frame: pd.DataFrame, input: str, output: str, ground_truth: str | None
) -> list[dict[str, Any]]:
    named = [column for column in (input, output, ground_truth) if column is not None]
    for column in named:
        if column not in frame.columns:
            raise ConfigurationError(
                f"score_frame: no column {column!r}; the frame has {list(frame.columns)}"
            )
    check_unique_columns(
        [column for column in frame.columns if column in named], where="score_frame: the frame"
    )
    items: list[dict[str, Any]] = []
    for position in range(len(frame)):
        row = frame.iloc[position]
        item = {"id": position, "input": row[input], "output": row[output]}
        if ground_truth is not None:
            item["ground_truth"] = row[ground_truth]
        items.append(item)
    return items


def score_frame(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
) -> pd.DataFrame:
    """Score the rows of a DataFrame; return a copy with score columns added.

    For each scorer ``s`` the columns ``s.score``, ``s.reason`` and ``s.error`` are added,
    followed by the scorer's details (``s.alignment_score``, ``s.ratio``, ...). A number in
    a text column is scored as its text (``4.0`` in a column with gaps as ``"4"``); when that
    happens a ``notes`` column (``evaltoolkit.notes`` if the frame has one) says so per row.

    Args:
        frame: The rows to score.
        scorers: A scorer, a list of scorers, or a dict naming each scorer.
        input: The column holding the input.
        output: The column holding the output.
        ground_truth: The column holding the ground truth, if any.
        concurrency: Items and judge calls in flight.
        progress: Show a progress bar on long runs.

    Example:
        >>> import pandas as pd
        >>> from evaltoolkit import create_textual_difference_scorer
        >>> frame = pd.DataFrame({"input": ["q"], "output": ["Paris"], "answer": ["Paris"]})
        >>> scored = score_frame(frame, create_textual_difference_scorer(),
        ...                      ground_truth="answer", progress=False)
        >>> float(scored["textual-difference.score"].iloc[0])
        1.0
    """
    return run_sync(
        ascore_frame(
            frame,
            scorers,
            input=input,
            output=output,
            ground_truth=ground_truth,
            concurrency=concurrency,
            progress=progress,
        )
    )


async def ascore_frame(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
) -> pd.DataFrame:
    """Score the rows of a DataFrame (async twin of :func:`score_frame`)."""
    result = await arun_evals(
        _frame_items(frame, input, output, ground_truth),
        scorers,
        concurrency=concurrency,
        progress=progress,
    )
    scored = frame.copy()
    for scorer in result.scorer_ids:
        records = [score.to_record() for score in result.results(scorer)]
        detail_keys = list(dict.fromkeys(key for s in result.results(scorer) for key in s.details))
        for key in ("score", "reason", "error", *detail_keys):
            scored[f"{scorer}.{key}"] = [record.get(key) for record in records]
    if any(item.notes for item in result):
        column = "notes" if "notes" not in scored.columns else "evaltoolkit.notes"
        scored[column] = ["; ".join(item.notes) or None for item in result]
    return scored
