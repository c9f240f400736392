"""Calls in flight adapted to what a server sustains: additive increase, multiplicative decrease.

A self-hosted server may answer one request at a time and queue the rest; at the run's
concurrency the queued requests time out while they wait, and a retry at the same concurrency
only lengthens the queue (the server keeps generating for requests the client abandoned). So
every call to a (model, api_base) holds a slot of that server's :class:`AdaptiveLimit`.

A failed call lowers the limit only when it is a sign of *overload*, not of a scattered fault.
A provider that fails one call in five whatever the load (a 429, a 503, a dropped connection,
a hung request) still answers the others at once, and halving the calls in flight on each of
its errors would cut a 100-wide run to one call at a time. A rate limit, timeout or dropped
connection counts as overload when

- failures dominate the calls that ended last (three in four of the last 16, and at least
  six): a server refusing what it cannot serve fails most calls sent beyond its slots, while
  scattered faults at 20% reach that share by chance about once in a thousand runs (12 of
  16 about once in 100,000 windows); once the limit is lowered (the server showed it has
  fewer slots than the calls sent), one in three (at least three) is enough; or
- it is a timeout while the server's successful replies come close to the timeout (their
  median took more than half as long as the timed-out call): the requests wait their turn,
  and the later ones run past it, where a hung request among quick replies is a scattered
  fault.

Then:

- the limit halves (down to 1), from the calls that were in flight when it failed;
- a ``Retry-After`` the failure carries pauses every call to that server for that long (a
  scattered fault's ``Retry-After`` is honoured by its own retry only);
- a call that succeeds while the limit is in use raises it by ``1 / limit`` (one more call in
  flight per round of successes), until it reaches the run's (or judge's) concurrency, where
  the server is no longer the constraint;
- a retry takes a slot like any call, so it waits for the lowered limit.

A server that announces how many requests it decodes at once (llama.cpp's ``GET /props``:
``total_slots``) is never sent more (:meth:`AdaptiveLimit.announce_slots`): the rest would
queue on the server, where the later ones run past their timeout. The limit still adapts below.

The first time a call admitted under a lowered limit succeeds, one warning says what the
server sustains. The limits are kept per process, so a later run starts from what was learned.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import threading
import time
import warnings
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Final

from ._retry import FailureKind, classify_failure, retry_after_seconds

__all__ = ["AdaptiveLimit", "Slot", "adaptive_limit", "adaptive_slot", "overloaded"]

_OVERLOAD_STATUSES: Final = frozenset({429, 503})
_OVERLOAD_LABELS: Final = frozenset({"timeout", "connection error"})
# Weight of the latest success in the running estimate of one request's service time.
_SERVICE_WEIGHT: Final = 0.3
_MAX_BACKLOG_S: Final = 120.0
# Overload by refusals: three in four of the calls that ended last failed (at least six).
_RECENT_OUTCOMES: Final = 16
_DOMINANT_SHARE: Final = 0.75
_DOMINANT_MINIMUM: Final = 6
# Under a lowered limit: one in three of the calls that ended last (at least three).
_LOWERED_SHARE: Final = 1 / 3
_LOWERED_MINIMUM: Final = 3
# Overload by queueing: the recent successes' median latency against the timed-out call's.
_RECENT_SUCCESSES: Final = 8
_NEAR_TIMEOUT_SHARE: Final = 0.5


def overloaded(error: BaseException) -> bool:
    """Whether a failed call is of a kind that overload causes (it may also be a scattered fault).

    Example:
        >>> overloaded(TimeoutError()), overloaded(ValueError("bad request"))
        (True, False)
    """
    return _overload_kind(classify_failure(error))


def _overload_kind(failure: FailureKind) -> bool:
    if failure.fatal:
        return False
    return failure.status in _OVERLOAD_STATUSES or failure.label in _OVERLOAD_LABELS


@dataclass(eq=False, slots=True)
class Slot:
    """One call's claim on a server's slot, granted when admitted.

    Attributes:
        crowded: Set when the call failed for overload while more calls were in flight than
            the limit its failure left: it shared the server with calls it could not serve,
            so its failure says little of the call itself.
        overload: Set when the call failed and the failure was judged overload (the limit
            was cut); a failure left unset is a scattered fault.
    """

    future: asyncio.Future[None] | None = None
    granted: bool = False
    cuts: int = 0
    started: float = 0.0
    crowded: bool = False
    overload: bool = False


@dataclass(eq=False)
class AdaptiveLimit:
    """The calls in flight one server sustains, learned from how its calls end.

    Args:
        where: The server, as the warning names it (its ``api_base``, else the model).

    Example:
        >>> limit = AdaptiveLimit("http://127.0.0.1:8011/v1")
        >>> limit.limit is None  # nothing learned: the run's concurrency applies
        True
    """

    where: str
    _limit: float | None = None
    _ceiling: int | None = None
    _in_flight: int = 0
    _cuts: int = 0
    _lowered_from: int | None = None
    _said: bool = False
    _reached: bool = False
    _service_s: float | None = None
    _paused_until: float = 0.0
    _timer_set: bool = False
    _announced: int | None = None
    # True for a call that failed for overload's kind of reason, False for one served.
    _outcomes: deque[bool] = field(default_factory=lambda: deque(maxlen=_RECENT_OUTCOMES))
    _recent_latencies: deque[float] = field(default_factory=lambda: deque(maxlen=_RECENT_SUCCESSES))
    _waiters: deque[Slot] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def limit(self) -> int | None:
        """Calls allowed in flight now; None when no failure has lowered it (or it recovered)."""
        with self._lock:
            return None if self._limit is None else int(self._limit)

    @property
    def in_flight(self) -> int:
        """Calls holding a slot now."""
        with self._lock:
            return self._in_flight

    def announce_slots(self, slots: int) -> None:
        """The server decodes ``slots`` requests at once: never send it more than that.

        Example:
            >>> limit = AdaptiveLimit("http://127.0.0.1:8080/v1")
            >>> limit.announce_slots(4)
            >>> limit.slots
            4
        """
        with self._lock:
            self._announced = max(1, slots)
            self._admit_waiters()

    @property
    def slots(self) -> int | None:
        """The requests the server said it decodes at once; None when it said nothing."""
        with self._lock:
            return self._announced

    def _has_room(self) -> bool:
        if time.monotonic() < self._paused_until:
            return False
        if self._announced is not None and self._in_flight >= self._announced:
            return False
        return self._limit is None or self._in_flight < int(self._limit)

    async def acquire(self, ceiling: int | None) -> Slot:
        """Wait for a slot; ``ceiling`` is the concurrency the run or judge allows at most."""
        with self._lock:
            if ceiling is not None:
                self._ceiling = ceiling
            if not self._waiters and self._has_room():
                slot = Slot(granted=True)
                self._take_slot(slot)
                return slot
            ticket = Slot(future=asyncio.get_running_loop().create_future())
            self._waiters.append(ticket)
            self._admit_waiters()  # sets the timer that ends a pause
        assert ticket.future is not None
        try:
            await ticket.future
        except BaseException:
            with self._lock:
                if ticket.granted:
                    self._in_flight -= 1
                    self._admit_waiters()
                else:
                    self._waiters.remove(ticket)
            raise
        return ticket

    def _take_slot(self, slot: Slot) -> None:
        slot.cuts = self._cuts
        slot.started = time.monotonic()
        self._in_flight += 1
        if self._limit is not None and self._in_flight >= int(self._limit):
            self._reached = True

    def release(self, ticket: Slot, error: BaseException | None) -> None:
        """Give the slot back; ``error`` is how the call failed, None when it succeeded."""
        message = None
        with self._lock:
            in_flight = self._in_flight
            self._in_flight -= 1
            if error is None:
                self._outcomes.append(False)
                message = self._succeeded(ticket, in_flight)
            elif error is not _CANCELLED:
                failure = classify_failure(error)
                kind_of_overload = _overload_kind(failure)
                self._outcomes.append(kind_of_overload)
                if kind_of_overload and self._overloaded(failure, ticket):
                    self._cut(in_flight)
                    ticket.overload = True
                    ticket.crowded = in_flight > int(self._limit or 1)
                    retry_after_s = retry_after_seconds(error)
                    if retry_after_s is not None:
                        self._pause_for(retry_after_s)
                    elif failure.label == "timeout":
                        self._pause_for_abandoned_work()
            self._admit_waiters()
        if message is not None:
            warnings.warn(message, RuntimeWarning, stacklevel=2)

    def _overloaded(self, failure: FailureKind, ticket: Slot) -> bool:
        """Whether a failure of overload's kind is overload here, not a scattered fault.

        Once the server showed that it has fewer slots than the calls sent to it, a smaller
        share of failures counts, until the limit is back at the run's concurrency.
        """
        failures = sum(self._outcomes)
        share, minimum = (
            (_DOMINANT_SHARE, _DOMINANT_MINIMUM)
            if self._limit is None
            else (_LOWERED_SHARE, _LOWERED_MINIMUM)
        )
        if failures >= minimum and failures >= share * len(self._outcomes):
            return True
        return failure.label == "timeout" and self._near_timeout(time.monotonic() - ticket.started)

    def _near_timeout(self, timed_out_after_s: float) -> bool:
        """Whether the recent successes took more than half the time a timed-out call was
        given: the requests wait their turn, and the later ones run past the timeout. A hung
        request among quick replies is a scattered fault."""
        if len(self._recent_latencies) < _RECENT_SUCCESSES // 2:
            return False
        typical_s = statistics.median(self._recent_latencies)
        return typical_s > _NEAR_TIMEOUT_SHARE * timed_out_after_s

    def _succeeded(self, ticket: Slot, in_flight: int) -> str | None:
        latency_s = time.monotonic() - ticket.started
        self._recent_latencies.append(latency_s)
        # A request that waited behind others took their service times too.
        service_s = latency_s / max(1, in_flight)
        previous = self._service_s
        self._service_s = (
            service_s if previous is None else previous + _SERVICE_WEIGHT * (service_s - previous)
        )
        if self._limit is None:
            return None
        if ticket.cuts != self._cuts or not self._reached:
            return None  # admitted before the last cut, or the limit was not in use
        message = None
        if not self._said and int(self._limit) < (self._lowered_from or 0):
            self._said = True
            message = self._lowered_message(int(self._limit))
        before = int(self._limit)
        self._limit += 1.0 / self._limit
        if self._ceiling is not None and self._limit >= self._ceiling:
            self._limit = None
        elif int(self._limit) > before:
            self._reached = False  # one more in flight: raise again once that is in use
        return message

    def _cut(self, in_flight: int) -> None:
        current = in_flight if self._limit is None else min(int(self._limit), in_flight)
        if self._lowered_from is None:
            self._lowered_from = current
        self._limit = float(max(1, current // 2))
        self._cuts += 1
        self._reached = False

    def _pause_for(self, seconds: float) -> None:
        """The server asked for ``seconds`` before the next request (``Retry-After``)."""
        now = time.monotonic()
        self._paused_until = max(self._paused_until, now + min(seconds, _MAX_BACKLOG_S))

    def _pause_for_abandoned_work(self) -> None:
        """The server keeps generating for a request the client abandoned: admit nothing new
        until it has had time for it (one service time, shared among its slots)."""
        if self._service_s is None or self._limit is None:
            return
        now = time.monotonic()
        start = max(now, self._paused_until)
        self._paused_until = min(now + _MAX_BACKLOG_S, start + self._service_s / self._limit)

    def _lowered_message(self, limit: int) -> str:
        before = f" (from {self._lowered_from})" if self._lowered_from else ""
        if limit == 1:
            sustains = "answers one request at a time"
        else:
            sustains = f"answers about {limit} requests at a time"
        return (
            f"the server at {self.where} {sustains}: lowered concurrency to {limit}{before}; "
            "it rises again while requests succeed"
        )

    def _admit_waiters(self) -> None:
        while self._waiters and self._has_room():
            ticket = self._waiters.popleft()
            assert ticket.future is not None
            if ticket.future.done():  # cancelled while waiting
                continue
            try:
                ticket.future.get_loop().call_soon_threadsafe(_grant, ticket.future)
            except RuntimeError:  # its event loop is closed: nobody waits for it any more
                continue
            ticket.granted = True
            self._take_slot(ticket)
        paused_s = self._paused_until - time.monotonic()
        if self._waiters and paused_s > 0 and not self._timer_set:
            future = self._waiters[0].future
            assert future is not None
            loop = future.get_loop()
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(loop.call_later, paused_s, self._resume)
                self._timer_set = True

    def _resume(self) -> None:
        with self._lock:
            self._timer_set = False
            self._admit_waiters()


def _grant(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


_limits: dict[tuple[str, str], AdaptiveLimit] = {}
_limits_lock = threading.Lock()


def adaptive_limit(model: str, api_base: str | None) -> AdaptiveLimit:
    """The process's limit for calls to ``model`` at ``api_base``."""
    key = (model, api_base or "")
    with _limits_lock:
        limit = _limits.get(key)
        if limit is None:
            limit = _limits[key] = AdaptiveLimit(api_base or model)
    return limit


@contextlib.asynccontextmanager
async def adaptive_slot(
    model: str, api_base: str | None, ceiling: int | None
) -> AsyncIterator[Slot]:
    """Hold a slot of the server's adaptive limit for one request; learn from how it ends.

    An exception leaving the block is the request's failure; a clean exit is its success.
    """
    limit = adaptive_limit(model, api_base)
    ticket = await limit.acquire(ceiling)
    outcome: BaseException | None = _CANCELLED
    try:
        yield ticket
        outcome = None
    except Exception as error:
        outcome = error
        raise
    finally:
        limit.release(ticket, outcome)


class _Cancelled(Exception):
    """A call cancelled or interrupted by its caller: no sign of what the server sustains."""


_CANCELLED: Final = _Cancelled()
