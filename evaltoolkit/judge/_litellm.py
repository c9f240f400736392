"""The model judge: every judge step answered by a model through ``litellm.acompletion``.

:class:`LiteLLMBackend` holds what is litellm's: the request's options, the JSON form the
server accepts (:mod:`._structured`, negotiated in :mod:`._exchange`), the cache key of a
litellm call (:mod:`._cache_key`), the credentials check, which errors mean the server
rejected the JSON form, and the cost from litellm's price map. :class:`LiteLLMJudge` is that
backend served by :class:`~._backend.ServicedJudge`, as any backend is: the cache, retries
with backoff, the fail-fast stop, the call limits and single-flight are the judge services
(:mod:`._services`). litellm itself is reached only through :mod:`._litellm_runtime`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..errors import ConfigurationError, JudgeCallError
from ._adaptive import adaptive_limit
from ._backend import BackendReply, ServicedJudge
from ._cache_key import call_keys, key_parameters, model_identity
from ._config import JudgeConfig
from ._exchange import FormRejected, Forms, answer_step
from ._grammar_server import bounded_schema, grammar_server, reply_budget
from ._litellm_runtime import import_litellm, litellm_for_running_loop, start_litellm_import
from ._retry import Backoff, FailureKind
from ._secrets import redact, register_secrets
from ._services import Answered, JudgeServices
from ._structured import Form, default_max_tokens, form_rejected, response_format
from ._types import JudgeRequest
from ._wording import credentials_hint

__all__ = ["LiteLLMBackend", "LiteLLMJudge"]

logger = logging.getLogger("evaltoolkit.judge")

#: Sent to a self-hosted server when no key is configured: most of them check none.
PLACEHOLDER_API_KEY: Final = "no-key-required"
# What litellm's completion_cost says of a model it cannot price.
_UNPRICED_PHRASES: Final = ("not mapped", "isn't mapped", "provider not provided")


class LiteLLMJudge(ServicedJudge):
    """A judge that asks a model, through litellm, for each step's JSON reply.

    A :class:`LiteLLMBackend` served by the judge services, as any backend is.

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
        self._serve(JudgeConfig.from_options(model, **options))

    def _serve(self, config: JudgeConfig) -> None:
        self._litellm = LiteLLMBackend(config)
        self._setup(self._litellm, config)

    def __getstate__(self) -> dict[str, Any]:
        # Sent to another process, the judge opens its own cache and negotiates its own forms.
        return {"config": self._config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._serve(state["config"])

    @classmethod
    def from_config(cls, config: JudgeConfig) -> LiteLLMJudge:
        """A judge for ``config``."""
        judge = cls.__new__(cls)
        judge._serve(config)
        return judge

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

    def __repr__(self) -> str:
        parts = [f"model={self.model!r}"]
        if self.api_base:
            parts.append(f"api_base={self.api_base!r}")
        cache = self._services.cache
        parts.append(f"cache={cache!r}" if cache else "cache=False")
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

    def _max_tokens(self, request: JudgeRequest) -> int:
        return self._litellm.max_tokens(request)


class LiteLLMBackend:
    """What is litellm's in a model judge: requests, JSON forms, credentials, prices, keys.

    Served by :class:`~evaltoolkit.judge.ServicedJudge` (``LiteLLMJudge`` is that), which
    reads its optional backend attributes: ``api_base``, ``cache_keys`` and ``exchange``.

    Args:
        config: The judge's options; ``config.model`` is the litellm model string.

    Raises:
        ConfigurationError: ``config`` is the offline judge's.

    Example:
        >>> backend = LiteLLMBackend(JudgeConfig(model="openai/x", api_base="http://h:1/v1"))
        >>> backend.model, backend.api_base
        ('openai/x', 'http://h:1/v1')
    """

    def __init__(self, config: JudgeConfig) -> None:
        if config.offline:
            raise ConfigurationError(
                "'offline' is the built-in judge; use create_judge('offline') instead"
            )
        self._setup(config)

    def _setup(self, config: JudgeConfig) -> None:
        self._config = config
        self._forms = Forms(config.model, config.api_base, config.structured_output, "json_schema")
        self._credentials_checked = False
        self._api_key = config.api_key
        self._unpriced_models: set[str] = set()
        self._identity = model_identity(config.model, config.api_base, config.cache_as)
        register_secrets({"api_key": config.api_key, **config.extra})
        start_litellm_import()  # its first call need not wait for the import

    def __getstate__(self) -> dict[str, Any]:
        # Sent to another process, the backend negotiates its own forms.
        return {"config": self._config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._setup(state["config"])

    @property
    def model(self) -> str:
        """The litellm model string."""
        return self._config.model

    @property
    def api_base(self) -> str | None:
        """The server's base URL, None for the provider's default."""
        return self._config.api_base

    def __repr__(self) -> str:
        shown = f", api_base={self.api_base!r}" if self.api_base else ""
        return f"LiteLLMBackend(model={self.model!r}{shown})"

    # -- answering a step -------------------------------------------------------------------

    async def exchange(self, request: JudgeRequest, services: JudgeServices) -> Answered:
        """Answer ``request``, each request made through ``services`` (slots, retries).

        Raises:
            JudgeCallError: A request failed after its retries, or no key is configured for
                a hosted provider (the services then stop).
            JudgeReplyError: No reply parsed and validated, repairs included.
        """
        max_tokens = self.max_tokens(request)
        sent_schema, sent_max_tokens = request.schema, max_tokens
        server = await grammar_server(self._config.api_base)
        if server is not None:  # llama.cpp: its slots, and a grammar that closes every reply
            adaptive_limit(self.model, self.api_base).announce_slots(server.total_slots)
            if self._config.max_tokens is None:
                sent_schema = bounded_schema(request.schema)
                sent_max_tokens = reply_budget(server, sent_schema, request.messages)
        litellm = await litellm_for_running_loop()
        self._check_credentials(litellm, request.step, services)
        send = functools.partial(self._send, request, sent_max_tokens, services, schema=sent_schema)
        exchange = await answer_step(
            request,
            send=send,
            forms=self._forms,
            max_repairs=self._config.max_repairs,
            cost_of=self._cost_of,
        )
        return Answered(
            value=exchange.value,
            raw_reply=exchange.raw_reply,
            usage=exchange.usage,
            cost=exchange.cost,
            attempts=exchange.attempts,
            cache_key=self._key(request, max_tokens, exchange.form),
        )

    async def send(self, request: JudgeRequest) -> BackendReply:
        """Answer ``request`` alone: no cache, no retries, no call limit of its own.

        Raises:
            JudgeCallError: A request failed.
            JudgeReplyError: No reply parsed and validated, repairs included.
        """
        config = self._config
        bare = JudgeServices(
            model=config.model,
            cache=None,
            max_retries=0,
            backoff=Backoff(config.backoff_base, config.backoff_max, config.max_retry_after),
            timeout=config.timeout,
            concurrency=None,
            api_base=config.api_base,
        )
        answered = await self.exchange(request, bare)
        return BackendReply(answered.value, answered.raw_reply, answered.usage, answered.cost)

    def max_tokens(self, request: JudgeRequest) -> int:
        """The ``max_tokens`` sent with ``request``: the configured one, the step's, or one
        sized from the reply schema."""
        return self._config.max_tokens or request.max_tokens or default_max_tokens(request.schema)

    def _check_credentials(self, litellm: Any, step: str, services: JudgeServices) -> None:
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
        services.stop(message)
        raise JudgeCallError(f"judge step {step!r}: {message}", step=step, attempts=0)

    # -- requests ---------------------------------------------------------------------------

    def _request_options(
        self,
        request: JudgeRequest,
        messages: list[dict[str, Any]],
        form: Form,
        max_tokens: int,
        schema: Mapping[str, Any],
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
            # Each repeat draws its own sample from providers that honour a seed.
            "seed": None if config.seed is None else config.seed + request.repeat,
            "response_format": response_format(form, request.step, schema),
        }
        options.update({name: value for name, value in optional.items() if value is not None})
        return options

    async def _send(
        self,
        request: JudgeRequest,
        max_tokens: int,
        services: JudgeServices,
        messages: list[dict[str, Any]],
        form: Form,
        *,
        schema: Mapping[str, Any],
    ) -> tuple[Any, int]:
        """One completion, retried by the services; returns it and the requests made."""
        litellm = import_litellm()
        options = self._request_options(request, messages, form, max_tokens, schema)

        def form_was_rejected(error: BaseException, failure: FailureKind, made: int) -> None:
            if form != "off" and form_rejected(error, failure.status):
                raise FormRejected(made) from error

        return await services.request(
            request.step,
            functools.partial(litellm.acompletion, **options),
            on_failure=form_was_rejected,
            hint=self.credentials_hint,
        )

    def credentials_hint(self) -> str:
        """What to do about refused credentials, for this model."""
        return credentials_hint(import_litellm(), self.model, self._config.api_key is not None)

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
            # Said again for every reply, at milliseconds a time: remember the model.
            text = str(error)[:300].lower()
            if type(error).__name__ == "ModelNotMappedError" or any(
                phrase in text for phrase in _UNPRICED_PHRASES
            ):
                self._unpriced_models.add(priced_as)
            return None
        return None if cost is None else float(cost)

    # -- cache key --------------------------------------------------------------------------

    def cache_keys(self, request: JudgeRequest, *, every: bool) -> list[str]:
        """Every key a reply to ``request`` may be cached under, the one it would get now
        first: each JSON form, then (without ``cache_as``) the keys written before the port
        was left out of them. With ``every`` False, the first alone (single-flight's key)."""
        max_tokens = self.max_tokens(request)
        model, server = self._identity
        if not every:
            return self._keys_of(request, max_tokens, [(model, server, self._forms.current())])
        forms = self._forms.candidates()
        variants: list[tuple[str, str | None, str]] = [(model, server, form) for form in forms]
        config = self._config
        if config.cache_as is None and config.api_base and server != config.api_base:
            variants += [(self.model, config.api_base, form) for form in forms]
        return self._keys_of(request, max_tokens, variants)

    def _key(self, request: JudgeRequest, max_tokens: int, form: Form) -> str:
        model, server = self._identity
        return self._keys_of(request, max_tokens, [(model, server, form)])[0]

    def _keys_of(
        self,
        request: JudgeRequest,
        max_tokens: int,
        variants: Sequence[tuple[str, str | None, str]],
    ) -> list[str]:
        config = self._config
        return call_keys(
            variants,
            step=request.step,
            parameters=key_parameters(
                temperature=config.temperature,
                seed=config.seed,
                max_tokens=max_tokens,
                extra=config.extra,
                repeat=request.repeat,
            ),
            schema=request.schema,
            messages=request.messages,
        )
