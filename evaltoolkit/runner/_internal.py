"""The run layer's helpers for the other layers: not public, and free to change.

``cluster_client`` is the command line's ``--scheduler`` / ``--workers`` Dask client, and
``DEFAULT_CONCURRENCY`` its default for ``--concurrency``. Any
module of evaltoolkit may import ``evaltoolkit.runner._internal`` (the layering test allows
it); users import from :mod:`evaltoolkit.runner` or :mod:`evaltoolkit`.
"""

from __future__ import annotations

from ._distributed import cluster_client
from ._evals import DEFAULT_CONCURRENCY

__all__ = ["DEFAULT_CONCURRENCY", "cluster_client"]
