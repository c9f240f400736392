"""Scoring on a Dask cluster: ``score_frame`` on a Dask DataFrame and ``run_evals(client=...)``.

Both send the scorers to the workers once per run (pickled with cloudpickle, so scorers built
from lambdas travel too) and score each partition there with the code that scores a pandas
frame in one process (``_item_loop.ascore_rows`` and ``score_items``). A judge
holds no live connection when pickled: each worker process reopens its judges once per run,
with their caches opened as that worker's shard of the shared cache (see
:mod:`evaltoolkit.judge._shards`): no two hosts ever write one sqlite file, a partition
retried after its worker died finds the calls that worker paid for, and a rerun makes no call.

Concurrency: each partition being scored keeps up to ``concurrency`` judge calls in flight,
and a worker scores one partition per thread, so a cluster of N single-threaded workers makes
up to N x ``concurrency`` calls. ``total_concurrency`` caps the whole run instead: it is split
evenly over the worker threads present when the run starts. The table in
:func:`evaltoolkit.run_evals` sets these beside a judge's own ``concurrency``.

Dask is an optional extra (``pip install "evaltoolkit[dask]"``): nothing here is imported by
``import evaltoolkit``, and using it without Dask raises :class:`MissingDependencyError`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
import math
import pickle
import socket
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from .._internal.sync import run_sync
from ..errors import ConfigurationError, EvalToolkitError, MissingDependencyError
from ..judge._internal import cache_shard
from ..records import EvalResult, ItemResult, ScoreResult, StepError
from ..records._internal import new_run_id
from ..records.items import DataItem, load_items
from ..scorers import Scorer
from ._item_loop import (
    ItemCallback,
    Target,
    ascore_rows,
    call_item_callback,
    check_count,
    frame_items,
    progress_bar,
    run_items,
    score_columns,
    score_items,
)

if TYPE_CHECKING:
    import pandas as pd
    from dask.dataframe import DataFrame as DaskDataFrame
    from distributed import Client

__all__ = ["arun_on_cluster", "cluster_client", "score_dask_frame"]

logger = logging.getLogger("evaltoolkit.runner")

INSTALL_HINT: Final = 'pip install "evaltoolkit[dask]"'
# Rows of the first partition scored up front to learn the result's columns, at most.
PROBE_ROWS: Final = 8
PROBE_PARTITIONS: Final = 3
# Default run partitions: about this many tasks per worker thread, within these sizes.
TASKS_PER_THREAD: Final = 4
MAX_PARTITION_SIZE: Final = 1000
# Runs whose unpickled scorers a worker keeps (a run's tasks share one set of judges).
_KEPT_JOBS: Final = 4


def require_dask(feature: str, *, distributed: bool = False) -> None:
    """Import Dask (and dask.distributed), or raise MissingDependencyError saying what to do."""
    try:
        import dask.dataframe  # noqa: F401

        if distributed:
            import distributed as _distributed  # noqa: F401
    except ImportError as error:
        raise MissingDependencyError(
            f"{feature} needs Dask, which is not installed: {INSTALL_HINT}"
        ) from error


# -- the job a worker runs --------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    scorers: dict[str, Scorer]
    target: Target | None = None


def _pack(job: _Job) -> bytes:
    """The job pickled for the workers, naming the scorer that cannot be pickled, if any."""
    import cloudpickle

    for name, scorer in job.scorers.items():
        try:
            cloudpickle.dumps(scorer)
        except Exception as error:
            raise ConfigurationError(
                f"scorer {name!r} cannot be sent to the workers: {type(error).__name__}: "
                f"{error}; a scorer must not hold live clients, event loops or connections"
            ) from error
    try:
        return bytes(cloudpickle.dumps(job))
    except Exception as error:
        raise ConfigurationError(
            f"the target cannot be sent to the workers: {type(error).__name__}: {error}"
        ) from error


_jobs: collections.OrderedDict[tuple[str, str], _Job] = collections.OrderedDict()
_jobs_lock = threading.Lock()


def shard_name(worker: Any) -> str:
    """The cache shard of a dask.distributed worker: its host and its name.

    A worker restarted by its nanny keeps its name, so it reopens its own shard.
    """
    return f"{socket.gethostname()}-{worker.name}"


def _worker_shard() -> str | None:
    """This task's worker's cache shard name, None outside a dask.distributed worker."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return None
    return shard_name(worker)


