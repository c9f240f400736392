"""The model judge: every judge step answered by a model through ``litellm.acompletion``.

One :class:`LiteLLMJudge` serves every scorer of a run. For each step it looks in the disk
cache, else asks the model for a JSON object matching the step's schema (as a JSON-schema
``response_format`` where the provider supports one, as instructions otherwise), retries
rate limits, server errors, timeouts and dropped connections with backoff, feeds validation
errors back to the model until the reply is valid, and records usage and cost.

litellm is imported on first use only, with its price map read from the package (offline it
would otherwise stall on a download) and its logging quiet.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import inspect
import json
import logging
import os
import re
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ..errors import ConfigurationError, JudgeCallError, JudgeReplyError
from ..records import ModelCall, Usage, sum_cost, sum_usage
from ._cache import CachedCall, JudgeCache
from ._limits import call_slot
from ._parse import (
    ReplyProblem,
    parse_and_validate,
    repair_instructions,
    schema_fingerprint,
    schema_instructions,
)
from ._retry import Backoff, FailureKind, classify_failure, retry_after_seconds
from ._types import JudgeReply, JudgeRequest, render_messages

__all__ = ["LiteLLMJudge"]

logger = logging.getLogger("evaltoolkit.judge")

# Bump when the cached value's meaning or the key's recipe changes, so old entries stop matching.
CACHE_FORMAT_VERSION: Final = 1
LITELLM_LOGGER_NAMES: Final = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")

# Option names made of these words (``api_key``, ``aws_secret_access_key``, ``extra_headers``,
# ``azure_ad_token``) carry secrets: they stay out of cache keys and are masked in messages.
_SECRET_NAME_WORDS: Final = frozenset(
    {
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "credential",
        "credentials",
        "header",
        "headers",
        "auth",
        "authorization",
        "cookie",
        "cookies",
    }
)
_KEY_LIKE_TEXT: Final = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}")
_RESERVED_OPTIONS: Final = frozenset(
    {"model", "messages", "response_format", "num_retries", "stream", "n", "max_retries"}
)
_SCHEMA_NAME_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")
_TIMEOUT_GRACE_S: Final = 5.0
_LOOP_SHUTDOWN_TIMEOUT_S: Final = 5.0
_DETAIL_CHARS: Final = 400

_litellm_module: Any = None
_litellm_import_lock = threading.Lock()


def import_litellm() -> Any:
    """Import litellm once, offline-safe and quiet, and return the module.

    Sets ``LITELLM_LOCAL_MODEL_COST_MAP`` (unless the environment already says otherwise) so
    that the import reads the price map shipped in the package instead of downloading it, turns
    off litellm's banners, and sets its loggers to WARNING.

    Example:
        >>> import_litellm().suppress_debug_info
        True
    """
    global _litellm_module
    if _litellm_module is not None:
        return _litellm_module
    with _litellm_import_lock:
        if _litellm_module is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            for name in LITELLM_LOGGER_NAMES:
                logging.getLogger(name).setLevel(logging.WARNING)
            _litellm_module = litellm
    return _litellm_module


# ---------------------------------------------------------------------------------------------
# Per event loop state
#
# The sync API runs each run on a fresh event loop (asyncio.run, or a worker thread when a loop
# is already running), so anything bound to a loop (semaphores, litellm's HTTP clients) is kept
# per loop. When asyncio.run shuts a loop down, the async generator below is finalised while the
# loop still runs; it then flushes litellm's background logging queue (else litellm carries the
# unprocessed entries to the next loop and warns each time) and closes the HTTP clients litellm
# cached for that loop (else their sockets stay open until the cache's TTL expires).
# ---------------------------------------------------------------------------------------------


class _LoopState:
    """What the judges keep per event loop."""

    __slots__ = ("__weakref__", "cleanup", "semaphores")

    def __init__(self) -> None:
        self.semaphores: weakref.WeakKeyDictionary[LiteLLMJudge, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )
        self.cleanup: AsyncGenerator[None, None] | None = None


# Entries are removed when their loop shuts down; a loop closed without shutdown_asyncgens keeps
# its (small) entry, as the semaphores in it refer back to the loop.
_loop_states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
    weakref.WeakKeyDictionary()
)
_loop_states_lock = threading.Lock()


async def _state_of_running_loop() -> _LoopState:
    loop = asyncio.get_running_loop()
    state = _loop_states.get(loop)
    if state is not None:
        return state
    with _loop_states_lock:
        state = _loop_states.get(loop)
        created = state is None
        if state is None:
            state = _LoopState()
            _loop_states[loop] = state
    if created:
        cleanup = _release_litellm_resources_at_loop_shutdown()
        state.cleanup = cleanup
        await anext(cleanup)  # the first step registers the generator with the loop
    return state


async def _release_litellm_resources_at_loop_shutdown() -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        try:
            await asyncio.wait_for(_release_litellm_resources(), _LOOP_SHUTDOWN_TIMEOUT_S)
        except Exception as error:
            logger.debug("could not release litellm's per-loop resources: %r", error)
        finally:
            with _loop_states_lock:
                _loop_states.pop(asyncio.get_running_loop(), None)


async def _release_litellm_resources() -> None:
    litellm = _litellm_module
    if litellm is None:
        return
    loop = asyncio.get_running_loop()
    with contextlib.suppress(ImportError):
        from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

        # A worker bound to another thread's live loop holds that loop's work: leave it alone.
        if getattr(GLOBAL_LOGGING_WORKER, "_bound_loop", loop) is loop:
            try:
                await asyncio.wait_for(GLOBAL_LOGGING_WORKER.flush(), _LOOP_SHUTDOWN_TIMEOUT_S)
            except Exception as error:
                logger.debug("litellm's logging queue did not flush: %r", error)
        await _cancel_logging_worker_tasks()
    with contextlib.suppress(ImportError):
        from litellm.caching.evicted_client_closer import running_loop_token

        token = running_loop_token()
        cache = litellm.in_memory_llm_clients_cache
        closer = getattr(cache, "evicted_client_closer", None)
        suffix = f"-{token}"
        keys = [key for key in tuple(cache.cache_dict) if str(key).endswith(suffix)]
        for key in keys:
            client = cache.cache_dict.get(key)
            cache.delete_cache(key)
            if closer is not None and not closer._is_owned(client):
                continue  # a client the caller supplied is the caller's to close
            close = getattr(client, "aclose", None) or getattr(client, "close", None)
            if close is not None:
                outcome = close()
                if inspect.isawaitable(outcome):
                    await outcome


async def _cancel_logging_worker_tasks() -> None:
    """Cancel litellm logging-worker tasks left on the running loop, which is about to close."""
    current = asyncio.current_task()
    leftovers = [
        task
        for task in asyncio.all_tasks()
        if task is not current
        and getattr(task.get_coro(), "__qualname__", "").startswith("LoggingWorker.")
    ]
    for task in leftovers:
        task.cancel()
    await asyncio.gather(*leftovers, return_exceptions=True)


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _is_secret_name(name: str) -> bool:
    return any(word in _SECRET_NAME_WORDS for word in re.split(r"[^a-z]+", name.lower()))


def _json_default(value: object) -> str:
    # Objects without a JSON form (clients, sessions) enter the key by type, never by address.
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def _canonical_json(value: object) -> str:
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_json_default
    )


@functools.lru_cache(maxsize=256)
def _strict_compatible(fingerprint: str) -> bool:
    """Whether a schema meets OpenAI's strict mode: closed objects, every property required."""

    def check(node: object) -> bool:
        if isinstance(node, list):
            return all(check(item) for item in node)
        if not isinstance(node, dict):
            return True
        if node.get("type") == "object" or "properties" in node:
            properties = node.get("properties", {})
            if node.get("additionalProperties") is not False:
                return False
            if set(node.get("required", [])) != set(properties):
                return False
        return all(check(child) for child in node.values())

    schema: object = json.loads(fingerprint)
    return check(schema)


