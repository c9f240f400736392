"""Score data sets: :func:`run_evals`, its async twin :func:`arun_evals`, and :func:`score_frame`.

Every item appears in the result exactly once, in data order, whatever happens to it: an item
with a bad field, a target that raised or a judge step that failed gets NaN scores with the
error on each scorer's result, and the run goes on. Judge calls go through the judge cache,
so an interrupted run picks up where it stopped when run again.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any, Final, overload

from .._internal.deprecation import renamed_keywords
from .._internal.sync import blocking
from ..errors import ConfigurationError
from ..records import EvalResult
from ..records.items import load_items
from ._estimate import CostEstimate, estimate_items
from ._item_loop import (
    ItemCallback,
    Scorers,
    Target,
    ascore_rows,
    check_count,
    is_dask_frame,
    named_scorers,
    run_items,
)

if TYPE_CHECKING:
    import pandas as pd
    from dask.dataframe import DataFrame as DaskDataFrame

__all__ = [
    "CostEstimate",
    "arun_evals",
    "ascore_frame",
    "estimate_cost",
    "run_evals",
    "score_frame",
]

# Keyword names renamed after 0.1.0 (the glossary: one name per concept), accepted for one release.
_RUN_RENAMES = {
    "input_field": "input_col",
    "output_field": "output_col",
    "ground_truth_field": "ground_truth_col",
    "id_field": "id_col",
}
_FRAME_RENAMES = {"input": "input_col", "output": "output_col", "ground_truth": "ground_truth_col"}

#: Items, and judge calls across all scorers, in flight by default: what a hosted provider
#: serves at once without strain; a server that sustains fewer is found out by the adaptive
#: limit of the calls to it (a one-slot local server drops to 1).
DEFAULT_CONCURRENCY: Final = 32


@renamed_keywords(**_RUN_RENAMES)
async def arun_evals(
    data: Any,
    scorers: Scorers,
    *,
    target: Target | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    on_item_complete: ItemCallback | None = None,
    progress: bool = True,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    id_col: str | None = None,
    client: Any = None,
    total_concurrency: int | None = None,
    partition_size: int | None = None,
    max_cost: float | None = None,
) -> EvalResult:
    """Score every item of ``data`` with every scorer.

    :func:`run_evals` is its blocking twin (the example uses it); it works in scripts and
    inside a running event loop (a Jupyter cell) alike. With ``client``,
    the items are scored on the workers of a Dask cluster (``pip install
    "evaltoolkit[dask]"``), in partitions of ``partition_size`` items; the result is the same.

    Three limits bound the judge calls in flight; a call waits until every limit that applies
    to it has room:

    ===========================  =======================================  ======================
    limit                        bounds                                   applies
    ===========================  =======================================  ======================
    ``concurrency``              items in flight, and the judge calls of  in this process; on a
                                 all scorers together                     cluster, in each
                                                                          partition being scored
    ``total_concurrency``        judge calls across the whole cluster     with ``client`` only:
                                                                          split evenly over the
                                                                          worker threads, it
                                                                          replaces
                                                                          ``concurrency``
    ``JudgeConfig.concurrency``  the calls of one judge object: one       inside the run's limit;
    (``create_*_scorer(...,      scorer's, or those of every scorer       None (the default):
    concurrency=N)``)            given the same judge                     no limit of its own
    ===========================  =======================================  ======================

    Args:
        data: A list of dicts (``input``, optional ``output``, optional ``ground_truth`` or
            ``groundTruth``, optional ``id``; other fields are kept as columns), a DataFrame,
            or a path to a .jsonl, .json, .csv or .parquet file.
        scorers: A scorer, a list of scorers, or a dict naming each scorer.
        target: Optional callable (sync or async) turning an item's input into the output to
            score; called for every item. Without it, the items' ``output`` is scored.
        concurrency: Items in flight, and judge calls in flight across all scorers (see the
            table above); 32 by default. The calls to a server that sustains fewer (a local
            server answering one request at a time) adapt down to what it serves. On a
            cluster: in each partition being scored, and a worker scores one partition per
            thread, so N single-threaded workers make up to N x ``concurrency`` calls.
        on_item_complete: Called with each :class:`ItemResult` as its item completes (may be
            async); ``item_result.scorer_results[scorer.id]`` is that scorer's result. On a
            cluster it runs here, as each partition comes back.
        progress: Show a progress bar when the run takes more than half a second.
        input_col: The field holding the input.
        output_col: The field holding the output.
        ground_truth_col: The field holding the ground truth (default ``ground_truth`` or
            ``groundTruth``).
        id_col: The field holding the item id (default ``id`` or ``item_id``, else the
            item's position).
        client: A ``dask.distributed`` Client, or a scheduler address such as
            ``"tcp://10.0.0.5:8786"``: score on that cluster. A worker that dies loses
            nothing: its partitions are scored again elsewhere, and every item comes back once.
        total_concurrency: With ``client``: judge calls in flight across the whole cluster, for
            a rate-limited API. It is split evenly over the worker threads present when the
            run starts (at least one call each) and replaces ``concurrency``.
        partition_size: With ``client``: items per task (default: about four tasks per
            worker thread, at most 1,000 items each).
        max_cost: A budget in USD. An item starts only while the cost spent so far plus
            the highest estimate of every item in flight, this one included, stays within
            it; an item that does not fit waits for the items in flight to end, and is not
            started (nor any item after it) only when it does not fit beside none; the items
            not started are kept with a NaN score and ``not_scored`` set to
            "not scored: budget of $2.00 reached" (not failures). The spend passes the
            budget only by what the calls in flight cost beyond their highest estimate
            (retries and repairs). Rerun with a larger budget to resume from the cache.
            With a ``target``, an item is planned once the target has answered. Needs a
            price for every judge model (litellm's price table).

    Returns:
        The run's result: ``.scores``, ``.to_frame()``, ``.to_wide()`` and exports.

    Raises:
        ConfigurationError: Bad scorers, target or concurrency, scorers that cannot be sent
            to the workers, or ``max_cost`` with a judge model whose price is unknown.
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
    check_count("concurrency", concurrency)
    if target is not None and not callable(target):
        raise ConfigurationError(f"target must be callable, got {type(target).__name__}")
    if is_dask_frame(data):
        raise ConfigurationError(
            "run_evals takes a list, a pandas DataFrame or a file; score a Dask DataFrame "
            "with score_frame(ddf, scorers), which returns a Dask DataFrame"
        )
    named = named_scorers(scorers)
    if client is not None and max_cost is not None:
        raise ConfigurationError(
            "max_cost applies to a run in this process; drop client=... to run under a budget"
        )
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
            input_col=input_col,
            output_col=output_col,
            ground_truth_col=ground_truth_col,
            id_col=id_col,
        )
    if total_concurrency is not None or partition_size is not None:
        raise ConfigurationError(
            "total_concurrency and partition_size apply to a run on a Dask cluster; pass "
            "client=... (a dask.distributed Client or a scheduler address) to use them"
        )
    return await run_items(
        data,
        named,
        target=target,
        concurrency=concurrency,
        on_item_complete=on_item_complete,
        progress=progress,
        input_col=input_col,
        output_col=output_col,
        ground_truth_col=ground_truth_col,
        id_col=id_col,
        max_cost=max_cost,
    )


run_evals = renamed_keywords(**_RUN_RENAMES)(blocking(arun_evals))
"""The blocking twin of :func:`arun_evals`: same arguments, same result (its docstring)."""


@overload
async def ascore_frame(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> pd.DataFrame: ...


@overload
async def ascore_frame(
    frame: DaskDataFrame,
    scorers: Scorers,
    *,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> DaskDataFrame: ...


@renamed_keywords(**_FRAME_RENAMES)
async def ascore_frame(
    frame: pd.DataFrame | DaskDataFrame,
    scorers: Scorers,
    *,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> Any:
    """Score the rows of a DataFrame; return a copy with score columns added.

    For each scorer ``s`` the columns ``s.score``, ``s.reason`` and ``s.error`` are added,
    followed by the scorer's details (``s.alignment_score``, ``s.ratio``, ...). A number in
    a text column is scored as its text (``4.0`` in a column with gaps as ``"4"``); when that
    happens a ``notes`` column (``evaltoolkit.notes`` if the frame has one) says so per row.
    :func:`score_frame` is its blocking twin (the example uses it).

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
        input_col: The column holding the input.
        output_col: The column holding the output.
        ground_truth_col: The column holding the ground truth; by default ``ground_truth`` or
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
        ...                      ground_truth_col="answer", progress=False)
        >>> float(scored["textual-difference.score"].iloc[0])
        1.0

        On a cluster, from partitioned Parquet to partitioned Parquet::

            import dask.dataframe as dd
            scored = score_frame(dd.read_parquet("summaries/"), scorers)
            scored.to_parquet("scored/")
    """
    if is_dask_frame(frame):
        from ._distributed import score_dask_frame

        return await asyncio.to_thread(
            score_dask_frame,
            frame,
            named_scorers(scorers),
            input_col=input_col,
            output_col=output_col,
            ground_truth_col=ground_truth_col,
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
    return await ascore_rows(
        frame,
        scorers,
        input_col=input_col,
        output_col=output_col,
        ground_truth_col=ground_truth_col,
        concurrency=concurrency,
        progress=progress,
    )


_score_frame_twin = blocking(ascore_frame)


# score_frame is generated from ascore_frame; these overloads only keep its typing (a pandas
# frame gives a pandas frame, a Dask frame a Dask frame), which blocking() alone would take
# from the first overload.
@overload
def score_frame(
    frame: pd.DataFrame,
    scorers: Scorers,
    *,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> pd.DataFrame: ...


@overload
def score_frame(
    frame: DaskDataFrame,
    scorers: Scorers,
    *,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    total_concurrency: int | None = None,
    meta: pd.DataFrame | None = None,
) -> DaskDataFrame: ...


@renamed_keywords(**_FRAME_RENAMES)
def score_frame(*args: Any, **kwargs: Any) -> Any:
    """The blocking twin of :func:`ascore_frame`: same arguments, same result (its docstring)."""
    return _score_frame_twin(*args, **kwargs)


functools.update_wrapper(score_frame, _score_frame_twin)


@renamed_keywords(**_RUN_RENAMES)
def estimate_cost(
    data: Any,
    scorers: Scorers,
    *,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    id_col: str | None = None,
) -> CostEstimate:
    """Estimate what scoring ``data`` with ``scorers`` will cost, without any request.

    For each scorer and judge step: the calls, the input tokens (the first step's prompts
    rendered exactly with litellm's token counter for the model; a later step, whose prompt
    quotes earlier replies, between the part known now and that plus those replies'
    ``max_tokens``), the output tokens (up to each step's ``max_tokens``) and the cost range
    from litellm's price table. Calls the judge cache already answers are counted apart and
    cost nothing. A model missing from the price table gives "price unknown", never $0.

    The outputs must be in the data: an item without one (a run whose ``target`` writes
    them) cannot be planned, and is counted apart as such.

    Args:
        data: The items, as :func:`~evaltoolkit.run_evals` takes them (with their outputs).
        scorers: A scorer, a list of scorers, or a dict naming each scorer.
        input_col: The field holding the input.
        output_col: The field holding the output.
        ground_truth_col: The field holding the ground truth.
        id_col: The field holding the item id.

    Returns:
        The estimate: ``str(estimate)`` is a table, ``.to_frame()`` one row per step.

    Example:
        >>> import evaltoolkit as et
        >>> estimate = et.estimate_cost(
        ...     [{"input": "The cat sat on the mat.", "output": "A cat sat."}],
        ...     et.create_summarization_scorer(),
        ... )
        >>> estimate.calls, estimate.cost
        (0, (0.0, 0.0))
    """
    items = load_items(
        data,
        input_col=input_col,
        output_col=output_col,
        ground_truth_col=ground_truth_col,
        id_col=id_col,
    )
    return estimate_items(items, named_scorers(scorers))
