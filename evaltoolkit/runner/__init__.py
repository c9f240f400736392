"""The run layer: score data sets item by item, estimate their cost, and scale out on Dask.

:func:`run_evals` and its async twin :func:`arun_evals` score a data set; :func:`score_frame`
scores a DataFrame (pandas in, pandas out; Dask in, Dask out); :func:`estimate_cost` counts the
calls a run would make before it makes them. The item loop, the estimate and budget, and the
Dask partitions live in this package's private modules.
"""

from __future__ import annotations

# cluster_client is not in __all__: it is the CLI's `--scheduler` / `--workers` client.
from ._distributed import cluster_client as cluster_client

# DEFAULT_CONCURRENCY is not in __all__ either: the CLI's default for --concurrency.
from ._evals import DEFAULT_CONCURRENCY as DEFAULT_CONCURRENCY
from ._evals import (
    CostEstimate,
    arun_evals,
    ascore_frame,
    estimate_cost,
    run_evals,
    score_frame,
)

__all__ = [
    "CostEstimate",
    "arun_evals",
    "ascore_frame",
    "estimate_cost",
    "run_evals",
    "score_frame",
]
