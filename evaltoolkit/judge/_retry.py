"""Which failed model calls to retry, and how long to wait before the next try.

Errors are classified by HTTP status where the exception carries one (``status_code`` on
litellm's and openai's exceptions), else by exception class name and message, so this module
does not need to import litellm. Rate limits (429), server errors (5xx), timeouts and dropped
connections are retried; bad requests are not, nor a prompt longer than the model's context
(whatever status the server gives it: llama.cpp's server says so with HTTP 500). Some failures
say that no call of the judge can succeed: refused credentials (401, 403, a missing key), an
unknown provider or model, a server that refuses connections, a server that answers with a
body that is not JSON (a web page at the wrong URL). Those are *fatal*: the judge stops
calling after the first one.
"""

from __future__ import annotations

import email.utils
import json
import random
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from ..errors import ConfigurationError

__all__ = [
    "CONTEXT_EXCEEDED",
    "UNREADABLE_REPLY",
    "Backoff",
    "FailureKind",
    "classify_failure",
    "exception_chain",
    "retry_after_seconds",
]

_RETRYABLE_STATUSES: Final = frozenset({408, 409, 425, 429})
_TIMEOUT_CLASS_NAMES: Final = frozenset({"Timeout", "APITimeoutError", "TimeoutError"})
_CONNECTION_CLASS_NAMES: Final = frozenset(
    {
        "APIConnectionError",
        "ConnectionError",
        "ServerDisconnectedError",
        "ClientConnectionError",
        "ClientOSError",
        "TransportError",
        "RemoteProtocolError",
        "IncompleteRead",
    }
)
_SERVER_CLASS_NAMES: Final = frozenset(
    {"InternalServerError", "ServiceUnavailableError", "BadGatewayError", "APIError"}
)
_FATAL_STATUSES: Final = frozenset({401, 403, 404})
_AUTH_CLASS_NAMES: Final = frozenset(
    {"AuthenticationError", "PermissionDeniedError", "PermissionError"}
)
_MISSING_CREDENTIAL_PHRASES: Final = (
    "missing credentials",
    "api key",
    "api_key client option must be set",
    "no api key",
)
_UNKNOWN_PROVIDER_PHRASE: Final = "llm provider not provided"
_REFUSED_CLASS_NAMES: Final = frozenset({"ConnectionRefusedError", "ClientConnectorDNSError"})
#: What providers and local servers say when a prompt does not fit the model's context.
_CONTEXT_PHRASES: Final = (
    "context size has been exceeded",  # llama.cpp's server (HTTP 500)
    "exceeds the available context size",  # llama.cpp's server, later versions
    "exceed_context_size",
    "maximum context length",
    "context_length_exceeded",
    "context window",
    "prompt is too long",
)
#: The label of a prompt longer than the model's context.
CONTEXT_EXCEEDED = "prompt longer than the model's context"
#: The label of a reply the server sent as a success whose body is not JSON (a web page, a
#: proxy's login page, bytes that are not UTF-8).
UNREADABLE_REPLY = "reply not JSON"
# What litellm says of a successful response it cannot read as a completion.
_INVALID_RESPONSE_PHRASE: Final = "invalid response from llm endpoint"
# httpx's error for an HTTP error status: its presence means the server said it failed.
_STATUS_ERROR_CLASS_NAMES: Final = frozenset({"HTTPStatusError"})


@dataclass(frozen=True, slots=True)
class FailureKind:
    """What a failed call was, in words, and whether trying again may help.

    Attributes:
        label: A short description (``"rate limited (HTTP 429)"``, ``"timeout"``, ...).
        retryable: Whether the call should be retried.
        status: The HTTP status, when the error carries one.
        fatal: Whether no later call of the same judge can succeed either (refused
            credentials, unknown provider or model, a server refusing connections).
    """

    label: str
    retryable: bool
    status: int | None = None
    fatal: bool = False


def _status_of(error: BaseException) -> int | None:
    status = getattr(error, "status_code", None)
    if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
        return status
    return None


def exception_chain(error: BaseException) -> list[BaseException]:
    """``error`` and every exception it was caused by or raised during, without repeats."""
    chain: list[BaseException] = []
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if any(current is seen for seen in chain):
            continue
        chain.append(current)
        pending.extend(
            linked for linked in (current.__cause__, current.__context__) if linked is not None
        )
    return chain


def _class_names(error: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(error).__mro__}


def _refused_connection(chain: list[BaseException]) -> bool:
    for link in chain:
        if isinstance(link, ConnectionRefusedError | socket.gaierror):
            return True
        if _class_names(link) & _REFUSED_CLASS_NAMES:
            return True
    return False


def _unreadable_reply(error: BaseException) -> bool:
    """Whether the server answered with a success whose body is not a JSON completion.

    litellm reports it as HTTP 500, but no HTTP error came back: the chain holds no status
    error, only the failure to decode the body (or litellm's "invalid response" message).
    """
    chain = exception_chain(error)
    if any(_class_names(link) & _STATUS_ERROR_CLASS_NAMES for link in chain):
        return False
    if any(isinstance(link, UnicodeDecodeError | json.JSONDecodeError) for link in chain):
        return True
    return any(_INVALID_RESPONSE_PHRASE in str(link)[:300].lower() for link in chain)


