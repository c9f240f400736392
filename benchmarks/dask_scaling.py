"""Scale-out of the offline judge on Dask: one worker process against two, and the overhead.

    python benchmarks/dask_scaling.py [--items 20000] [--partitions 16] [--benchmarks DIR]

Scores ``--items`` SummEval summaries (``summeval_dev.jsonl``, 800 rows, repeated) with the
summarization scorer on the offline judge, three ways in one run:

1. ``score_frame`` on the pandas frame, in this process (plain, no Dask);
2. ``score_frame`` on a Dask DataFrame of ``--partitions`` partitions (Parquet files read
   into the workers' memory first, untimed), computed on a LocalCluster of one
   single-threaded worker process;
3. the same on two worker processes.

The offline judge runs its steps in one worker thread per process, so a second core only
helps through a second process. Each cluster first scores a few rows untimed (worker start and
imports are not part of the figures); the timed Dask runs include building the graph (the
probe of the first row) and bringing every scored row back here with ``compute()``.

It prints the throughput of each, the two-worker speed-up (target >= 1.6 on two cores) and the
Dask path's overhead per item on one worker against plain (target <= 10%), with the load
average before and after: the wall-clock figures only mean something on an otherwise idle
machine. The CPU seconds per item (every process that worked on a run, the client and
scheduler included) change less with the load, and show the overhead on a busy machine too.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import evaltoolkit as et
from evaltoolkit.meta import find_benchmarks, load_summeval

WARM_UP_ROWS = 64


def _rows(benchmarks: Path, items: int) -> pd.DataFrame:
    summeval = load_summeval(benchmarks / "summeval_dev.jsonl")
    copies = -(-items // len(summeval))
    return pd.concat([summeval] * copies, ignore_index=True).iloc[:items]


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


@dataclass(frozen=True)
class Timing:
    """Wall seconds of a run, and the CPU seconds of every process that worked on it."""

    wall: float
    cpu: float


def _time_plain(rows: pd.DataFrame) -> Timing:
    scorer = et.create_summarization_scorer()
    et.score_frame(rows.iloc[:WARM_UP_ROWS], scorer, progress=False)
    cpu, started = time.process_time(), time.perf_counter()
    scored = et.score_frame(rows, scorer, progress=False)
    timing = Timing(time.perf_counter() - started, time.process_time() - cpu)
    assert scored["summarization.error"].isna().all()
    return timing


def _worker_cpu(client: Any) -> float:
    return float(sum(client.run(time.process_time).values()))


def _time_cluster(rows: pd.DataFrame, workers: int, folder: Path) -> Timing:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    scorer = et.create_summarization_scorer()
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        # Untimed: the workers start, import, and score a few rows once.
        warm_up = dd.from_pandas(rows.iloc[: WARM_UP_ROWS * workers], npartitions=workers)
        et.score_frame(warm_up, scorer).compute()
        # The rows wait in the workers' memory, as plain score_frame's wait in this process.
        frame = dd.read_parquet(folder).persist()
        wait(frame)
        worker_cpu, cpu = _worker_cpu(client), time.process_time()
        started = time.perf_counter()
        scored = et.score_frame(frame, scorer).compute()
        wall = time.perf_counter() - started
        # This process (client and scheduler) counts too.
        cpu = time.process_time() - cpu + _worker_cpu(client) - worker_cpu
    assert len(scored) == len(rows)
    assert scored["summarization.error"].isna().all()
    return Timing(wall, cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20_000, help="summaries to score")
    parser.add_argument("--partitions", type=int, default=16, help="Dask partitions")
    parser.add_argument("--benchmarks", type=Path, default=None, help="../shared/benchmarks")
    args = parser.parse_args()
    benchmarks = args.benchmarks or find_benchmarks()
    if benchmarks is None:
        sys.exit("no benchmarks folder: pass --benchmarks or set EVALTOOLKIT_BENCHMARKS")

    rows = _rows(benchmarks, args.items)
    print(f"{len(rows)} summaries (summeval_dev repeated), summarization scorer, offline judge")
    print(f"before: {_load()}")
    plain = _time_plain(rows)
    with tempfile.TemporaryDirectory() as scratch:
        import dask.dataframe as dd

        folder = Path(scratch) / "summaries"
        dd.from_pandas(rows, npartitions=args.partitions).to_parquet(folder)
        one = _time_cluster(rows, 1, folder)
        two = _time_cluster(rows, 2, folder)
    print(f"after:  {_load()}")

    n = len(rows)
    print()
    print(f"{'run':<42} {'seconds':>8} {'items/s':>8} {'CPU ms/item':>12}")
    for name, timing in (
        ("plain score_frame, this process", plain),
        (f"Dask, 1 worker process, {args.partitions} partitions", one),
        (f"Dask, 2 worker processes, {args.partitions} partitions", two),
    ):
        print(
            f"{name:<42} {timing.wall:>8.1f} {n / timing.wall:>8.1f} {timing.cpu / n * 1000:>12.2f}"
        )
    print()
    print(f"2 workers against 1: {one.wall / two.wall:.2f}x throughput (target >= 1.6)")
    print(
        f"Dask path on 1 worker against plain: {(one.wall - plain.wall) / plain.wall:+.1%} "
        f"({(one.wall - plain.wall) / n * 1000:+.2f} ms per item; target <= +10%); "
        f"in CPU time {(one.cpu - plain.cpu) / plain.cpu:+.1%}"
    )
    print()
    print(
        f"reproduce: python benchmarks/dask_scaling.py --items {args.items} "
        f"--partitions {args.partitions}"
    )


if __name__ == "__main__":
    main()
