"""A judge's own limit on calls in flight, kept per event loop.

A judge created with its own ``concurrency`` holds a slot of :func:`judge_slots` for each
call, beside a slot of the run's shared limit (:mod:`._run_scope`). The semaphore is kept per
event loop: a semaphore belongs to one loop, and the sync API runs each run on a fresh one.
"""

from __future__ import annotations

import asyncio
import threading
import weakref

__all__ = ["judge_slots"]

_judge_limits: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakKeyDictionary[object, asyncio.Semaphore]
] = weakref.WeakKeyDictionary()
_judge_limits_lock = threading.Lock()


def judge_slots(owner: object, limit: int) -> asyncio.Semaphore:
    """The semaphore limiting ``owner``'s calls on the running loop to ``limit`` at once."""
    loop = asyncio.get_running_loop()
    with _judge_limits_lock:
        per_owner = _judge_limits.setdefault(loop, weakref.WeakKeyDictionary())
        semaphore = per_owner.get(owner)
        if semaphore is None:
            semaphore = per_owner[owner] = asyncio.Semaphore(limit)
    return semaphore
