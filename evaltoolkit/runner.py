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
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from ._datasets import GROUND_TRUTH_ALIASES, DataItem, check_unique_columns, load_items
from ._sync import run_sync
from .errors import ConfigurationError
from .judge import shared_call_limit
from .records import EvalResult, ItemResult, ScoreResult, StepError, new_run_id
from .scorers import Scorer

if TYPE_CHECKING:
    import pandas as pd
    from dask.dataframe import DataFrame as DaskDataFrame

__all__ = ["arun_evals", "ascore_frame", "run_evals", "score_frame"]

Target = Callable[[Any], Any]
ItemCallback = Callable[[ItemResult], Any]
Scorers = Scorer | Sequence[Scorer] | Mapping[str, Scorer]

# Below this many items the progress bar stays hidden unless the run is slow.
_PROGRESS_DELAY_S = 0.5


def _named_scorers(scorers: Scorers) -> dict[str, Scorer]:
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
    client: Any = None,
    total_concurrency: int | None = None,
    partition_size: int | None = None,
) -> EvalResult:
    """Score every item of ``data`` with every scorer (async twin of :func:`run_evals`)."""
    _check_count("concurrency", concurrency)
    if target is not None and not callable(target):
        raise ConfigurationError(f"target must be callable, got {type(target).__name__}")
    if _is_dask_frame(data):
        raise ConfigurationError(
            "run_evals takes a list, a pandas DataFrame or a file; score a Dask DataFrame "
            "with score_frame(ddf, scorers), which returns a Dask DataFrame"
        )
    named = _named_scorers(scorers)
    if client is not None:
        from ._distributed import arun_on_cluster

        return await arun_on_cluster(
            data,
            named,
            client=client,
            target=target,
            concurrency=concurrency,
            total_concurrency=total_concurrency,
            partition_size=partition_size,
            on_item_complete=on_item_complete,
            progress=progress,
            input_field=input_field,
            output_field=output_field,
            ground_truth_field=ground_truth_field,
            id_field=id_field,
        )
    if total_concurrency is not None or partition_size is not None:
        raise ConfigurationError(
            "total_concurrency and partition_size apply to a run on a Dask cluster; pass "
            "client=... (a dask.distributed Client or a scheduler address) to use them"
        )
    items = load_items(
        data,
        input_field=input_field,
        output_field=output_field,
        ground_truth_field=ground_truth_field,
        id_field=id_field,
    )
    run_id = new_run_id()
    started = time.perf_counter()
    bar = _progress_bar(len(items), progress)

    completed = 0

    async def done(item_result: ItemResult) -> None:
        nonlocal completed
        completed += 1
        if bar is not None:
            bar.update(1)
        if on_item_complete is not None:
            await _notify(on_item_complete, item_result)

    try:
        finished = await _score_items(items, named, target, run_id, concurrency, done)
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
    client: Any = None,
    total_concurrency: int | None = None,
    partition_size: int | None = None,
) -> EvalResult:
    """Score every item of ``data`` with every scorer.

    Works in scripts and inside a running event loop (a Jupyter cell) alike. With ``client``,
    the items are scored on the workers of a Dask cluster (``pip install
    "evaltoolkit[dask]"``), in partitions of ``partition_size`` items; the result is the same.

    Args:
        data: A list of dicts (``input``, optional ``output``, optional ``ground_truth`` or
            ``groundTruth``, optional ``id``; other fields are kept as columns), a DataFrame,
            or a path to a .jsonl, .json, .csv or .parquet file.
        scorers: A scorer, a list of scorers, or a dict naming each scorer.
        target: Optional callable (sync or async) turning an item's input into the output to
            score; called for every item. Without it, the items' ``output`` is scored.
        concurrency: Items in flight, and judge calls in flight across all scorers. On a
            cluster: in each partition being scored, and a worker scores one partition per
            thread, so N single-threaded workers make up to N x ``concurrency`` calls.
        on_item_complete: Called with each :class:`ItemResult` as its item completes (may be
            async); ``item_result.scorer_results[scorer.id]`` is that scorer's result. On a
            cluster it runs here, as each partition comes back.
        progress: Show a progress bar when the run takes more than half a second.
        input_field: The field holding the input.
        output_field: The field holding the output.
        ground_truth_field: The field holding the ground truth (default ``ground_truth`` or
            ``groundTruth``).
        id_field: The field holding the item id (default ``id`` or ``item_id``, else the
            item's position).
        client: A ``dask.distributed`` Client, or a scheduler address such as
            ``"tcp://10.0.0.5:8786"``: score on that cluster. A worker that dies loses
            nothing: its partitions are scored again elsewhere, and every item comes back once.
        total_concurrency: With ``client``: judge calls in flight across the whole cluster, for
            a rate-limited API. It is split evenly over the worker threads present when the
            run starts (at least one call each) and replaces ``concurrency``.
        partition_size: With ``client``: items per task (default: about four tasks per
            worker thread, at most 1,000 items each).

    Returns:
        The run's result: ``.scores``, ``.to_frame()``, ``.to_wide()`` and exports.

    Raises:
        ConfigurationError: Bad scorers, target or concurrency, or scorers that cannot be sent
            to the workers.
        DataLoadError: ``data`` is a path that cannot be read.
        MissingDependencyError: ``client`` is given and Dask is not installed.

    Example:
        >>> from evaltoolkit import create_textual_difference_scorer
        >>> result = run_evals(
        ...     [{"input": "Capital of France?", "output": "Paris", "ground_truth": "Paris"}],
        ...     [create_textual_difference_scorer()],
        ...     progress=False,
        ... )
        >>> float(result.scores["textual-difference"])
        1.0

        On a cluster (here a local one)::

            from dask.distributed import Client
            with Client(n_workers=2, threads_per_worker=1) as client:
                result = run_evals("data.jsonl", scorers, client=client)
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
            client=client,
            total_concurrency=total_concurrency,
            partition_size=partition_size,
        )
    )


def _frame_items(
    frame: pd.DataFrame,
    input: str,
    output: str,
    ground_truth: str | None,
    *,
    by_label: bool = False,
) -> list[dict[str, Any]]:
    """One item per row; its id is the row's position, or with ``by_label`` its index label.

    Without a ``ground_truth`` column named, a column ``ground_truth`` or ``groundTruth`` is
    the ground truth, as in the items of :func:`run_evals`.
    """
    truths = (
        [ground_truth]
        if ground_truth is not None
        else [alias for alias in GROUND_TRUTH_ALIASES if alias in frame.columns]
    )
    named = [input, output, *truths]
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
        else:
            item.update({alias: row[alias] for alias in truths})
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


async def _ascore_rows(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input: str,
    output: str,
    ground_truth: str | None,
    concurrency: int,
    progress: bool,
    by_label: bool = False,
) -> pd.DataFrame:
    """The pandas path of score_frame; a Dask partition is scored by it too."""
    result = await arun_evals(
        _frame_items(frame, input, output, ground_truth, by_label=by_label),
        scorers,
        concurrency=concurrency,
        progress=progress,
    )
    scored = frame.copy()
    for name, values in _score_columns(result, list(frame.columns)).items():
        scored[name] = values
    return scored


@overload
def score_frame(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> pd.DataFrame: ...


@overload
def score_frame(
    frame: DaskDataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> DaskDataFrame: ...


def score_frame(
    frame: pd.DataFrame | DaskDataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> Any:
    """Score the rows of a DataFrame; return a copy with score columns added.

    For each scorer ``s`` the columns ``s.score``, ``s.reason`` and ``s.error`` are added,
    followed by the scorer's details (``s.alignment_score``, ``s.ratio``, ...). A number in
    a text column is scored as its text (``4.0`` in a column with gaps as ``"4"``); when that
    happens a ``notes`` column (``evaltoolkit.notes`` if the frame has one) says so per row.

    A Dask DataFrame gives a Dask DataFrame, lazily: each partition is scored by this same
    code on whichever scheduler computes it (the workers of a ``dask.distributed`` cluster,
    which open their own judges and caches). Its columns are fixed before anything is scored,
    from the first rows of the first partition (scored once, right away); pass ``meta`` to
    skip that. They are those this function gives on a pandas frame in which some item
    failed and some item has notes: integer details are float64, the error column is text,
    and the notes column is always there, so that every partition fits, whatever happens
    where. Errors name the row by its index label. Show
    progress with ``dask.distributed.progress(scored.persist())``. Needs
    ``pip install "evaltoolkit[dask]"``.

    Args:
        frame: The rows to score: a pandas or a Dask DataFrame.
        scorers: A scorer, a list of scorers, or a dict naming each scorer.
        input: The column holding the input.
        output: The column holding the output.
        ground_truth: The column holding the ground truth; by default ``ground_truth`` or
            ``groundTruth`` when the frame has such a column (as items do in :func:`run_evals`).
        concurrency: Items and judge calls in flight (in each partition, for a Dask frame).
        progress: Show a progress bar on long runs (pandas frames).
        total_concurrency: For a Dask frame: judge calls in flight across the whole cluster,
            split evenly over the worker threads there when this is called (replaces
            ``concurrency``).
        meta: For a Dask frame: an empty DataFrame with the result's columns and dtypes.

    Returns:
        A pandas DataFrame, or a lazy Dask DataFrame for a Dask frame.

    Raises:
        ConfigurationError: A named column is missing, bad scorers or concurrency, or a
            Dask-only option given with a pandas frame.
        MissingDependencyError: Dask is not installed (only for Dask options).

    Example:
        >>> import pandas as pd
        >>> from evaltoolkit import create_textual_difference_scorer
        >>> frame = pd.DataFrame({"input": ["q"], "output": ["Paris"], "answer": ["Paris"]})
        >>> scored = score_frame(frame, create_textual_difference_scorer(),
        ...                      ground_truth="answer", progress=False)
        >>> float(scored["textual-difference.score"].iloc[0])
        1.0

        On a cluster, from partitioned Parquet to partitioned Parquet::

            import dask.dataframe as dd
            scored = score_frame(dd.read_parquet("summaries/"), scorers)
            scored.to_parquet("scored/")
    """
    if _is_dask_frame(frame):
        from ._distributed import score_dask_frame

        return score_dask_frame(
            frame,
            _named_scorers(scorers),
            input=input,
            output=output,
            ground_truth=ground_truth,
            concurrency=concurrency,
            total_concurrency=total_concurrency,
            meta=meta,
        )
    return run_sync(
        ascore_frame(
            frame,
            scorers,
            input=input,
            output=output,
            ground_truth=ground_truth,
            concurrency=concurrency,
            progress=progress,
            total_concurrency=total_concurrency,
            meta=meta,
        )
    )


@overload
async def ascore_frame(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> pd.DataFrame: ...


@overload
async def ascore_frame(
    frame: DaskDataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> DaskDataFrame: ...


async def ascore_frame(
    frame: pd.DataFrame | DaskDataFrame,
    scorers: Scorers,
    *,
    input: str = "input",
    output: str = "output",
    ground_truth: str | None = None,
    concurrency: int = 8,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> Any:
    """Score the rows of a DataFrame (async twin of :func:`score_frame`)."""
    if _is_dask_frame(frame):
        return await asyncio.to_thread(
            score_frame,
            frame,
            scorers,
            input=input,
            output=output,
            ground_truth=ground_truth,
            concurrency=concurrency,
            total_concurrency=total_concurrency,
            meta=meta,
        )
    if not (hasattr(frame, "columns") and hasattr(frame, "iloc")):
        raise ConfigurationError(
            f"score_frame takes a pandas or Dask DataFrame, got {type(frame).__name__}; wrap "
            "rows in pd.DataFrame(rows), or score a list of items or a file with run_evals"
        )
    if total_concurrency is not None or meta is not None:
        raise ConfigurationError(
            "score_frame: total_concurrency and meta apply to a Dask DataFrame; for a pandas "
            "frame, concurrency is the one limit"
        )
    return await _ascore_rows(
        frame,
        scorers,
        input=input,
        output=output,
        ground_truth=ground_truth,
        concurrency=concurrency,
        progress=progress,
    )