def _reply_text(response: Any) -> str | None:
    """The reply's text: the message content, else the first tool call's arguments."""
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    content = getattr(message, "content", None)
    if isinstance(content, list):
        content = "".join(
            str(part.get("text", "")) if isinstance(part, Mapping) else str(part)
            for part in content
        )
    if isinstance(content, str) and content.strip():
        return content
    tool_calls = getattr(message, "tool_calls", None) or ()
    for tool_call in tool_calls:
        arguments = getattr(getattr(tool_call, "function", None), "arguments", None)
        if isinstance(arguments, str) and arguments.strip():
            return arguments
    return content if isinstance(content, str) else None


def _usage_of(response: Any) -> Usage | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if prompt is None and completion is None:
        return None
    return Usage(int(prompt or 0), int(completion or 0))


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _DETAIL_CHARS else line[: _DETAIL_CHARS - 1] + "…"


def _mentions_response_format(error: BaseException) -> bool:
    text = str(error).lower()
    return "response_format" in text or "json_schema" in text or "response format" in text


class _ResponseFormatRejected(Exception):
    """The provider refused the JSON-schema response_format; use JSON instructions instead."""


class LiteLLMJudge:
    """A judge that asks a model, through litellm, for each step's JSON reply.

    Args:
        model: Any litellm model string: ``"openai/gpt-4o-mini"``, ``"anthropic/..."``,
            ``"ollama/llama3"``, or ``"openai/<name>"`` with ``api_base`` for any
            OpenAI-compatible server (vLLM, llama.cpp, ...).
        api_base: The server's base URL, for self-hosted or proxied models.
        api_key: The API key; when None, litellm reads the provider's environment variable
            (``OPENAI_API_KEY``, ...). Never stored in the cache, results or logs.
        temperature: Sampling temperature; None sends none (for models that refuse one).
        seed: Sampling seed, for providers that honour one.
        timeout: Seconds before one request counts as timed out (and is retried).
        max_retries: Retries of a request after a rate limit, server error, timeout or dropped
            connection.
        max_repairs: Follow-up requests that feed a reply's validation error back to the model.
        concurrency: Requests this judge keeps in flight at most (per event loop). A run's
            :func:`~evaltoolkit.judge._limits.shared_call_limit` applies on top.
        cache: True for the default disk cache (:func:`default_cache_dir`), a directory or
            file path for another one, a :class:`JudgeCache`, or False for none.
        structured_output: Request a JSON-schema ``response_format`` (True), only describe the
            schema in the system message (False), or decide from litellm's model information
            (None, the default; ``openai/<name>`` with ``api_base`` counts as supporting it).
        backoff_base: Ceiling in seconds of the first retry's randomised wait; it doubles with
            each retry.
        backoff_max: Largest ceiling of the randomised wait, in seconds.
        max_retry_after: The longest ``Retry-After`` honoured, in seconds.
        **litellm_kwargs: Passed to ``litellm.acompletion`` as they are (``max_tokens``,
            ``drop_params``, ``extra_headers``, ...).

    Raises:
        ConfigurationError: An option is out of range or the cache cannot be opened.

    Example:
        >>> from evaltoolkit.judge._types import JudgeRequest
        >>> judge = LiteLLMJudge("openai/gpt-4o-mini", cache=False)
        >>> judge.model, judge.offline
        ('openai/gpt-4o-mini', False)
        >>> request = JudgeRequest(
        ...     task="demo",
        ...     step="verdict",
        ...     stage="analyze",
        ...     messages=({"role": "user", "content": "Is 2 + 2 = 4? Reply in JSON."},),
        ...     schema={"type": "object", "properties": {"yes": {"type": "boolean"}}},
        ... )
        >>> reply = asyncio.run(judge.complete(request))  # doctest: +SKIP
        >>> reply.value, reply.call.usage  # doctest: +SKIP
        ({'yes': True}, Usage(prompt_tokens=19, completion_tokens=6))
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = 0.0,
        seed: int | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        max_repairs: int = 2,
        concurrency: int = 16,
        cache: bool | str | Path | JudgeCache = True,
        structured_output: bool | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 60.0,
        **litellm_kwargs: Any,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError(
                "model must be a litellm model string such as 'openai/gpt-4o-mini'"
            )
        if model.strip() == "offline":
            raise ConfigurationError(
                "'offline' is the built-in judge; use create_judge('offline') instead"
            )
        if timeout is None or timeout <= 0:
            raise ConfigurationError(f"timeout must be > 0 seconds, got {timeout!r}")
        for name, number in (("max_retries", max_retries), ("max_repairs", max_repairs)):
            if not isinstance(number, int) or number < 0:
                raise ConfigurationError(f"{name} must be an integer >= 0, got {number!r}")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigurationError(f"concurrency must be an integer >= 1, got {concurrency!r}")
        reserved = sorted(_RESERVED_OPTIONS & set(litellm_kwargs))
        if reserved:
            raise ConfigurationError(
                f"the judge sets {', '.join(reserved)} itself; remove them from the options "
                "(retries are set with max_retries)"
            )
        self._model = model.strip()
        self._api_base = api_base
        self._api_key = api_key
        self._temperature = temperature
        self._seed = seed
        self._timeout = float(timeout)
        self._max_retries = max_retries
        self._max_repairs = max_repairs
        self._concurrency = concurrency
        self._structured_output = structured_output
        self._response_schema_supported: bool | None = None
        self._unpriced_models: set[str] = set()
        self._backoff = Backoff(backoff_base, backoff_max, max_retry_after)
        self._litellm_kwargs = dict(litellm_kwargs)
        self._secrets = self._collect_secrets()
        public_options = {
            name: value for name, value in litellm_kwargs.items() if not _is_secret_name(name)
        }
        self._key_parameters = _canonical_json(
            {
                "temperature": temperature,
                "seed": seed,
                "structured_output": structured_output,
                "options": public_options,
            }
        )
        self._cache = self._open_cache(cache)

    # -- configuration ---------------------------------------------------------------------

    @staticmethod
    def _open_cache(cache: bool | str | Path | JudgeCache) -> JudgeCache | None:
        if isinstance(cache, JudgeCache):
            return cache
        if cache is True:
            return JudgeCache()
        if cache is False or cache is None:
            return None
        if isinstance(cache, str | Path):
            return JudgeCache(cache)
        raise ConfigurationError(
            f"cache must be True, False, a directory path or a JudgeCache, got {cache!r}"
        )

    def _collect_secrets(self) -> tuple[str, ...]:
        secrets: list[str] = []
        if self._api_key:
            secrets.append(self._api_key)
        for name, value in self._litellm_kwargs.items():
            if not _is_secret_name(name):
                continue
            values = value.values() if isinstance(value, Mapping) else [value]
            secrets.extend(str(item) for item in values if isinstance(item, str) and item)
        return tuple(sorted({secret for secret in secrets if len(secret) >= 4}, key=len))[::-1]

    @property
    def model(self) -> str:
        """The litellm model string, recorded on every call."""
        return self._model

    @property
    def offline(self) -> bool:
        """Always False: this judge reads the prompts and asks a model."""
        return False

    @property
    def api_base(self) -> str | None:
        """The server's base URL, None for the provider's default."""
        return self._api_base

    @property
    def cache(self) -> JudgeCache | None:
        """The disk cache of replies, None when caching is off."""
        return self._cache

    @property
    def concurrency(self) -> int:
        """Requests this judge keeps in flight at most, per event loop."""
        return self._concurrency

    def __repr__(self) -> str:
        parts = [f"model={self._model!r}"]
        if self._api_base:
            parts.append(f"api_base={self._api_base!r}")
        parts.append(f"cache={self._cache!r}" if self._cache else "cache=False")
        return f"LiteLLMJudge({', '.join(parts)})"

    def redact(self, text: str) -> str:
        """Return ``text`` with this judge's secrets, and anything shaped like a key, masked.

        Example:
            >>> LiteLLMJudge("openai/x", api_key="sk-abc-123456", cache=False).redact(
            ...     "bad key sk-abc-123456"
            ... )
            'bad key ***'
        """
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return _KEY_LIKE_TEXT.sub("***", text)

    def _scrub(self, error: BaseException) -> None:
        """Mask secrets in an exception chain that ours will carry (providers may echo keys)."""
        if not self._secrets:
            return
        seen: set[int] = set()
        current: BaseException | None = error
        pending: list[BaseException] = []
        while current is not None:
            if id(current) not in seen:
                seen.add(id(current))
                with contextlib.suppress(AttributeError, TypeError):
                    current.args = tuple(
                        self.redact(argument) if isinstance(argument, str) else argument
                        for argument in current.args
                    )
                    message = getattr(current, "message", None)
                    if isinstance(message, str):
                        setattr(current, "message", self.redact(message))  # noqa: B010
                pending.extend(
                    linked
                    for linked in (current.__cause__, current.__context__)
                    if linked is not None
                )
            current = pending.pop() if pending else None

    # -- answering a step -------------------------------------------------------------------

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one judge step with a reply that validates against the step's schema.

        Args:
            request: The step's messages and JSON schema.

        Returns:
            The validated reply object and the record of the call (cached, usage, cost, ...).

        Raises:
            JudgeCallError: The request failed after every retry, or failed in a way that
                retrying cannot fix (bad request, authentication, unknown model).
            JudgeReplyError: No reply parsed and validated, repairs included.
        """
        key = self._cache_key(request) if self._cache is not None else None
        if key is not None:
            hit = self._read_cache(key)
            if hit is not None:
                return _cached_reply(request, self._model, hit)

        if _litellm_module is None:
            # The first import takes seconds; keep the event loop (and a progress bar) alive.
            await asyncio.to_thread(import_litellm)
        state = await _state_of_running_loop()
        structured = self._uses_response_schema()
        started = time.perf_counter()
        outcome = await self._answer(request, structured, state)
        latency = time.perf_counter() - started
        await self._write_cache(key, request, outcome)
        call = ModelCall(
            step=request.step,
            stage=request.stage,
            model=self._model,
            prompt=render_messages(request.messages),
            raw_reply=outcome.raw_reply,
            usage=outcome.usage,
            cost=outcome.cost,
            latency_s=latency,
            cached=False,
            attempts=outcome.attempts,
        )
        return JudgeReply(outcome.value, call)

    def _uses_response_schema(self) -> bool:
        if self._structured_output is not None:
            return self._structured_output
        if self._response_schema_supported is None:
            self._response_schema_supported = self._provider_supports_response_schema()
        return self._response_schema_supported

    def _provider_supports_response_schema(self) -> bool:
        if self._model.startswith("openai/") and self._api_base:
            return True
        litellm = import_litellm()
        try:
            return bool(litellm.supports_response_schema(model=self._model))
        except Exception:  # unknown model or provider: litellm cannot tell, so describe it
            return False

    def _cache_key(self, request: JudgeRequest) -> str:
        """sha256 over everything that shapes the request, secrets excepted."""
        digest = hashlib.sha256()
        for part in (
            f"evaltoolkit-judge-cache/{CACHE_FORMAT_VERSION}",
            self._model,
            self._api_base or "",
            request.step,
            self._key_parameters,
            schema_fingerprint(request.schema),
            _canonical_json([dict(message) for message in request.messages]),
        ):
            digest.update(part.encode())
            digest.update(b"\x1f")
        return digest.hexdigest()

    def _read_cache(self, key: str) -> CachedCall | None:
        if self._cache is None:
            return None
        try:
            return self._cache.get(key)
        except Exception as error:  # a damaged or locked cache must not fail the call
            logger.warning("judge cache read failed (%s); asking the model", error)
            return None

    async def _write_cache(self, key: str | None, request: JudgeRequest, outcome: _Outcome) -> None:
        cache = self._cache
        if cache is None or key is None:
            return
        store = functools.partial(
            cache.put,
            key,
            model=self._model,
            step=request.step,
            value=outcome.value,
            raw_reply=outcome.raw_reply,
            usage=outcome.usage,
            cost=outcome.cost,
        )
        try:
            # Off the event loop: a write may wait on another process's lock.
            await asyncio.get_running_loop().run_in_executor(None, store)
        except Exception as error:
            logger.warning("judge cache write failed (%s); the reply is not cached", error)

    def _initial_messages(self, request: JudgeRequest, structured: bool) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [dict(message) for message in request.messages]
        if structured:
            return messages
        instructions = schema_instructions(request.schema)
        if messages and messages[0].get("role") == "system":
            messages[0]["content"] = f"{messages[0].get('content') or ''}\n\n{instructions}"
        else:
            messages.insert(0, {"role": "system", "content": instructions})
        return messages

    async def _answer(self, request: JudgeRequest, structured: bool, state: _LoopState) -> _Outcome:
        messages = self._initial_messages(request, structured)
        usages: list[Usage | None] = []
        costs: list[float | None] = []
        attempts = 0
        raw_reply: str | None = None
        problem: ReplyProblem | None = None
        rounds = 0
        while rounds <= self._max_repairs:
            try:
                response, made = await self._request(
                    request.step, messages, request.schema, structured, state, attempts
                )
            except _ResponseFormatRejected as rejection:
                attempts += 1
                logger.info(
                    "%s refused a JSON-schema response_format; describing the schema in the "
                    "system message instead",
                    self._model,
                )
                self._response_schema_supported = False
                if self._structured_output is True:
                    raise JudgeCallError(
                        f"judge step {request.step!r}: {self._model!r} refused the JSON-schema "
                        "response_format; pass structured_output=False (or None)",
                        step=request.step,
                        attempts=attempts,
                    ) from rejection.__cause__
                structured = False
                messages = self._initial_messages(request, structured)
                continue
            attempts += made
            rounds += 1
            raw_reply = _reply_text(response)
            usages.append(_usage_of(response))
            costs.append(self._cost_of(response))
            try:
                value = parse_and_validate(raw_reply, request.schema)
            except ReplyProblem as invalid:
                problem = invalid
                messages = [
                    *messages,
                    {"role": "assistant", "content": raw_reply or ""},
                    {"role": "user", "content": repair_instructions(invalid, request.schema)},
                ]
                continue
            return _Outcome(value, raw_reply, sum_usage(usages), sum_cost(costs), attempts)
        raise JudgeReplyError(
            f"judge step {request.step!r}: {self._model!r} gave no reply matching the step's "
            f"JSON schema in {attempts} attempts; last problem: {problem}. Try a stronger model, "
            "raise max_repairs, or check the prompt asks for this JSON",
            step=request.step,
            raw_reply=raw_reply,
            attempts=attempts,
        )

    def _request_options(
        self,
        step: str,
        messages: Sequence[Mapping[str, Any]],
        schema: Mapping[str, Any],
        structured: bool,
    ) -> dict[str, Any]:
        options: dict[str, Any] = {
            "model": self._model,
            "messages": [dict(message) for message in messages],
            "timeout": self._timeout,
            "num_retries": 0,
            "max_retries": 0,
            **self._litellm_kwargs,
        }
        if self._api_base is not None:
            options["api_base"] = self._api_base
        if self._api_key is not None:
            options["api_key"] = self._api_key
        if self._temperature is not None:
            options["temperature"] = self._temperature
        if self._seed is not None:
            options["seed"] = self._seed
        if structured:
            fingerprint = schema_fingerprint(schema)
            options["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _SCHEMA_NAME_UNSAFE.sub("_", step)[:64] or "reply",
                    "schema": json.loads(fingerprint),  # a fresh copy litellm may alter
                    "strict": _strict_compatible(fingerprint),
                },
            }
        return options

    def _semaphore(self, state: _LoopState) -> asyncio.Semaphore:
        semaphore = state.semaphores.get(self)
        if semaphore is None:
            with _loop_states_lock:
                semaphore = state.semaphores.setdefault(self, asyncio.Semaphore(self._concurrency))
        return semaphore

    async def _request(
        self,
        step: str,
        messages: Sequence[Mapping[str, Any]],
        schema: Mapping[str, Any],
        structured: bool,
        state: _LoopState,
        attempts_before: int,
    ) -> tuple[Any, int]:
        """One completion, retried on transient failures; returns it and the requests made."""
        litellm = import_litellm()
        options = self._request_options(step, messages, schema, structured)
        semaphore = self._semaphore(state)
        made = 0
        while True:
            made += 1
            try:
                async with semaphore, call_slot():
                    async with asyncio.timeout(self._timeout + _TIMEOUT_GRACE_S):
                        return await litellm.acompletion(**options), made
            except Exception as error:
                self._scrub(error)
                failure = classify_failure(error)
                if structured and failure.status == 400 and _mentions_response_format(error):
                    raise _ResponseFormatRejected() from error
                attempts = attempts_before + made
                if not failure.retryable:
                    raise JudgeCallError(
                        self._explain(step, failure, error),
                        step=step,
                        attempts=attempts,
                    ) from error
                if made > self._max_retries:
                    raise JudgeCallError(
                        self._explain_exhausted(step, failure, error, made),
                        step=step,
                        attempts=attempts,
                    ) from error
                delay = self._backoff.delay(made - 1, retry_after_seconds(error))
                logger.debug(
                    "judge step %r: %s on attempt %d; retrying in %.2f s",
                    step,
                    failure.label,
                    attempts,
                    delay,
                )
                await asyncio.sleep(delay)

    def _cost_of(self, response: Any) -> float | None:
        """The call's cost in USD from litellm's price map; None when the model is not priced."""
        hidden = getattr(response, "_hidden_params", None)
        computed = hidden.get("response_cost") if isinstance(hidden, dict) else None
        if isinstance(computed, int | float) and not isinstance(computed, bool):
            return float(computed)  # litellm priced the response already, as it returned it
        priced_as = str(getattr(response, "model", None) or self._model)
        if priced_as in self._unpriced_models:
            return None
        try:
            cost = import_litellm().completion_cost(completion_response=response)
        except Exception as error:  # a model missing from the price map: cost unknown, not 0
            if type(error).__name__ == "ModelNotMappedError":
                self._unpriced_models.add(priced_as)
            return None
        return None if cost is None else float(cost)

    # -- error messages ---------------------------------------------------------------------

    def _detail(self, error: BaseException) -> str:
        return self.redact(_first_line(str(error)) or type(error).__name__)

    def _key_hint(self) -> str:
        if self._api_key is not None:
            return "check the api_key given to the judge"
        litellm = import_litellm()
        try:
            missing = litellm.validate_environment(model=self._model).get("missing_keys") or []
        except Exception:
            missing = []
        if missing:
            return f"set {' or '.join(missing)} in the environment, or pass api_key=..."
        try:
            provider = str(litellm.get_llm_provider(self._model)[1])
        except Exception:
            return "check the provider's API key variable, or pass api_key=..."
        return f"check the key in {provider.upper()}_API_KEY, or pass api_key=..."

    def _explain(self, step: str, failure: FailureKind, error: BaseException) -> str:
        where = f" at {self._api_base}" if self._api_base else ""
        detail = self._detail(error)
        prefix = f"judge step {step!r}: "
        if "LLM Provider NOT provided" in str(error) or "LiteLLMUnknownProvider" in {
            cls.__name__ for cls in type(error).__mro__
        }:
            return (
                f"{prefix}litellm does not know the provider of model {self._model!r}: write it "
                "as 'provider/model', e.g. 'openai/gpt-4o-mini' or 'anthropic/claude-...'"
            )
        if failure.status in (401, 403):
            return (
                f"{prefix}the provider refused the credentials for {self._model!r}{where} "
                f"(HTTP {failure.status}); {self._key_hint()}. Provider said: {detail}"
            )
        if failure.status == 404:
            return (
                f"{prefix}model {self._model!r} was not found{where} (HTTP 404): check the "
                "model name (litellm form 'provider/model') and api_base. "
                f"Provider said: {detail}"
            )
        if failure.status in (400, 422):
            return (
                f"{prefix}the provider rejected the request to {self._model!r} "
                f"(HTTP {failure.status}): {detail}. Check the model name and the judge's "
                "options; drop_params=True drops parameters the model does not support "
                "(temperature=None sends no temperature)"
            )
        return f"{prefix}the call to {self._model!r} failed ({failure.label}): {detail}"

    def _explain_exhausted(
        self, step: str, failure: FailureKind, error: BaseException, failures: int
    ) -> str:
        return (
            f"judge step {step!r}: the call to {self._model!r} failed {failures} times in a row; "
            f"last error: {failure.label}: {self._detail(error)}. Try again later, lower "
            "concurrency, or raise max_retries or timeout"
        )


class _Outcome:
    """A validated reply and what it took to get it."""

    __slots__ = ("attempts", "cost", "raw_reply", "usage", "value")

    def __init__(
        self,
        value: dict[str, Any],
        raw_reply: str | None,
        usage: Usage | None,
        cost: float | None,
        attempts: int,
    ) -> None:
        self.value = value
        self.raw_reply = raw_reply
        self.usage = usage
        self.cost = cost
        self.attempts = attempts


def _cached_reply(request: JudgeRequest, model: str, hit: CachedCall) -> JudgeReply:
    """The reply for a cache hit: the stored value, no request made (``attempts`` 0)."""
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
