"""Limits on judge calls in flight: the run's, shared by every scorer, and a judge's own.

The runner opens :func:`shared_call_limit` around a run; every judge call made inside it (by
any scorer, in any task spawned from it) waits for a slot of the same semaphore. A judge
created with its own ``concurrency`` also holds a slot of :func:`judge_slots`, kept per event
loop (a semaphore belongs to one loop, and the sync API runs each run on a fresh one).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import weakref
from collections.abc import AsyncIterator, Iterator

__all__ = ["call_slot", "judge_slots", "run_call_limit", "shared_call_limit"]

_judge_limits: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakKeyDictionary[object, asyncio.Semaphore]
] = weakref.WeakKeyDictionary()
_judge_limits_lock = threading.Lock()

_run_limit: contextvars.ContextVar[asyncio.Semaphore | None] = contextvars.ContextVar(
    "evaltoolkit_run_call_limit", default=None
)
_run_limit_size: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "evaltoolkit_run_call_limit_size", default=None
)


@contextlib.contextmanager
def shared_call_limit(limit: int) -> Iterator[asyncio.Semaphore]:
    """Limit judge calls in flight to ``limit`` inside this block (run in the event loop)."""
    semaphore = asyncio.Semaphore(limit)
    token = _run_limit.set(semaphore)
    size_token = _run_limit_size.set(limit)
    try:
        yield semaphore
    finally:
        _run_limit_size.reset(size_token)
        _run_limit.reset(token)


def run_call_limit() -> int | None:
    """The judge calls in flight the current run allows, None outside a run."""
    return _run_limit_size.get()


@contextlib.asynccontextmanager
async def call_slot() -> AsyncIterator[None]:
    """Hold one slot of the run's shared limit, if a run set one, for one judge call."""
    semaphore = _run_limit.get()
    if semaphore is None:
        yield
        return
    async with semaphore:
        yield


def judge_slots(owner: object, limit: int) -> asyncio.Semaphore:
    """The semaphore limiting ``owner``'s calls on the running loop to ``limit`` at once."""
    loop = asyncio.get_running_loop()
    with _judge_limits_lock:
        per_owner = _judge_limits.setdefault(loop, weakref.WeakKeyDictionary())
        semaphore = per_owner.get(owner)
        if semaphore is None:
            semaphore = per_owner[owner] = asyncio.Semaphore(limit)
    return semaphore
