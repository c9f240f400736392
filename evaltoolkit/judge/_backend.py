"""Any model behind the judge services: a backend answers one request, the services the rest.

A :class:`JudgeBackend` is the smallest thing that reaches a model: a ``model`` name and an
async ``send(request)`` returning a :class:`BackendReply`. :class:`ServicedJudge` turns it
(or any object implementing the :class:`~evaltoolkit.judge.Judge` protocol) into a judge with
the services every model judge has (:mod:`._services`): the disk cache, retries with backoff
that honours ``Retry-After``, the fail-fast stop, the call limits, and the record of each
call with its usage, cost and attempts. ``create_judge(backend)``, and ``model=backend`` in
any scorer, do this for you.

A backend may say more than its ``model`` and ``send``; each of these optional attributes is
read when present (the litellm backend, :mod:`._litellm`, uses them all):

- ``api_base``: the server it calls, for the adaptive call limit per server and in errors;
- ``cache_keys(request, every=...)``: the keys a reply may be cached under, the key it would
  be stored under now first (``every=False`` asks for that key alone), in place of the key
  made of the model, the step, the schema and the messages;
- ``exchange(request, services)``: answers a step with several requests (repairs, another
  JSON form), each made through ``services.request``, in place of one ``send``;
- ``on_failure(error, failure, made)`` and ``credentials_hint()``: look at a failed ``send``
  before it is judged, and say what to do about refused credentials.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from .._internal.options import resolve_names
from ..errors import ConfigurationError, JudgeReplyError
from ..records import Usage
from ._cache import JudgeCache
from ._cache_key import call_key, canonical_json
from ._config import EXTRA_HINT, JudgeConfig, judge_option_names
from ._parse import ReplyProblem, validate_reply
from ._retry import Backoff
from ._services import Answered, JudgeServices, open_judge_cache
from ._types import Judge, JudgeReply, JudgeRequest

__all__ = ["SERVICE_OPTIONS", "BackendReply", "JudgeBackend", "ServicedJudge"]

#: The judge options the services read; a backend gets these and no others.
SERVICE_OPTIONS: Final = (
    "cache",
    "concurrency",
    "max_retries",
    "timeout",
    "backoff_base",
    "backoff_max",
    "max_retry_after",
)
# Enters the cache key of every backend call: a backend's replies never match a litellm call's.
_BACKEND_FORM: Final = "backend"


@dataclass(frozen=True, slots=True)
class BackendReply:
    """What a backend returns for one request.

    Attributes:
        value: The reply object; the services validate it against the step's schema.
        raw_reply: The model's raw text, recorded on the call, None if there is none.
        usage: Tokens the request used, None when unknown.
        cost: Cost of the request in USD, None when unknown (never 0 for unknown).
    """

    value: Mapping[str, Any]
    raw_reply: str | None = None
    usage: Usage | None = None
    cost: float | None = None


@runtime_checkable
class JudgeBackend(Protocol):
    """A model behind the judge services: it makes one request, the services do the rest.

    ``send`` is called once per request; it may be retried, so it should not keep state that
    a retry would trip over. To have a failure retried, raise an exception carrying an HTTP
    ``status_code`` (429 and 5xx are retried, honouring a ``retry-after`` in ``headers``), or
    a ``TimeoutError`` or ``ConnectionError``; a ``PermissionError`` or a 401/403 status stops
    the judge (no later step is sent); anything else fails the step without a retry.
    """

    @property
    def model(self) -> str:
        """The model's name: recorded on results, and the backend's identity in the cache."""
        ...

    async def send(self, request: JudgeRequest) -> BackendReply:
        """Make one request for ``request`` and return the reply."""
        ...


@runtime_checkable
class _KeyingBackend(Protocol):
    """A backend that names the keys its replies are cached under."""

    def cache_keys(self, request: JudgeRequest, *, every: bool) -> Sequence[str]: ...


@runtime_checkable
class _ExchangingBackend(Protocol):
    """A backend that answers a step with several requests, each through the services."""

    async def exchange(self, request: JudgeRequest, services: JudgeServices) -> Answered: ...


class ServicedJudge:
    """A judge made of a backend (or another judge) and the judge services.

    Args:
        backend: A :class:`JudgeBackend`, or any :class:`~evaltoolkit.judge.Judge` (each
            ``complete`` is then one request).
        **options: The service options of :class:`~evaltoolkit.judge.JudgeConfig`:
            ``cache`` (True, a path, a ``JudgeCache`` or False), ``concurrency``,
            ``max_retries``, ``timeout``, ``backoff_base``, ``backoff_max``,
            ``max_retry_after``.

    Raises:
        ConfigurationError: An option the services do not take, or a value out of range.

    Example:
        >>> from evaltoolkit.judge import BackendReply
        >>> class Constant:
        ...     model = "constant/yes"
        ...     async def send(self, request):
        ...         return BackendReply({"verdict": "yes"})
        >>> judge = ServicedJudge(Constant(), cache=False, max_retries=2)
        >>> judge.model, judge.offline
        ('constant/yes', False)
    """

    def __init__(self, backend: JudgeBackend | Judge, **options: Any) -> None:
        self._setup(backend, _service_config(backend, options))

    def _setup(self, backend: JudgeBackend | Judge, config: JudgeConfig) -> None:
        self._backend = backend
        self._config = config
        self._services = JudgeServices(
            model=config.model,
            cache=open_judge_cache(config.cache),
            max_retries=config.max_retries,
            backoff=Backoff(config.backoff_base, config.backoff_max, config.max_retry_after),
            timeout=config.timeout,
            concurrency=config.concurrency,
            api_base=self.api_base,
        )
        # Looked up once: a protocol check on every call costs more than the check is worth.
        self._keying = backend if isinstance(backend, _KeyingBackend) else None
        self._exchanging = backend if isinstance(backend, _ExchangingBackend) else None

    def __getstate__(self) -> dict[str, Any]:
        # Sent to another process, the judge opens its own cache.
        return {"backend": self._backend, "config": self._config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._setup(state["backend"], state["config"])

    @property
    def backend(self) -> JudgeBackend | Judge:
        """The backend the services wrap."""
        return self._backend

    @property
    def config(self) -> JudgeConfig:
        """The judge's options."""
        return self._config

    @property
    def model(self) -> str:
        """The backend's model name."""
        return self._config.model

    @property
    def api_base(self) -> str | None:
        """The server the backend calls (its ``api_base``), None when it names none."""
        api_base = getattr(self._backend, "api_base", None)
        return api_base if isinstance(api_base, str) else None

    @property
    def offline(self) -> bool:
        """Always False: the backend is a model (the offline judge needs no services)."""
        return False

    @property
    def cache(self) -> JudgeCache | None:
        """The disk cache of replies, None when caching is off."""
        return self._services.cache

    @property
    def concurrency(self) -> int | None:
        """Requests this judge keeps in flight at most; None leaves it to the run."""
        return self._config.concurrency

    def __repr__(self) -> str:
        cache = self._services.cache
        return (
            f"ServicedJudge({self._backend!r}, model={self.model!r}, "
            f"{'cache=False' if cache is None else f'cache={cache!r}'})"
        )

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one step from the cache, else from the backend.

        Raises:
            JudgeCallError: The request failed after its retries, failed in a way retrying
                cannot fix, or the judge stopped after such a failure.
            JudgeReplyError: The backend's reply does not match the step's schema.
        """
        keys = self._keys(request, every=self.cache is not None)
        return await self._services.answer(
            request, keys, functools.partial(self._ask, request, keys[0])
        )

    def cached_value(self, request: JudgeRequest) -> dict[str, Any] | None:
        """The cached reply to ``request``, None when the cache holds none; sends nothing."""
        cache = self.cache
        if cache is None:
            return None
        try:
            for key in self._keys(request, every=True):
                hit = cache.get(key)
                if hit is not None:
                    return dict(hit.value)
        except Exception:  # a damaged or locked cache: count the call as not cached
            return None
        return None

    def _keys(self, request: JudgeRequest, *, every: bool) -> list[str]:
        if self._keying is not None:
            return list(self._keying.cache_keys(request, every=every))
        key = call_key(
            model=self.model,
            api_base=None,
            step=request.step,
            parameters=canonical_json({"max_tokens": request.max_tokens}),
            form=_BACKEND_FORM,
            schema=request.schema,
            messages=request.messages,
        )
        return [key]

    async def _ask(self, request: JudgeRequest, key: str) -> Answered:
        if self._exchanging is not None:
            return await self._exchanging.exchange(request, self._services)
        backend = self._backend
        reply, made = await self._services.request(
            request.step,
            functools.partial(self._send_once, request),
            on_failure=getattr(backend, "on_failure", None),
            hint=getattr(backend, "credentials_hint", None),
        )
        value = dict(reply.value)
        try:
            validate_reply(value, request.schema)
        except ReplyProblem as problem:
            raise JudgeReplyError(
                f"judge step {request.step!r}: {self.model!r} replied with an object that does "
                f"not match the step's JSON schema: {problem}",
                step=request.step,
                raw_reply=reply.raw_reply,
                attempts=made,
                usage=reply.usage,
                cost=reply.cost,
            ) from problem
        return Answered(value, reply.raw_reply, reply.usage, reply.cost, made, key)

    async def _send_once(self, request: JudgeRequest) -> BackendReply:
        backend = self._backend
        if isinstance(backend, Judge):
            answered = await backend.complete(request)
            call = answered.call
            return BackendReply(answered.value, call.raw_reply, call.usage, call.cost)
        return await backend.send(request)


def _service_config(backend: object, options: Mapping[str, Any]) -> JudgeConfig:
    model = getattr(backend, "model", None)
    if not isinstance(model, str) or not model.strip():
        raise ConfigurationError(
            f"judge backend {backend!r}: its model must be a non-empty name, got {model!r}"
        )
    if getattr(backend, "offline", False):
        raise ConfigurationError(
            "the offline judge takes no judge options: it makes no request, so it needs no "
            "cache, retries or limits"
        )
    resolved = resolve_names(options, judge_option_names(), where="judge", hint=EXTRA_HINT)
    others = sorted(name for name in resolved if name not in SERVICE_OPTIONS)
    if others:
        raise ConfigurationError(
            f"judge options ({', '.join(others)}) cannot be applied to a judge object or "
            f"backend; set them when creating it. The judge services take "
            f"{', '.join(SERVICE_OPTIONS)}"
        )
    return JudgeConfig.from_options(model, **resolved)
