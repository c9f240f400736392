"""What every model judge needs around its calls, whatever reaches the model.

:class:`JudgeServices` holds one judge's cache, its retry policy, its fail-fast stop and its
call limits. A judge backend (litellm, or any object implementing
:class:`~evaltoolkit.judge.JudgeBackend`) brings only the request itself: the services look in
the cache, send the request through :meth:`JudgeServices.request` (which holds a call slot,
retries rate limits, server errors and dropped connections with backoff that honours
``Retry-After``, a timed-out request once, and never an authentication error), store the reply
and write the record of the call. A failure no retry can fix (refused credentials, an unknown
model, a server refusing connections) stops the judge: every later step fails at once with the
same message. Secrets are masked in every error the services pass on.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, TypeVar

from .._internal.secrets import secret_masker
from ..errors import JudgeCallError, JudgeError
from ..records import ModelCall, Usage
from ._adaptive import Slot, adaptive_slot
from ._cache import CachedCall, JudgeCache, open_cache
from ._limits import judge_slots
from ._retry import Backoff, FailureKind, classify_failure, retry_after_seconds
from ._run_scope import call_slot, run_call_limit
from ._secrets import scrub_exception
from ._single_flight import SingleFlight
from ._types import JudgeReply, JudgeRequest, render_messages
from ._wording import explain_exhausted, explain_failure

__all__ = [
    "Answered",
    "JudgeServices",
    "cached_reply",
    "error_for_waiter",
    "open_judge_cache",
]

logger = logging.getLogger("evaltoolkit.judge")

_TIMEOUT_GRACE_S: Final = 5.0
_TIMEOUT_RETRIES: Final = 1
_GENERIC_HINT: Final = "check the credentials the judge backend uses"

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Answered:
    """A validated reply from a backend, what it took, and the key to cache it under."""

    value: dict[str, Any]
    raw_reply: str | None
    usage: Usage | None
    cost: float | None
    attempts: int
    cache_key: str


class FailureHook(Protocol):
    """Looks at a failed request before the services decide; may raise its own error."""

    def __call__(self, error: BaseException, failure: FailureKind, made: int) -> None: ...


class JudgeServices:
    """One judge's cache, retries, fail-fast stop and call limits.

    Args:
        model: The judge's model name, recorded on calls and named in errors.
        cache: The disk cache of replies, None for none.
        max_retries: Retries of a request after a rate limit, server error or dropped
            connection.
        backoff: The waits between retries.
        timeout: Seconds one request may take (a grace period is added) before it counts as
            timed out; None for no limit.
        concurrency: Requests this judge keeps in flight at most; None leaves it to the run.
        api_base: The server the judge calls, named in errors.
    """

    def __init__(
        self,
        *,
        model: str,
        cache: JudgeCache | None,
        max_retries: int,
        backoff: Backoff,
        timeout: float | None,
        concurrency: int | None,
        api_base: str | None = None,
    ) -> None:
        self.model = model
        self.cache = cache
        self.max_retries = max_retries
        self.backoff = backoff
        self.timeout = timeout
        self.concurrency = concurrency
        self.api_base = api_base
        self._stopped: str | None = None
        self._flights: SingleFlight[tuple[Answered, float]] = SingleFlight(
            share_error=error_for_waiter
        )

    # -- answering a step -------------------------------------------------------------------

    async def answer(
        self,
        request: JudgeRequest,
        keys: Sequence[str],
        ask: Callable[[], Awaitable[Answered]],
    ) -> JudgeReply:
        """Answer ``request`` from the cache under any of ``keys``, else by ``ask()``.

        ``keys`` are the cache keys a reply to this request may be stored under, the key of
        the request as it would be sent now first. ``ask`` makes the requests (through
        :meth:`request`) and returns the validated reply; it is stored in the cache and the
        call is recorded with its usage, cost, latency and attempts.

        Raises:
            JudgeCallError: The judge has stopped, or the requests failed.
            JudgeReplyError: No reply validated.
        """
        hit = self.read_cache(keys)
        if hit is not None:
            return cached_reply(request, self.model, hit)
        self.raise_if_stopped(request.step)
        # No await since the cache was read: a call in flight under this key is either
        # still in the table, or its reply was in the cache already.
        (answered, latency_s), shared = await self._flights.run(
            keys[0], functools.partial(self._ask_and_store, request, ask)
        )
        call = ModelCall(
            step=request.step,
            stage=request.stage,
            model=self.model,
            prompt=render_messages(request.messages),
            raw_reply=answered.raw_reply,
            usage=answered.usage,
            cost=answered.cost,
            latency_s=0.0 if shared else latency_s,
            cached=shared,
            attempts=0 if shared else answered.attempts,
        )
        # A waiter gets its own copy, as a cache hit does: a scorer may change its reply.
        return JudgeReply(copy.deepcopy(answered.value) if shared else answered.value, call)

    async def _ask_and_store(
        self, request: JudgeRequest, ask: Callable[[], Awaitable[Answered]]
    ) -> tuple[Answered, float]:
        started = time.perf_counter()
        try:
            answered = _masked(await ask())
        except JudgeError as error:  # a reply that never validated is quoted in the error
            scrub_exception(error)
            raise
        latency_s = time.perf_counter() - started
        await self.write_cache(
            answered.cache_key,
            step=request.step,
            value=answered.value,
            raw_reply=answered.raw_reply,
            usage=answered.usage,
            cost=answered.cost,
        )
        return answered, latency_s

    # -- the fail-fast stop -----------------------------------------------------------------

    def raise_if_stopped(self, step: str) -> None:
        """Fail ``step`` at once when an earlier call failed in a way no retry can fix."""
        if self._stopped is not None:
            raise JudgeCallError(
                f"judge step {step!r}: not called, because an earlier call failed in a way "
                f"no retry can fix: {self._stopped}",
                step=step,
                attempts=0,
            )

    def stop(self, message: str) -> None:
        """Stop calling: every later step fails at once with ``message``."""
        if self._stopped is None:
            self._stopped = message
            logger.warning("judge %s stopped calling: %s", self.model, message)

    # -- limits and retries -----------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """One request's slots: this judge's own limit (if it has one), the server's adaptive
        limit (which learns from how the request ends), then the run's shared limit."""
        async with contextlib.AsyncExitStack() as stack:
            if self.concurrency is not None:
                await stack.enter_async_context(judge_slots(self, self.concurrency))
            ceilings = [value for value in (self.concurrency, run_call_limit()) if value]
            slot = await stack.enter_async_context(
                adaptive_slot(self.model, self.api_base, min(ceilings, default=None))
            )
            await stack.enter_async_context(call_slot())
            yield slot

    def _time_limit(self) -> asyncio.Timeout:
        return asyncio.timeout(None if self.timeout is None else self.timeout + _TIMEOUT_GRACE_S)

    async def request(
        self,
        step: str,
        send_once: Callable[[], Awaitable[T]],
        *,
        on_failure: FailureHook | None = None,
        hint: Callable[[], str] | None = None,
    ) -> tuple[T, int]:
        """Make one request, retried on transient failures; returns it and the requests made.

        Args:
            step: The judge step, named in errors.
            send_once: Makes the request once.
            on_failure: Called with each failure before it is judged; may raise (the litellm
                backend raises when the server rejected the JSON form).
            hint: What to do about refused credentials, asked for only when they were refused.

        Raises:
            JudgeCallError: The request failed in a way no retry can fix, the retries ran
                out, or the judge has stopped.
        """
        made = 0
        timeouts = 0
        while True:
            self.raise_if_stopped(step)
            made += 1
            slot: Slot | None = None
            try:
                async with self.slot() as slot, self._time_limit():
                    return await send_once(), made
            except JudgeError:
                raise  # a backend's own verdict on the step, not a failed request
            except Exception as error:
                scrub_exception(error)
                failure = classify_failure(error)
                if on_failure is not None:
                    on_failure(error, failure, made)
                # A request that timed out waiting behind others the server could not serve
                # says nothing of this one: only timeouts at a settled limit count.
                timeouts += failure.label == "timeout" and not (slot is not None and slot.crowded)
                self.give_up_unless_retryable(step, failure, error, made, timeouts, hint)
                # Waits grow to relieve an overloaded server; a scattered fault's retry
                # waits within the first ceiling, as the fault is as likely at any moment.
                grows = slot is None or slot.overload
                delay = self.backoff.delay(made - 1 if grows else 0, retry_after_seconds(error))
                logger.debug(
                    "judge step %r: %s on attempt %d; retrying in %.2f s",
                    step,
                    failure.label,
                    made,
                    delay,
                )
                await asyncio.sleep(delay)

    def give_up_unless_retryable(
        self,
        step: str,
        failure: FailureKind,
        error: BaseException,
        made: int,
        timeouts: int,
        hint: Callable[[], str] | None = None,
    ) -> None:
        """Raise unless ``failure`` is worth another try; stop the judge if it is fatal."""
        if not failure.retryable:
            message = explain_failure(
                step=step,
                model=self.model,
                api_base=self.api_base,
                failure=failure,
                error=error,
                hint=_GENERIC_HINT if hint is None else hint(),
            )
            if failure.fatal:
                self.stop(message.removeprefix(f"judge step {step!r}: "))
            raise JudgeCallError(message, step=step, attempts=made) from error
        if made > self.max_retries or timeouts > _TIMEOUT_RETRIES:
            raise JudgeCallError(
                explain_exhausted(
                    step=step, model=self.model, failure=failure, error=error, failures=made
                ),
                step=step,
                attempts=made,
            ) from error

    # -- cache ------------------------------------------------------------------------------

    def read_cache(self, keys: Sequence[str]) -> CachedCall | None:
        """The first cached reply under ``keys``; None on a miss, or when the cache fails."""
        if self.cache is None:
            return None
        try:
            for key in keys:
                hit = self.cache.get(key)
                if hit is not None:
                    return hit
        except Exception as error:  # a damaged or locked cache must not fail the call
            logger.warning("judge cache read failed (%s); asking the model", error)
        return None

    async def write_cache(
        self,
        key: str,
        *,
        step: str,
        value: dict[str, Any],
        raw_reply: str | None,
        usage: Usage | None,
        cost: float | None,
    ) -> None:
        """Store a validated reply under ``key``; a failed write is logged, never raised."""
        cache = self.cache
        if cache is None:
            return
        store = functools.partial(
            cache.put,
            key,
            model=self.model,
            step=step,
            value=value,
            raw_reply=raw_reply,
            usage=usage,
            cost=cost,
        )
        try:
            # Off the event loop: a write may wait on another process's lock.
            await asyncio.get_running_loop().run_in_executor(None, store)
        except Exception as error:
            logger.warning("judge cache write failed (%s); the reply is not cached", error)


