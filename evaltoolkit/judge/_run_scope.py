"""What a run tells its judges beside their options: the run scope, in one place.

A judge's own options (model, cache, concurrency, retries, ...) are its
:class:`~evaltoolkit.judge.JudgeConfig`, given where the judge is created. A run adds three
things that hold for every judge call made inside it, by any scorer, in any task spawned
from it:

- ``call_limit``: the run's limit on judge calls in flight (``run_evals(concurrency=...)``),
  one semaphore every call of the run holds a slot of. The runner sets it
  (:func:`shared_call_limit`); the judge services take a slot (:func:`call_slot`) and size
  their adaptive limit under it (:func:`run_call_limit`).
- ``repeat``: the repeat being scored when a run is scored several times
  (``repeatability(...)``); it enters the cache key and the sampling seed
  (:func:`scoring_repeat`, read by the judged scorer through :func:`current_repeat`).
- ``cache_opener``: how a judge cache opens; on a Dask worker scoring a partition, it opens
  that worker's shard (set by :func:`~evaltoolkit.judge._shards.cache_shard`, read by
  :func:`~evaltoolkit.judge._cache.open_cache`).

They travel together in one context variable, not as arguments, because between the runner
and the judge stand scorers, custom ones among them, whose one method is ``score(item)``,
and judges whose one method is ``complete(request)``: passing the scope through them would
put the run's plumbing into every custom scorer and backend. Each field is set in one place
and read in one place, all named above; a context variable follows the task (and the tasks
it spawns) on its event loop, so two runs at once never see each other's scope.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import ConfigurationError

__all__ = [
    "CacheOpener",
    "RunScope",
    "call_slot",
    "current_repeat",
    "run_call_limit",
    "run_scope",
    "scoped",
    "scoring_repeat",
    "shared_call_limit",
]


class CacheOpener(Protocol):
    """Opens the judge cache at ``location`` (:func:`~evaltoolkit.judge._cache.open_cache`'s
    arguments), returning a ``JudgeCache``."""

    def __call__(self, location: str | Path | None, max_bytes: Any) -> Any: ...


@dataclass(frozen=True)
class RunScope:
    """The run's call limit, the repeat being scored and how judge caches open."""

    call_limit: asyncio.Semaphore | None = None
    call_limit_size: int | None = None
    repeat: int = 0
    cache_opener: CacheOpener | None = None


_OUTSIDE_A_RUN = RunScope()
_SCOPE: contextvars.ContextVar[RunScope] = contextvars.ContextVar(
    "evaltoolkit_run_scope", default=_OUTSIDE_A_RUN
)


def run_scope() -> RunScope:
    """The scope of the run this task belongs to (all defaults outside a run).

    Example:
        >>> run_scope().repeat, run_scope().call_limit_size
        (0, None)
    """
    return _SCOPE.get()


@contextlib.contextmanager
def scoped(**changes: Any) -> Iterator[RunScope]:
    """Inside this block, the run scope with ``changes`` (its other fields kept).

    Example:
        >>> with scoped(repeat=2) as scope:
        ...     scope.repeat, run_scope().repeat
        (2, 2)
        >>> run_scope().repeat
        0
    """
    scope = dataclasses.replace(_SCOPE.get(), **changes)
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


@contextlib.contextmanager
def shared_call_limit(limit: int) -> Iterator[asyncio.Semaphore]:
    """Limit judge calls in flight to ``limit`` inside this block (run in the event loop)."""
    semaphore = asyncio.Semaphore(limit)
    with scoped(call_limit=semaphore, call_limit_size=limit):
        yield semaphore


def run_call_limit() -> int | None:
    """The judge calls in flight the current run allows, None outside a run."""
    return _SCOPE.get().call_limit_size


@contextlib.asynccontextmanager
async def call_slot() -> AsyncIterator[None]:
    """Hold one slot of the run's shared limit, if a run set one, for one judge call."""
    semaphore = _SCOPE.get().call_limit
    if semaphore is None:
        yield
        return
    async with semaphore:
        yield


def current_repeat() -> int:
    """The repeat being scored in this task: 0 outside :func:`scoring_repeat`.

    Example:
        >>> current_repeat()
        0
    """
    return _SCOPE.get().repeat


@contextlib.contextmanager
def scoring_repeat(index: int) -> Iterator[None]:
    """Score repeat ``index`` inside this block (judge requests made here carry it).

    A repeat other than 0 is cached under its own key (repeat 3 stays repeat 3, and a rerun
    costs nothing) and, where a sampling seed is set, sends ``seed + repeat`` so that
    providers honouring seeds draw a distinct sample.

    Example:
        >>> with scoring_repeat(3):
        ...     current_repeat()
        3
    """
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ConfigurationError(f"a repeat index is a non-negative integer, got {index!r}")
    with scoped(repeat=index):
        yield
