"""The only code in evaltoolkit that talks to models.

:func:`create_judge` returns the built-in offline judge for ``model=None`` or ``"offline"``,
and a litellm-backed judge for any other litellm model string.
"""

from __future__ import annotations

from typing import Any

from ._cache import JudgeCache, default_cache_dir
from ._limits import call_slot, shared_call_limit
from ._offline_judge import OFFLINE_MODEL, OfflineJudge
from ._types import Judge, JudgeReply, JudgeRequest, render_messages

__all__ = [
    "OFFLINE_MODEL",
    "Judge",
    "JudgeCache",
    "JudgeReply",
    "JudgeRequest",
    "LiteLLMJudge",
    "OfflineJudge",
    "call_slot",
    "create_judge",
    "default_cache_dir",
    "render_messages",
    "shared_call_limit",
]


def __getattr__(name: str) -> Any:
    # LiteLLMJudge is imported on first access, keeping ``import evaltoolkit`` light.
    if name == "LiteLLMJudge":
        from ._litellm import LiteLLMJudge

        return LiteLLMJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def create_judge(model: str | Judge | None = None, **options: Any) -> Judge:
    """Return a judge for ``model``.

    Args:
        model: A litellm model string (``"openai/gpt-4o-mini"``, ``"ollama/llama3"``,
            ``"openai/<name>"`` with ``api_base``), ``"offline"`` or None for the built-in
            judge, or a judge object, returned as it is.
        **options: Judge options (``api_base``, ``api_key``, ``temperature``, ``seed``,
            ``timeout``, ``max_retries``, ``concurrency``, ``cache``, other litellm keyword
            arguments). The offline judge takes none that matter and ignores them.

    Example:
        >>> create_judge().model
        'offline'
    """
    if model is None or model == OFFLINE_MODEL:
        return OfflineJudge()
    if not isinstance(model, str):
        return model
    from ._litellm import LiteLLMJudge

    return LiteLLMJudge(model, **options)
