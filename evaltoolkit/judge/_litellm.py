"""The model judge: every judge step answered by a model through ``litellm.acompletion``.

One :class:`LiteLLMJudge` serves every scorer of a run. For each step it looks in the disk
cache (:mod:`._cache_key`), else asks the model for a JSON reply (:mod:`._exchange`, in the
JSON form the server accepts, :mod:`._structured`), retrying rate limits, server errors and
dropped connections with backoff and a timed-out request once. A failure no retry can fix
(refused credentials, an unknown provider or model, a server refusing connections) stops the
judge: every later step fails at once with the same message. Secrets are masked in everything
it passes on (:mod:`._secrets`); litellm itself is reached only through
:mod:`._litellm_runtime`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

from ..errors import ConfigurationError, JudgeCallError
from ..records import ModelCall
from ._adaptive import Slot, adaptive_slot
from ._cache import CachedCall, JudgeCache, open_cache
from ._cache_key import call_key, key_parameters
from ._config import JudgeConfig
from ._exchange import Exchange, FormRejected, Forms, answer_step
from ._limits import call_slot, judge_slots, run_call_limit
from ._litellm_runtime import import_litellm, litellm_for_running_loop
from ._retry import Backoff, FailureKind, classify_failure, retry_after_seconds
from ._secrets import redact, register_secrets, scrub_exception
from ._structured import Form, default_max_tokens, form_rejected, response_format
from ._types import JudgeReply, JudgeRequest, render_messages
from ._wording import credentials_hint, explain_exhausted, explain_failure

__all__ = ["LiteLLMJudge"]

logger = logging.getLogger("evaltoolkit.judge")

_TIMEOUT_GRACE_S: Final = 5.0
_TIMEOUT_RETRIES: Final = 1
#: Sent to a self-hosted server when no key is configured: most of them check none.
PLACEHOLDER_API_KEY: Final = "no-key-required"


class LiteLLMJudge:
    """A judge that asks a model, through litellm, for each step's JSON reply.

    Args:
        model: Any litellm model string: ``"openai/gpt-4o-mini"``, ``"anthropic/..."``,
            ``"ollama/llama3"``, or ``"openai/<name>"`` with ``api_base`` for any
            OpenAI-compatible server (vLLM, llama.cpp, LM Studio, ...).
        **options: The options of :class:`~evaltoolkit.judge.JudgeConfig` (``api_base``,
            ``api_key``, ``temperature``, ``max_tokens``, ``timeout``, ``max_retries``,
            ``concurrency``, ``cache``, ``structured_output``, ``extra``, ...).

    Raises:
        ConfigurationError: An unknown option, a value out of range, or a cache that cannot
            be opened.

    Example:
        >>> judge = LiteLLMJudge("openai/gpt-4o-mini", cache=False)
        >>> judge.model, judge.offline
        ('openai/gpt-4o-mini', False)
    """

    def __init__(self, model: str, **options: Any) -> None:
        self._setup(JudgeConfig.from_options(model, **options))

    def _setup(self, config: JudgeConfig) -> None:
        if config.offline:
            raise ConfigurationError(
                "'offline' is the built-in judge; use create_judge('offline') instead"
            )
        self._config = config
        self._backoff = Backoff(config.backoff_base, config.backoff_max, config.max_retry_after)
        self._cache = _open_cache(config.cache)
        self._forms = Forms(config.model, config.api_base, config.structured_output, "json_schema")
        self._stopped: str | None = None
        self._credentials_checked = False
        self._api_key = config.api_key
        self._unpriced_models: set[str] = set()
        register_secrets({"api_key": config.api_key, **config.extra})

    @classmethod
    def from_config(cls, config: JudgeConfig) -> LiteLLMJudge:
        """A judge for ``config``."""
        judge = cls.__new__(cls)
        judge._setup(config)
        return judge

    def __getstate__(self) -> dict[str, Any]:
        # Sent to another process, the judge opens its own cache and negotiates its own forms.
        return {"config": self._config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._setup(state["config"])

    @property
    def config(self) -> JudgeConfig:
        """The judge's options."""
        return self._config

    @property
    def model(self) -> str:
        """The litellm model string, recorded on every call."""
        return self._config.model

    @property
    def offline(self) -> bool:
        """Always False: this judge reads the prompts and asks a model."""
        return False

    @property
    def api_base(self) -> str | None:
        """The server's base URL, None for the provider's default."""
        return self._config.api_base

    @property
    def cache(self) -> JudgeCache | None:
        """The disk cache of replies, None when caching is off."""
        return self._cache

    @property
    def concurrency(self) -> int | None:
        """Requests this judge keeps in flight at most; None leaves it to the run."""
        return self._config.concurrency

    def __repr__(self) -> str:
        parts = [f"model={self.model!r}"]
        if self.api_base:
            parts.append(f"api_base={self.api_base!r}")
        parts.append(f"cache={self._cache!r}" if self._cache else "cache=False")
        return f"LiteLLMJudge({', '.join(parts)})"

    def redact(self, text: str) -> str:
        """Return ``text`` with every known secret, and anything shaped like a key, masked.

        Example:
            >>> LiteLLMJudge("openai/x", api_key="gsk_abc_123456", cache=False).redact(
            ...     "bad key gsk_abc_123456"
            ... )
            'bad key ***'
        """
        return redact(text)

    # -- answering a step -------------------------------------------------------------------

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one judge step with a reply that validates against the step's schema.

        Raises:
            JudgeCallError: The request failed after its retries, failed in a way retrying
                cannot fix, or the judge stopped after such a failure.
            JudgeReplyError: No reply parsed and validated, repairs included.
        """
        max_tokens = self._max_tokens(request)
        hit = self._read_cache(request, max_tokens)
        if hit is not None:
            return _cached_reply(request, self.model, hit)
        self._raise_if_stopped(request.step)
        litellm = await litellm_for_running_loop()
        self._check_credentials(litellm, request.step)
        started = time.perf_counter()
        send = functools.partial(self._send, request, max_tokens)
        exchange = await answer_step(
            request,
            send=send,
            forms=self._forms,
            max_repairs=self._config.max_repairs,
            cost_of=self._cost_of,
        )
        await self._write_cache(request, max_tokens, exchange)
        call = ModelCall(
            step=request.step,
            stage=request.stage,
            model=self.model,
            prompt=render_messages(request.messages),
            raw_reply=exchange.raw_reply,
            usage=exchange.usage,
            cost=exchange.cost,
            latency_s=time.perf_counter() - started,
            cached=False,
            attempts=exchange.attempts,
        )
        return JudgeReply(exchange.value, call)

    def _max_tokens(self, request: JudgeRequest) -> int:
        return self._config.max_tokens or request.max_tokens or default_max_tokens(request.schema)

    def _raise_if_stopped(self, step: str) -> None:
        if self._stopped is not None:
            raise JudgeCallError(
                f"judge step {step!r}: not called, because an earlier call failed in a way "
                f"no retry can fix: {self._stopped}",
                step=step,
                attempts=0,
            )

    def _stop(self, message: str) -> None:
        if self._stopped is None:
            self._stopped = message
            logger.warning("judge %s stopped calling: %s", self.model, message)

    def _check_credentials(self, litellm: Any, step: str) -> None:
        """Once: without a key for a hosted provider, stop before any request is made."""
        if self._credentials_checked:
            return
        self._credentials_checked = True
        if self._api_key is not None:
            return
        try:
            missing = litellm.validate_environment(model=self.model).get("missing_keys") or []
        except Exception:  # litellm cannot tell; let the provider answer
            return
        if not missing:
            return
        if self.api_base:
            self._api_key = PLACEHOLDER_API_KEY
            return
        message = (
            f"no API key for {self.model!r}: set {' or '.join(missing)} in the environment, "
            "or pass api_key=..."
        )
        self._stop(message)
        raise JudgeCallError(f"judge step {step!r}: {message}", step=step, attempts=0)

    # -- requests ---------------------------------------------------------------------------

    def _request_options(
        self, request: JudgeRequest, messages: list[dict[str, Any]], form: Form, max_tokens: int
    ) -> dict[str, Any]:
        config = self._config
        options: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": config.timeout,
            "num_retries": 0,
            "max_retries": 0,
            "max_tokens": max_tokens,
            **config.extra,
        }
        optional = {
            "api_base": config.api_base,
            "api_key": self._api_key,
            "temperature": config.temperature,
            "seed": config.seed,
            "response_format": response_format(form, request.step, request.schema),
        }
        options.update({name: value for name, value in optional.items() if value is not None})
        return options

    @contextlib.asynccontextmanager
    async def _slot(self) -> AsyncIterator[Slot]:
        """One request's slots: the judge's own limit, the server's adaptive limit (which
        learns from how the request ends), then the run's shared limit."""
        limit = self._config.concurrency
        async with contextlib.AsyncExitStack() as stack:
            if limit is not None:
                await stack.enter_async_context(judge_slots(self, limit))
            ceilings = [value for value in (limit, run_call_limit()) if value is not None]
            ceiling = min(ceilings, default=None)
            slot = await stack.enter_async_context(
                adaptive_slot(self.model, self.api_base, ceiling)
            )
            await stack.enter_async_context(call_slot())
            yield slot

    async def _send(
        self, request: JudgeRequest, max_tokens: int, messages: list[dict[str, Any]], form: Form
    ) -> tuple[Any, int]:
        """One completion, retried on transient failures; returns it and the requests made."""
        litellm = import_litellm()
        options = self._request_options(request, messages, form, max_tokens)
        made = 0
        timeouts = 0
        deadline_s = self._config.timeout + _TIMEOUT_GRACE_S
        while True:
            self._raise_if_stopped(request.step)
            made += 1
            slot: Slot | None = None
            try:
                async with self._slot() as slot, asyncio.timeout(deadline_s):
                    return await litellm.acompletion(**options), made
            except Exception as error:
                scrub_exception(error)
                failure = classify_failure(error)
                if form != "off" and form_rejected(error, failure.status):
                    raise FormRejected(made) from error
                # A request that timed out waiting behind others the server could not serve
                # says nothing of this one: only timeouts at a settled limit count.
                timeouts += failure.label == "timeout" and not (slot is not None and slot.crowded)
                self._give_up_unless_retryable(request.step, failure, error, made, timeouts)
                delay = self._backoff.delay(made - 1, retry_after_seconds(error))
                logger.debug(
                    "judge step %r: %s on attempt %d; retrying in %.2f s",
                    request.step,
                    failure.label,
                    made,
                    delay,
                )
                await asyncio.sleep(delay)

    def _give_up_unless_retryable(
        self, step: str, failure: FailureKind, error: BaseException, made: int, timeouts: int
    ) -> None:
        if not failure.retryable:
            hint = credentials_hint(import_litellm(), self.model, self._config.api_key is not None)
            message = explain_failure(
                step=step,
                model=self.model,
                api_base=self.api_base,
                failure=failure,
                error=error,
                hint=hint,
            )
            if failure.fatal:
                self._stop(message.removeprefix(f"judge step {step!r}: "))
            raise JudgeCallError(message, step=step, attempts=made) from error
        if made > self._config.max_retries or timeouts > _TIMEOUT_RETRIES:
            raise JudgeCallError(
                explain_exhausted(
                    step=step, model=self.model, failure=failure, error=error, failures=made
                ),
                step=step,
                attempts=made,
            ) from error

    def _cost_of(self, response: Any) -> float | None:
        """The call's cost in USD from litellm's price map; None when the model is not priced."""
        hidden = getattr(response, "_hidden_params", None)
        computed = hidden.get("response_cost") if isinstance(hidden, dict) else None
        if isinstance(computed, int | float) and not isinstance(computed, bool):
            return float(computed)  # litellm priced the response already, as it returned it
        priced_as = str(getattr(response, "model", None) or self.model)
        if priced_as in self._unpriced_models:
            return None
        try:
            cost = import_litellm().completion_cost(completion_response=response)
        except Exception as error:  # a model missing from the price map: cost unknown, not 0
            if type(error).__name__ == "ModelNotMappedError":
                self._unpriced_models.add(priced_as)
            return None
        return None if cost is None else float(cost)

    # -- cache ------------------------------------------------------------------------------

    def _key(self, request: JudgeRequest, max_tokens: int, form: Form) -> str:
        config = self._config
        return call_key(
            model=self.model,
            api_base=config.api_base,
            step=request.step,
            parameters=key_parameters(
                temperature=config.temperature,
                seed=config.seed,
                max_tokens=max_tokens,
                extra=config.extra,
            ),
            form=form,
            schema=request.schema,
            messages=request.messages,
        )

    def _read_cache(self, request: JudgeRequest, max_tokens: int) -> CachedCall | None:
        if self._cache is None:
            return None
        try:
            for form in self._forms.candidates():
                hit = self._cache.get(self._key(request, max_tokens, form))
                if hit is not None:
                    return hit
        except Exception as error:  # a damaged or locked cache must not fail the call
            logger.warning("judge cache read failed (%s); asking the model", error)
        return None

    async def _write_cache(self, request: JudgeRequest, max_tokens: int, outcome: Exchange) -> None:
        cache = self._cache
        if cache is None:
            return
        store = functools.partial(
            cache.put,
            self._key(request, max_tokens, outcome.form),
            model=self.model,
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


def _open_cache(cache: bool | str | Path | JudgeCache) -> JudgeCache | None:
    if isinstance(cache, JudgeCache):
        return cache
    if cache is False:
        return None
    return open_cache(None if cache is True else cache)


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
