"""The judge layer: the only code in evaltoolkit that talks to models. It knows no scorer.

A scorer sends a :class:`JudgeRequest` (messages, the reply's JSON schema, the typed inputs
and the step's offline function) and gets a :class:`JudgeReply` (the validated reply and the
record of the call). :func:`create_judge` returns the built-in offline judge for
``model=None`` or ``"offline"`` (it answers each step with the step's own offline function),
and a litellm-backed judge (:class:`LiteLLMJudge`) for any other litellm model string.

Every model judge gets the same judge services: the disk cache, retries with backoff that
honours ``Retry-After`` (never retrying refused credentials), the fail-fast stop after a
failure no retry can fix, the call limits, single-flight (identical calls in flight at the
same moment are sent once, the others recorded as cache hits) and the record of each call's
usage, cost and attempts. ``LiteLLMJudge`` holds only what is litellm's. To put another model
behind them, write a :class:`JudgeBackend` (a ``model`` name and an async
``send(request) -> BackendReply``, one request each) and pass it as ``model=`` to any scorer
or to :func:`create_judge`: it is wrapped in a :class:`ServicedJudge`, which takes the service
options (``cache``, ``concurrency``, ``max_retries``, ``timeout``, ``backoff_base``,
``backoff_max``, ``max_retry_after``). An object implementing :class:`Judge` itself
(``complete``) is used as it is; given service options, it is wrapped the same way.

Layers of the package: records -> judge (model calls only) -> scorers (steps, offline answers,
formulas) -> runner -> meta -> views (plots, widgets, report) -> cli. Each imports only the
ones before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ._backend import SERVICE_OPTIONS, BackendReply, JudgeBackend, ServicedJudge
from ._cache import (
    JudgeCache,
    cache_file_path,
    default_cache_dir,
    format_bytes,
    max_bytes_from_environment,
    parse_duration,
    parse_size,
)
from ._config import (
    EXTRA_HINT,
    OFFLINE_MODEL,
    STRUCTURED_OUTPUT_MODES,
    JudgeConfig,
    judge_option_names,
)
from ._limits import call_slot, shared_call_limit
from ._offline_judge import OfflineJudge
from ._pricing import (
    Price,
    cached_reply_value,
    completion_budget,
    count_message_tokens,
    minimal_reply_tokens,
    price_of,
    require_price,
    tokenizer_note,
)
from ._repeat import current_repeat, scoring_repeat
from ._shards import cache_shard, merge_cache_shards
from ._structured import default_max_tokens
from ._types import Judge, JudgeReply, JudgeRequest, OfflineAnswer, render_messages

if TYPE_CHECKING:
    from ._litellm import LiteLLMJudge

__all__ = [
    "EXTRA_HINT",
    "OFFLINE_MODEL",
    "SERVICE_OPTIONS",
    "STRUCTURED_OUTPUT_MODES",
    "BackendReply",
    "Judge",
    "JudgeBackend",
    "JudgeCache",
    "JudgeConfig",
    "JudgeReply",
    "JudgeRequest",
    "LiteLLMJudge",
    "OfflineAnswer",
    "OfflineJudge",
    "Price",
    "ServicedJudge",
    "cache_file_path",
    "cache_shard",
    "cached_reply_value",
    "call_slot",
    "completion_budget",
    "count_message_tokens",
    "create_judge",
    "current_repeat",
    "default_cache_dir",
    "default_max_tokens",
    "format_bytes",
    "judge_option_names",
    "max_bytes_from_environment",
    "merge_cache_shards",
    "minimal_reply_tokens",
    "parse_duration",
    "parse_size",
    "price_of",
    "render_messages",
    "require_price",
    "scoring_repeat",
    "shared_call_limit",
    "tokenizer_note",
]


def __getattr__(name: str) -> Any:
    # LiteLLMJudge is imported on first access, keeping ``import evaltoolkit`` light.
    if name == "LiteLLMJudge":
        from ._litellm import LiteLLMJudge

        return LiteLLMJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def create_judge(
    model: str | Judge | JudgeBackend | JudgeConfig | None = None, **options: Any
) -> Judge:
    """Return a judge for ``model``.

    Args:
        model: A litellm model string (``"openai/gpt-4o-mini"``, ``"ollama/llama3"``,
            ``"openai/<name>"`` with ``api_base``), ``"offline"`` or None for the built-in
            judge, a :class:`JudgeConfig`, a :class:`JudgeBackend` (wrapped in the judge
            services, :class:`ServicedJudge`), or a judge object, returned as it is unless
            service options are given (then wrapped like a backend; a ``LiteLLMJudge`` or
            ``ServicedJudge`` has its services already and takes none).
        **options: The options of :class:`JudgeConfig` (``api_base``, ``api_key``,
            ``temperature``, ``max_tokens``, ``timeout``, ``max_retries``, ``concurrency``,
            ``cache``, ``structured_output``, ``extra``, ...); for a backend or judge object,
            only the service options (:data:`SERVICE_OPTIONS`).

    Raises:
        ConfigurationError: An unknown option (the message names the closest valid one), a
            value out of range, a model-only option for the offline judge, or an object that
            is neither a judge nor a backend.

    Example:
        >>> create_judge().model
        'offline'
        >>> create_judge("offline", temperature=0.5)
        Traceback (most recent call last):
        ...
        evaltoolkit.errors.ConfigurationError: the offline judge takes no temperature: these \
options are for a model judge; pass a model (model='provider/name', or --model on the command \
line) to use one, or drop them
    """
    if isinstance(model, JudgeConfig):
        config = model.replace(**options) if options else model
    elif model is None or isinstance(model, str):
        config = JudgeConfig.from_options(model, **options)
    elif isinstance(model, Judge):
        if not options:
            return model
        from ._litellm import LiteLLMJudge

        if isinstance(model, LiteLLMJudge | ServicedJudge):
            raise ConfigurationError(
                f"judge options ({', '.join(sorted(options))}) cannot be applied to a judge "
                "that has its judge services already; set them when creating it"
            )
        return ServicedJudge(model, **options)
    elif isinstance(model, JudgeBackend):
        return ServicedJudge(model, **options)
    else:
        raise ConfigurationError(
            f"model must be a litellm model string, 'offline', a JudgeConfig, a judge "
            f"(model, offline and an async complete(request)) or a judge backend (model and "
            f"an async send(request)), got {model!r}"
        )
    if config.offline:
        return OfflineJudge()
    from ._litellm import LiteLLMJudge

    return LiteLLMJudge.from_config(config)
