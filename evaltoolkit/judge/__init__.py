"""The judge layer: the only code in evaltoolkit that talks to models. It knows no scorer.

A scorer sends a :class:`JudgeRequest` (messages, the reply's JSON schema, the typed inputs
and the step's offline function) and gets a :class:`JudgeReply` (the validated reply and the
record of the call). :func:`create_judge` returns the built-in offline judge for
``model=None`` or ``"offline"`` (it answers each step with the step's own offline function),
and a litellm-backed judge for any other litellm model string.

Every model judge gets the same judge services: the disk cache, retries with backoff that
honours ``Retry-After`` (never retrying refused credentials), the fail-fast stop after a
failure no retry can fix, the call limits, single-flight (identical calls in flight at the
same moment are sent once, the others recorded as cache hits) and the record of each call's
usage, cost and attempts; the litellm backend holds only what is litellm's, and is served
by the same :class:`ServicedJudge` as any other backend. To put another model behind them,
write a :class:`JudgeBackend` (a ``model`` name and an async ``send(request) ->
BackendReply``, one request each) and pass it as ``model=`` to any scorer
or to :func:`create_judge`: it is wrapped in a :class:`ServicedJudge`, which takes the service
options (``cache``, ``concurrency``, ``max_retries``, ``timeout``, ``backoff_base``,
``backoff_max``, ``max_retry_after``). An object implementing :class:`Judge` itself
(``complete``) is used as it is; given service options, it is wrapped the same way.

Layers of the package: records -> judge (model calls only) -> scorers (steps, offline answers,
formulas) -> runner -> meta -> views (plots, widgets, report) -> cli. Each imports only the
ones before it.
"""

from __future__ import annotations

from .._internal import deprecation as _deprecation
from ._backend import BackendReply, JudgeBackend, ServicedJudge
from ._cache import JudgeCache
from ._config import JudgeConfig
from ._create import create_judge
from ._shards import merge_cache_shards
from ._types import Judge, JudgeReply, JudgeRequest

__all__ = [
    "BackendReply",
    "Judge",
    "JudgeBackend",
    "JudgeCache",
    "JudgeConfig",
    "JudgeReply",
    "JudgeRequest",
    "ServicedJudge",
    "create_judge",
    "merge_cache_shards",
]

# Public in 0.1: handed on with a DeprecationWarning for one release (helpers of the other
# layers, now in ``judge._internal``).
__getattr__ = _deprecation.delisted_names(
    __name__,
    {
        name: _deprecation.Delisted("evaltoolkit.judge._internal")
        for name in (
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
        )
    },
)