def _fatal_kind(error: BaseException, status: int | None) -> FailureKind | None:
    names = _class_names(error)
    text = str(error)[:2000].lower()
    if _UNKNOWN_PROVIDER_PHRASE in text or "LiteLLMUnknownProvider" in names:
        return FailureKind("unknown provider", False, status, fatal=True)
    if _unreadable_reply(error):
        # The same URL answers every call the same way: a web page is not a model server.
        return FailureKind(UNREADABLE_REPLY, False, None, fatal=True)
    if status in _FATAL_STATUSES:
        label = "not found (HTTP 404)" if status == 404 else f"refused credentials (HTTP {status})"
        return FailureKind(label, False, status, fatal=True)
    if names & _AUTH_CLASS_NAMES or (
        "missing" in text and any(phrase in text for phrase in _MISSING_CREDENTIAL_PHRASES)
    ):
        return FailureKind("missing or refused credentials", False, status, fatal=True)
    if _refused_connection(exception_chain(error)):
        return FailureKind("connection refused", False, status, fatal=True)
    return None


def classify_failure(error: BaseException) -> FailureKind:
    """Describe a failed call and say whether to retry it.

    Example:
        >>> classify_failure(TimeoutError())
        FailureKind(label='timeout', retryable=True, status=None, fatal=False)
        >>> classify_failure(ValueError("bad"))
        FailureKind(label='ValueError', retryable=False, status=None, fatal=False)
        >>> classify_failure(ConnectionRefusedError()).fatal
        True
        >>> classify_failure(PermissionError("key revoked")).retryable
        False
        >>> classify_failure(RuntimeError("Context size has been exceeded.")).label
        "prompt longer than the model's context"
    """
    names = _class_names(error)
    status = _status_of(error)
    fatal = _fatal_kind(error, status)
    if fatal is not None:
        return fatal
    if "ContextWindowExceededError" in names or any(
        phrase in str(error)[:2000].lower() for phrase in _CONTEXT_PHRASES
    ):
        return FailureKind(CONTEXT_EXCEEDED, False, status)
    if names & _TIMEOUT_CLASS_NAMES:
        return FailureKind("timeout", True, status)
    if status is not None and status < 500 and status not in _RETRYABLE_STATUSES:
        return FailureKind(f"HTTP {status}", False, status)
    # litellm reports a dropped connection as HTTP 500 "Connection error."; name it for what it is.
    if names & _CONNECTION_CLASS_NAMES or "Connection error" in str(error)[:300]:
        return FailureKind("connection error", True, status)
    if status == 429:
        return FailureKind("rate limited (HTTP 429)", True, status)
    if status is not None:
        label = f"server error (HTTP {status})" if status >= 500 else f"HTTP {status}"
        return FailureKind(label, True, status)
    if "RateLimitError" in names:
        return FailureKind("rate limited", True)
    if names & _SERVER_CLASS_NAMES:
        return FailureKind("server error", True)
    if isinstance(error, OSError):
        return FailureKind("connection error", True)
    return FailureKind(type(error).__name__, False)


def _header(headers: object, name: str) -> str | None:
    if not isinstance(headers, Mapping) and not hasattr(headers, "get"):
        return None
    for spelling in (name, name.title(), name.upper()):
        value = headers.get(spelling)
        if value is not None:
            return str(value)
    return None


def _parse_retry_after(value: str) -> float | None:
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def retry_after_seconds(error: BaseException) -> float | None:
    """The wait a failed call's response asked for (``Retry-After`` or ``retry-after-ms``).

    Looks at the response headers litellm keeps on its exceptions
    (``litellm_response_headers``) and at the raw response's headers. Accepts seconds or an
    HTTP date.

    Example:
        >>> class RateLimited(Exception):
        ...     litellm_response_headers = {"retry-after": "1.5"}
        >>> retry_after_seconds(RateLimited())
        1.5
    """
    response = getattr(error, "response", None)
    sources = (
        getattr(error, "litellm_response_headers", None),
        getattr(response, "headers", None),
        getattr(error, "headers", None),
    )
    for headers in sources:
        if headers is None:
            continue
        milliseconds = _header(headers, "retry-after-ms")
        if milliseconds is not None:
            try:
                return max(0.0, float(milliseconds) / 1000)
            except ValueError:
                pass
        seconds = _header(headers, "retry-after")
        if seconds is not None:
            parsed = _parse_retry_after(seconds)
            if parsed is not None:
                return parsed
    return None


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff with full jitter, honouring a server's ``Retry-After``.

    Attributes:
        base_s: The ceiling of the first wait; it doubles with each retry (the services pass
            retry number 0 for every retry of a scattered fault).
        max_s: The largest ceiling.
        max_retry_after_s: The longest ``Retry-After`` honoured; longer requests wait this long.

    Example:
        >>> backoff = Backoff(base_s=0.5, max_s=8.0)
        >>> 0.0 <= backoff.delay(retry_number=0) <= 0.5
        True
        >>> backoff.delay(retry_number=0, retry_after_s=2.0) >= 2.0
        True
    """

    base_s: float = 0.5
    max_s: float = 30.0
    max_retry_after_s: float = 60.0

    def __post_init__(self) -> None:
        if self.base_s < 0 or self.max_s < 0 or self.max_retry_after_s < 0:
            raise ConfigurationError(
                "backoff_base, backoff_max and max_retry_after must be >= 0 seconds"
            )

    def delay(self, retry_number: int, retry_after_s: float | None = None) -> float:
        """Seconds to wait before retry number ``retry_number`` (0 for the first retry)."""
        ceiling = min(self.max_s, self.base_s * 2.0 ** min(retry_number, 30))
        jittered = random.uniform(0.0, ceiling)
        if retry_after_s is None:
            return jittered
        return max(min(retry_after_s, self.max_retry_after_s), jittered)
