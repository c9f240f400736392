"""The judge layer's helpers for the other layers: not public, and free to change.

The runner's estimate (prices, token counts, reply budgets), the command line's cache
commands, the scorers' prompt rendering and the repeat counter read these. Any module of
evaltoolkit may import ``evaltoolkit.judge._internal`` (the layering test allows it); users
import from :mod:`evaltoolkit.judge`. ``LiteLLMJudge`` is imported on first access, so that
importing this module never imports litellm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._backend import SERVICE_OPTIONS
from ._cache import (
    cache_file_path,
    default_cache_dir,
    format_bytes,
    max_bytes_from_environment,
    parse_duration,
    parse_size,
)
from ._config import EXTRA_HINT, OFFLINE_MODEL, STRUCTURED_OUTPUT_MODES, judge_option_names
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
from ._run_scope import call_slot, current_repeat, scoring_repeat, shared_call_limit
from ._shards import cache_shard
from ._structured import default_max_tokens
from ._types import OfflineAnswer, render_messages

if TYPE_CHECKING:
    from ._litellm import LiteLLMJudge

__all__ = [
    "EXTRA_HINT",
    "OFFLINE_MODEL",
    "SERVICE_OPTIONS",
    "STRUCTURED_OUTPUT_MODES",
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
    "current_repeat",
    "default_cache_dir",
    "default_max_tokens",
    "format_bytes",
    "judge_option_names",
    "max_bytes_from_environment",
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
    if name == "LiteLLMJudge":
        from ._litellm import LiteLLMJudge

        return LiteLLMJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