def error_for_waiter(error: Exception) -> Exception:
    """The error a call that waited for a shared call gets: its own, with no request made.

    Each item keeps its own error row; the requests (and their usage and cost) are counted
    once, on the call that made them.
    """
    if isinstance(error, JudgeError):
        try:
            return type(error)(str(error), step=error.step, raw_reply=error.raw_reply, attempts=0)
        except TypeError:  # a subclass with another signature: share the error itself
            return error
    return error


def open_judge_cache(cache: bool | str | Path | JudgeCache) -> JudgeCache | None:
    """The cache a judge's ``cache`` option names: True the default one, False none."""
    if isinstance(cache, JudgeCache):
        return cache
    if cache is False:
        return None
    return open_cache(None if cache is True else cache)


def _masked(answered: Answered) -> Answered:
    """A reply with every secret in its value and raw text masked (a server may echo a key
    inside a successful reply), before it is cached, recorded or scored."""
    masker = secret_masker()
    return dataclasses.replace(
        answered,
        value=masker.deep(answered.value),
        raw_reply=None if answered.raw_reply is None else masker.text(answered.raw_reply),
    )


def cached_reply(request: JudgeRequest, model: str, hit: CachedCall) -> JudgeReply:
    """The reply for a cache hit: the stored value, no request made (``attempts`` 0).

    Secrets are masked again: a cache written before they were masked may hold them.
    """
    masker = secret_masker()
    hit = dataclasses.replace(
        hit,
        value=masker.deep(hit.value),
        raw_reply=None if hit.raw_reply is None else masker.text(hit.raw_reply),
    )
    call = ModelCall(
        step=request.step,
        stage=request.stage,
        model=model,
        prompt=render_messages(request.messages),
        raw_reply=hit.raw_reply,
        usage=hit.usage,
        cost=hit.cost,
        latency_s=0.0,
        cached=True,
        attempts=0,
    )
    return JudgeReply(hit.value, call)
