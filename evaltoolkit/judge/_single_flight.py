"""Identical judge calls in flight at the same moment share one request (single-flight).

A run often asks the same question several times at once: when many systems' outputs for
one input are scored together, a step whose prompt does not depend on the output is the
same call for each of them. The cache cannot help while the first call is still in
flight, so each would be sent and paid for. :class:`SingleFlight` runs the work of the first
caller of a key in a task of its own; callers with the same key that arrive while it runs
wait for its result, or its error, instead of repeating it. The entry goes when the work is
done, so a later call is answered by the cache (or, with the cache off, asks again).

The work runs in a task of its own so that one waiter giving up (a cancelled item) does not
cancel it for the others; it is cancelled when every waiter has given up.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["SingleFlight"]

T = TypeVar("T")


@dataclass(slots=True)
class _Flight(Generic[T]):
    task: asyncio.Task[T]
    waiters: int = 0


class SingleFlight(Generic[T]):
    """Share the work of calls with the same key that are in flight at the same moment.

    Flights are kept per event loop (a task belongs to one loop).

    Args:
        share_error: Makes the error a waiting caller gets from the error the work raised;
            by default every caller gets the same exception.

    Example:
        >>> import asyncio
        >>> flights: SingleFlight[int] = SingleFlight()
        >>> made = []
        >>> async def work():
        ...     made.append(1)
        ...     await asyncio.sleep(0.01)
        ...     return 42
        >>> async def main():
        ...     return await asyncio.gather(*(flights.run("k", work) for _ in range(3)))
        >>> asyncio.run(main()), len(made)
        ([(42, False), (42, True), (42, True)], 1)
    """

    def __init__(self, share_error: Callable[[Exception], Exception] | None = None) -> None:
        self._share_error = share_error
        self._flights: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, _Flight[T]]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def _on_loop(self, loop: asyncio.AbstractEventLoop) -> dict[str, _Flight[T]]:
        with self._lock:
            return self._flights.setdefault(loop, {})

    async def run(self, key: str, work: Callable[[], Awaitable[T]]) -> tuple[T, bool]:
        """The result of ``work()``, shared with every caller of ``key`` while it runs.

        Returns:
            The result, and whether it was shared (True for every caller but the one whose
            ``work`` ran).

        Raises:
            Exception: What ``work`` raised, to every caller that waited for it (through
                ``share_error`` for all but the caller whose ``work`` ran).
        """
        loop = asyncio.get_running_loop()
        flights = self._on_loop(loop)
        flight = flights.get(key)
        shared = flight is not None
        if flight is None:
            flight = _Flight(loop.create_task(_awaited(work)))
            flights[key] = flight
            flight.task.add_done_callback(lambda task: _forget(flights, key, task))
        flight.waiters += 1
        try:
            return await asyncio.shield(flight.task), shared
        except asyncio.CancelledError:
            if flight.waiters == 1 and not flight.task.done():
                flight.task.cancel()  # nobody is left to wait for it
            raise
        except Exception as error:
            if shared and self._share_error is not None:
                shared_error = self._share_error(error)
                if shared_error is not error:
                    raise shared_error from error
            raise
        finally:
            flight.waiters -= 1


async def _awaited(work: Callable[[], Awaitable[T]]) -> T:
    return await work()


def _forget(flights: dict[str, _Flight[T]], key: str, task: asyncio.Task[T]) -> None:
    flight = flights.get(key)
    if flight is not None and flight.task is task:
        del flights[key]
