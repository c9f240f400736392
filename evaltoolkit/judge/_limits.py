"""One limit on judge calls in flight, shared by every scorer of a run.

The runner opens :func:`shared_call_limit` around a run; every judge call made inside it (by
any scorer, in any task spawned from it) waits for a slot of the same semaphore.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Iterator

__all__ = ["call_slot", "shared_call_limit"]

_run_limit: contextvars.ContextVar[asyncio.Semaphore | None] = contextvars.ContextVar(
    "evaltoolkit_run_call_limit", default=None
)


@contextlib.contextmanager
def shared_call_limit(limit: int) -> Iterator[asyncio.Semaphore]:
    """Limit judge calls in flight to ``limit`` inside this block (run in the event loop)."""
    semaphore = asyncio.Semaphore(limit)
    token = _run_limit.set(semaphore)
    try:
        yield semaphore
    finally:
        _run_limit.reset(token)


@contextlib.asynccontextmanager
async def call_slot() -> AsyncIterator[None]:
    """Hold one slot of the run's shared limit, if a run set one, for one judge call."""
    semaphore = _run_limit.get()
    if semaphore is None:
        yield
        return
    async with semaphore:
        yield