def _load_job(blob: bytes, run_token: str) -> _Job:
    """The run's scorers, unpickled once per worker process and run."""
    key = (hashlib.sha256(blob).hexdigest(), run_token)
    with _jobs_lock:
        job = _jobs.get(key)
        if job is not None:
            _jobs.move_to_end(key)
            return job
    shard = _worker_shard()
    try:
        with cache_shard(shard) if shard is not None else contextlib.nullcontext():
            job = pickle.loads(blob)
    except Exception as error:
        where = f"worker {shard}" if shard else "this process"
        raise ConfigurationError(
            f"{where} cannot load the scorers: {type(error).__name__}: {error}; install "
            "evaltoolkit, and the modules your scorers and target use, on every worker"
        ) from error
    assert isinstance(job, _Job)
    with _jobs_lock:
        job = _jobs.setdefault(key, job)
        while len(_jobs) > _KEPT_JOBS:
            _jobs.popitem(last=False)
    return job


def _per_task_concurrency(concurrency: int, total: int | None, threads: int) -> int:
    """Judge calls in flight per partition: ``concurrency``, or the total split over threads."""
    check_count("concurrency", concurrency)
    check_count("total_concurrency", total, optional=True)
    if total is None:
        return concurrency
    if total < threads:
        warnings.warn(
            f"total_concurrency={total} is below the {threads} worker threads; each scores "
            f"with one call in flight, so up to {threads} calls run at once",
            RuntimeWarning,
            stacklevel=4,
        )
    return max(1, total // max(threads, 1))


# -- score_frame on a Dask DataFrame ----------------------------------------------------------


def _scheduler_threads() -> int:
    """Worker threads of the scheduler that will compute: the default client's, or local."""
    try:
        from distributed import default_client

        return max(1, int(sum(default_client().nthreads().values())))
    except (ImportError, ValueError):
        import dask
        import dask.system

        return int(dask.config.get("num_workers", None) or dask.system.CPU_COUNT)


def _failed_item(scorers: Mapping[str, Scorer]) -> ItemResult:
    """An item every scorer failed on, with a note: its row gives the result's columns the
    dtypes that hold a failure (NaN in a count, text in the error column), and the notes
    column, which a pandas frame has only when loading changed an item."""
    error = StepError("input", "failed", "EvalToolkitError")
    return ItemResult(
        item_id=None,
        index=0,
        input=None,
        output=None,
        scorer_results={
            name: ScoreResult(scorer=name, score=math.nan, error=error) for name in scorers
        },
        notes=("a note",),
    )


def _schema(
    frame_meta: pd.DataFrame, scorer_ids: Sequence[str], items: Sequence[ItemResult]
) -> pd.DataFrame:
    """The empty result frame: the input's columns, then score_frame's, with their dtypes."""
    import pandas as pd

    result = EvalResult(items=list(items), scorer_ids=list(scorer_ids))
    schema = frame_meta.iloc[:0].copy()
    for name, values in score_columns(result, list(frame_meta.columns)).items():
        # The dtype pandas gives the column in score_frame, where it is assigned as a list.
        schema[name] = pd.Series([], dtype=pd.Series(values).dtype, index=schema.index)
    return schema


def _probe_partition(
    partition: pd.DataFrame,
    blob: bytes,
    run_token: str,
    columns: tuple[str, str, str | None],
    concurrency: int,
) -> tuple[list[ItemResult], list[str]]:
    """Score the first rows, one at a time, until every scorer has succeeded once.

    Returns the rows' results and the scorers that succeeded on none of them.
    """
    job = _load_job(blob, run_token)
    results: list[ItemResult] = []
    missing = list(job.scorers)
    for position in range(min(len(partition), PROBE_ROWS)):
        row = partition.iloc[position : position + 1]
        result = run_sync(_probe_row(row, job.scorers, columns, concurrency))
        results.extend(result.items)
        missing = [name for name in missing if result.items[0].scorer_results[name].failed]
        if not missing:
            break
    return results, missing


async def _probe_row(
    row: pd.DataFrame,
    scorers: Mapping[str, Scorer],
    columns: tuple[str, str, str | None],
    concurrency: int,
) -> EvalResult:
    return await run_items(
        frame_items(row, *columns, by_label=True),
        scorers,
        concurrency=concurrency,
        progress=False,
    )


def _probe_schema(
    frame: DaskDataFrame,
    scorers: Mapping[str, Scorer],
    blob: bytes,
    run_token: str,
    columns: tuple[str, str, str | None],
    concurrency: int,
) -> pd.DataFrame:
    import dask

    probed: list[ItemResult] = []
    missing = list(scorers)
    for number in range(min(frame.npartitions, PROBE_PARTITIONS)):
        task = dask.delayed(_probe_partition, pure=False)(
            frame.get_partition(number), blob, run_token, columns, concurrency
        )
        results, still_missing = task.compute()
        probed.extend(results)
        missing = [name for name in missing if name in still_missing]
        if not missing:
            break
    if missing:
        errors = {
            name: next(
                (str(item.scorer_results[name].error) for item in probed),
                "no rows in the first partitions",
            )
            for name in missing
        }
        warnings.warn(
            "score_frame: the first rows of the Dask DataFrame gave no result without error "
            f"for {', '.join(repr(name) for name in missing)} ("
            + "; ".join(f"{name}: {error}" for name, error in errors.items())
            + "), so those scorers' detail columns are unknown and are left out; pass "
            "meta=... to declare them",
            RuntimeWarning,
            stacklevel=4,
        )
    return _schema(frame._meta, list(scorers), [*probed, _failed_item(scorers)])


_dropped_columns: set[str] = set()


def _conform(scored: pd.DataFrame, schema: pd.DataFrame) -> pd.DataFrame:
    """``scored`` with exactly the schema's columns, in its order and with its dtypes."""
    from pandas.api.types import is_object_dtype

    extra = [column for column in scored.columns if column not in schema.columns]
    fresh = sorted(set(extra) - _dropped_columns)
    if fresh:
        _dropped_columns.update(fresh)
        logger.warning(
            "score_frame: columns %s are not in the result's meta and are left out; pass "
            "meta=... to declare them",
            fresh,
        )
    conformed = scored.reindex(columns=schema.columns)
    for column, dtype in schema.dtypes.items():
        if column not in scored.columns and is_object_dtype(dtype):
            conformed[column] = None
        if conformed[column].dtype == dtype:
            continue
        try:
            conformed[column] = conformed[column].astype(dtype)
        except (TypeError, ValueError) as error:
            logger.warning(
                "score_frame: column %r does not fit its meta dtype %s (%s); pass meta=... "
                "with a dtype that holds every value",
                column,
                dtype,
                error,
            )
    return conformed


def _score_partition(
    partition: pd.DataFrame,
    blob: bytes,
    run_token: str,
    columns: tuple[str, str, str | None],
    concurrency: int,
    schema: pd.DataFrame,
) -> pd.DataFrame:
    """Score one partition on a worker, as score_frame scores a pandas frame."""
    job = _load_job(blob, run_token)
    input_col, output_col, ground_truth_col = columns
    scored = run_sync(
        ascore_rows(
            partition,
            job.scorers,
            input_col=input_col,
            output_col=output_col,
            ground_truth_col=ground_truth_col,
            concurrency=concurrency,
            progress=False,
            by_label=True,
        )
    )
    return _conform(scored, schema)


def score_dask_frame(
    frame: DaskDataFrame,
    scorers: Mapping[str, Scorer],
    *,
    input_col: str,
    output_col: str,
    ground_truth_col: str | None,
    concurrency: int,
    total_concurrency: int | None,
    meta: pd.DataFrame | None,
) -> DaskDataFrame:
    """``score_frame`` for a Dask DataFrame: a lazy Dask DataFrame (see its docstring)."""
    require_dask("score_frame on a Dask DataFrame")
    import pandas as pd

    for column in (input_col, output_col, ground_truth_col):
        if column is not None and column not in frame.columns:
            raise ConfigurationError(
                f"score_frame: no column {column!r}; the frame has {list(frame.columns)}"
            )
    if meta is not None and not isinstance(meta, pd.DataFrame):
        raise ConfigurationError(
            f"score_frame: meta must be an empty pandas DataFrame, got {type(meta).__name__}"
        )
    per_task = _per_task_concurrency(concurrency, total_concurrency, _scheduler_threads())
    blob = _pack(_Job(dict(scorers)))
    run_token = uuid.uuid4().hex
    columns = (input_col, output_col, ground_truth_col)
    schema = (
        meta.iloc[:0]
        if meta is not None
        else _probe_schema(frame, scorers, blob, run_token, columns, per_task)
    )
    scored: DaskDataFrame = frame.map_partitions(
        _score_partition,
        blob,
        run_token,
        columns,
        per_task,
        schema,
        meta=schema,
        token="evaltoolkit-score",
    )
    return scored


# -- run_evals on a cluster -------------------------------------------------------------------

# Seconds to learn whether a scheduler's port is open before handing the address to Dask.
_PROBE_S: Final = 5.0


def _unreachable(address: str) -> str | None:
    """Why a TCP scheduler address refuses connections, found at once; None when it may
    answer (Dask's own connection attempts wait 30 s before they give up on a closed port)."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return None
    host, _, port = rest.split("/", 1)[0].rpartition(":")
    if not port.isdigit():
        return None
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), _PROBE_S):
            return None
    except TimeoutError:  # slow, perhaps far away: let Dask try for its own time
        return None
    except OSError as error:
        return error.strerror or type(error).__name__


def _as_client(client: Any) -> Client:
    from distributed import Client

    if isinstance(client, Client):
        return client
    if isinstance(client, str):
        how = "start one with `dask scheduler`, or check the address"
        refused = _unreachable(client)
        if refused is not None:
            raise EvalToolkitError(
                f"cannot reach the Dask scheduler at {client!r}: {refused}; {how}"
            )
        try:
            return Client(client, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise EvalToolkitError(
                f"cannot reach the Dask scheduler at {client!r}: {error}; {how}"
            ) from error
    raise ConfigurationError(
        f"client must be a dask.distributed Client or a scheduler address, got "
        f"{type(client).__name__}"
    )


def _score_chunk(
    blob: bytes, run_token: str, items: list[DataItem], run_id: str, concurrency: int
) -> list[ItemResult]:
    """Score one partition of a run on a worker."""
    job = _load_job(blob, run_token)
    return run_sync(score_items(items, job.scorers, job.target, run_id, concurrency))


def _worker_lost(
    item: DataItem, scorers: Sequence[str], run_id: str, error: Exception
) -> ItemResult:
    failure = StepError(
        "worker",
        f"item {item.item_id!r}: every worker that scored its partition died ({error}); "
        "look in the workers' logs for a crash or for running out of memory",
        type(error).__name__,
    )
    return ItemResult(
        item_id=item.item_id,
        index=item.index,
        input=item.input,
        output=item.output,
        ground_truth=item.ground_truth,
        fields=item.fields,
        scorer_results={
            name: ScoreResult(scorer=name, score=math.nan, error=failure, run_id=run_id)
            for name in scorers
        },
    )


class _ClusterRun:
    """One run_evals on a cluster: its tasks, and the results gathered as they complete."""

    def __init__(
        self,
        client: Client,
        items: list[DataItem],
        job: _Job,
        *,
        concurrency: int,
        partition_size: int,
        progress: bool,
    ) -> None:
        self.client = client
        self.items = items
        self.scorer_ids = list(job.scorers)
        self.run_id = new_run_id()
        self.progress = progress
        blob = _pack(job)
        run_token = uuid.uuid4().hex
        self.chunks = [
            items[start : start + partition_size] for start in range(0, len(items), partition_size)
        ]
        self.futures = [
            client.submit(
                _score_chunk,
                blob,
                run_token,
                chunk,
                self.run_id,
                concurrency,
                key=f"evaltoolkit-score-{run_token}-{number}",
                pure=False,
            )
            for number, chunk in enumerate(self.chunks)
        ]

    def cancel(self) -> None:
        with contextlib.suppress(Exception):
            self.client.cancel(self.futures)

    def collect(self, notify: Callable[[list[ItemResult]], None]) -> list[ItemResult]:
        """Wait for every partition; each item's result lands once, in data order."""
        from distributed import KilledWorker, as_completed

        pairs = zip(self.futures, self.chunks, strict=True)
        chunk_of = {future.key: chunk for future, chunk in pairs}
        results: list[ItemResult | None] = [None] * len(self.items)
        bar = progress_bar(len(self.items), self.progress)
        try:
            for future in as_completed(self.futures):
                chunk = chunk_of[future.key]
                try:
                    chunk_results: list[ItemResult] = future.result()
                except KilledWorker as error:
                    chunk_results = [
                        _worker_lost(item, self.scorer_ids, self.run_id, error) for item in chunk
                    ]
                except EvalToolkitError:
                    raise
                except Exception as error:
                    raise EvalToolkitError(
                        f"a task of the run failed on the cluster: {type(error).__name__}: {error}"
                    ) from error
                future.release()
                for item_result in chunk_results:
                    assert results[item_result.index] is None, "an item came back twice"
                    results[item_result.index] = item_result
                if bar is not None:
                    bar.update(len(chunk_results))
                notify(chunk_results)
        except BaseException:
            self.cancel()
            raise
        finally:
            if bar is not None:
                bar.close()
        finished = [result for result in results if result is not None]
        assert len(finished) == len(self.items), "every item must have a result"
        return finished


def _cluster_threads(client: Client) -> int:
    return int(sum(client.nthreads().values()))


def _partition_size(items: int, threads: int, requested: int | None) -> int:
    check_count("partition_size", requested, optional=True)
    if requested is not None:
        return requested
    return max(1, min(MAX_PARTITION_SIZE, math.ceil(items / (max(threads, 1) * TASKS_PER_THREAD))))


async def arun_on_cluster(
    data: Any,
    scorers: Mapping[str, Scorer],
    *,
    client: Any,
    target: Target | None,
    concurrency: int,
    total_concurrency: int | None,
    partition_size: int | None,
    on_item_complete: ItemCallback | None,
    progress: bool,
    input_col: str,
    output_col: str,
    ground_truth_col: str | None,
    id_col: str | None,
) -> EvalResult:
    """``arun_evals`` on a Dask cluster (see :func:`evaltoolkit.run_evals`, ``client=``)."""
    require_dask("run_evals(client=...)", distributed=True)
    started = time.perf_counter()
    items = load_items(
        data,
        input_col=input_col,
        output_col=output_col,
        ground_truth_col=ground_truth_col,
        id_col=id_col,
    )
    _per_task_concurrency(concurrency, total_concurrency, 1)  # bad values fail before connecting
    check_count("partition_size", partition_size, optional=True)
    loop = asyncio.get_running_loop()

    async def notify_all(chunk: list[ItemResult]) -> None:
        if on_item_complete is not None:
            for item_result in chunk:
                await call_item_callback(on_item_complete, item_result)

    def notify(chunk: list[ItemResult]) -> None:
        if on_item_complete is not None:
            asyncio.run_coroutine_threadsafe(notify_all(chunk), loop).result()

    cluster = await asyncio.to_thread(_as_client, client)
    try:
        threads = await asyncio.to_thread(_cluster_threads, cluster)
        # Off the event loop: pickling the job and handing out the partitions take time.
        run = await asyncio.to_thread(
            _ClusterRun,
            cluster,
            items,
            _Job(dict(scorers), target),
            concurrency=_per_task_concurrency(concurrency, total_concurrency, threads),
            partition_size=_partition_size(len(items), threads, partition_size),
            progress=progress,
        )
        try:
            finished = await asyncio.to_thread(run.collect, notify)
        except asyncio.CancelledError:
            run.cancel()
            raise
    finally:
        if cluster is not client:  # a client made here from an address
            await asyncio.to_thread(cluster.close)
    return EvalResult(
        items=finished,
        scorer_ids=run.scorer_ids,
        run_id=run.run_id,
        elapsed_s=time.perf_counter() - started,
    )


# -- the command line -------------------------------------------------------------------------


@contextlib.contextmanager
def cluster_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A client for ``--scheduler ADDRESS`` or a local cluster of ``--workers N``; else None.

    A local cluster runs one single-threaded worker process per core asked for: the offline
    judge is CPU-bound, and Python threads would share one core.
    """
    if scheduler is None and workers is None:
        yield None
        return
    require_dask("--scheduler and --workers", distributed=True)
    from distributed import Client, LocalCluster

    if scheduler is not None:
        client = _as_client(scheduler)
        with client:
            yield client
        return
    check_count("--workers", workers)
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client
