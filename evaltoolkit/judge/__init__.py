"""The judge layer: the only code in evaltoolkit that talks to models. It knows no scorer.

A scorer sends a :class:`JudgeRequest` (messages, the reply's JSON schema, the typed inputs
and the step's offline function) and gets a :class:`JudgeReply` (the validated reply and the
record of the call). :func:`create_judge` returns the built-in offline judge for
``model=None`` or ``"offline"`` (it answers each step with the step's own offline function),
and a litellm-backed judge for any other litellm model string.

Layers of the package: records -> judge (model calls only) -> scorers (steps, offline answers,
formulas) -> runner -> meta -> views (plots, widgets, report) -> cli. Each imports only the
ones before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
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
from ._shards import cache_shard, merge_cache_shards
from ._structured import default_max_tokens
from ._types import Judge, JudgeReply, JudgeRequest, OfflineAnswer, render_messages

if TYPE_CHECKING:
    from ._litellm import LiteLLMJudge

__all__ = [
    "EXTRA_HINT",
    "OFFLINE_MODEL",
    "STRUCTURED_OUTPUT_MODES",
    "Judge",
    "JudgeCache",
    "JudgeConfig",
    "JudgeReply",
    "JudgeRequest",
    "LiteLLMJudge",
    "OfflineAnswer",
    "OfflineJudge",
    "Price",
    "cache_file_path",
    "cache_shard",
    "cached_reply_value",
    "call_slot",
    "completion_budget",
    "count_message_tokens",
    "create_judge",
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
    "shared_call_limit",
    "tokenizer_note",
]


def __getattr__(name: str) -> Any:
    # LiteLLMJudge is imported on first access, keeping ``import evaltoolkit`` light.
    if name == "LiteLLMJudge":
        from ._litellm import LiteLLMJudge

        return LiteLLMJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def create_judge(model: str | Judge | JudgeConfig | None = None, **options: Any) -> Judge:
    """Return a judge for ``model``.

    Args:
        model: A litellm model string (``"openai/gpt-4o-mini"``, ``"ollama/llama3"``,
            ``"openai/<name>"`` with ``api_base``), ``"offline"`` or None for the built-in
            judge, a :class:`JudgeConfig`, or a judge object, returned as it is.
        **options: The options of :class:`JudgeConfig` (``api_base``, ``api_key``,
            ``temperature``, ``max_tokens``, ``timeout``, ``max_retries``, ``concurrency``,
            ``cache``, ``structured_output``, ``extra``, ...).

    Raises:
        ConfigurationError: An unknown option (the message names the closest valid one), a
            value out of range, or a model-only option for the offline judge.

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
    else:
        if options:
            raise ConfigurationError(
                f"judge options ({', '.join(sorted(options))}) cannot be applied to a judge "
                "object; set them when creating it"
            )
        return model
    if config.offline:
        return OfflineJudge()
    from ._litellm import LiteLLMJudge

    return LiteLLMJudge.from_config(config)
