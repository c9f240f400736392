"""What a failed judge call says: what happened, and what to change.

Provider errors are often several lines, the useful one last ("1 validation error:" and then
the field at fault). :func:`provider_detail` keeps the lines that say what to change, up to a
sane length, with secrets masked.
"""

from __future__ import annotations

import re
from typing import Any, Final

from ._retry import CONTEXT_EXCEEDED, UNREADABLE_REPLY, FailureKind
from ._secrets import redact

__all__ = ["credentials_hint", "explain_exhausted", "explain_failure", "provider_detail"]

_DETAIL_CHARS: Final = 600
_NOISE: Final = re.compile(
    r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)?(?:\w+Exception\s*-\s*)?", re.IGNORECASE
)
_SKIPPED_LINES: Final = ("give feedback", "get help", "litellm.info", "turn_on_debug")


def provider_detail(error: BaseException) -> str:
    """The provider's message in one line: every informative line joined, masked, shortened.

    Example:
        >>> provider_detail(ValueError(
        ...     "litellm.BadRequestError: 1 validation error:\\n"
        ...     "  ('body', 'response_format', 'type'): Input should be 'text' or 'json_object'"))
        "1 validation error: ('body', 'response_format', 'type'): Input should be 'text' or \
'json_object'"
    """
    lines = [line.strip() for line in str(error).splitlines()]
    kept = [
        line
        for line in lines
        if line and not any(line.lower().startswith(skip) for skip in _SKIPPED_LINES)
    ]
    text = " ".join(kept) or type(error).__name__
    text = _NOISE.sub("", text, count=1).strip() or text
    text = redact(text)
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 1] + "…"


def credentials_hint(litellm: Any, model: str, api_key_given: bool) -> str:
    """What to do about refused or missing credentials: the variable to set, or the key given."""
    if api_key_given:
        return "check the api_key given to the judge"
    try:
        missing = litellm.validate_environment(model=model).get("missing_keys") or []
    except Exception:
        missing = []
    if missing:
        return f"set {' or '.join(missing)} in the environment, or pass api_key=..."
    try:
        provider = str(litellm.get_llm_provider(model)[1])
    except Exception:
        return "check the provider's API key variable, or pass api_key=..."
    return f"check the key in {provider.upper()}_API_KEY, or pass api_key=..."


def explain_failure(
    *,
    step: str,
    model: str,
    api_base: str | None,
    failure: FailureKind,
    error: BaseException,
    hint: str,
) -> str:
    """The message of a call that failed in a way retrying cannot fix."""
    where = f" at {api_base}" if api_base else ""
    detail = provider_detail(error)
    prefix = f"judge step {step!r}: "
    if failure.label == "unknown provider":
        return (
            f"{prefix}litellm does not know the provider of model {model!r}: write it as "
            "'provider/model', e.g. 'openai/gpt-4o-mini' or 'anthropic/claude-...'"
        )
    if failure.label == "connection refused":
        target = api_base or "the provider's default URL"
        return (
            f"{prefix}could not connect to {target} for {model!r} (connection refused): is "
            f"the server running, and is api_base right? ({detail})"
        )
    if failure.label == UNREADABLE_REPLY:
        return (
            f"{prefix}the server{where} answered {model!r} with a body that is not a "
            f"chat-completion JSON reply ({detail}); is api_base the OpenAI-compatible "
            "endpoint (often ending in /v1), and not a web page or a proxy's login page? "
            "Not retried: the same URL would answer the same"
        )
    if failure.fatal and failure.status != 404:
        status = f" (HTTP {failure.status})" if failure.status else ""
        return (
            f"{prefix}the provider refused the credentials for {model!r}{where}{status}; "
            f"{hint}. Provider said: {detail}"
        )
    if failure.status == 404:
        return (
            f"{prefix}model {model!r} was not found{where} (HTTP 404): check the model name "
            f"(litellm form 'provider/model') and api_base. Provider said: {detail}"
        )
    if failure.label == CONTEXT_EXCEEDED:
        status = f" (HTTP {failure.status})" if failure.status else ""
        return (
            f"{prefix}the prompt does not fit the context of {model!r}{where}{status}: shorten "
            "the input (a long source), use a model with a longer context or, for a local "
            "server, give each request more context (llama.cpp's llama-server divides -c "
            f"among its -np parallel slots: raise -c or lower -np). Provider said: {detail}"
        )
    if failure.status in (400, 422):
        return (
            f"{prefix}the provider rejected the request to {model!r}{where} "
            f"(HTTP {failure.status}): {detail}. Check the model name and the judge's options; "
            "extra={'drop_params': True} drops parameters the model does not support "
            "(temperature=None sends no temperature)"
        )
    return f"{prefix}the call to {model!r}{where} failed ({failure.label}): {detail}"


def explain_exhausted(
    *, step: str, model: str, failure: FailureKind, error: BaseException, failures: int
) -> str:
    """The message of a call that kept failing with errors worth retrying."""
    return (
        f"judge step {step!r}: the call to {model!r} failed {failures} times in a row; last "
        f"error: {failure.label}: {provider_detail(error)}. Try again later, lower concurrency, "
        "or raise max_retries or timeout (--max-retries, --timeout on the command line)"
    )
