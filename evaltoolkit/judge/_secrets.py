"""Keeping credentials out of messages, exceptions and logs.

A provider may quote the credential it was sent in an error body (some do with HTTP 401), so
every text the judge passes on is masked first: the keys given to a judge, the values of
secret-named options (``extra_headers``, ``aws_secret_access_key``, ...), the values of the
environment variables litellm reads credentials from (every set variable whose name ends in
``_API_KEY``, ``_KEY``, ``_TOKEN``, ``_SECRET``, ``_ACCESS_KEY``, ``_PASSWORD`` or
``_CREDENTIALS``), and anything shaped like an ``sk-`` key. litellm's loggers and the judge's
own get a filter that masks their records the same way.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = [
    "MASK",
    "install_log_filter",
    "is_secret_name",
    "redact",
    "register_secrets",
    "scrub_exception",
    "secret_values",
]

MASK: Final = "***"
SECRET_ENV_SUFFIXES: Final = (
    "_API_KEY",
    "_KEY",
    "_TOKEN",
    "_SECRET",
    "_ACCESS_KEY",
    "_PASSWORD",
    "_CREDENTIALS",
)
# Shorter values are too likely to be ordinary words or flags ("1", "true") to mask safely.
_MIN_EXPLICIT_CHARS: Final = 4
_MIN_ENVIRONMENT_CHARS: Final = 8
_KEY_LIKE_TEXT: Final = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}")
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

_registered: set[str] = set()
_registered_lock = threading.Lock()


def is_secret_name(name: str) -> bool:
    """Whether an option of this name carries a secret (its value stays out of cache keys).

    Example:
        >>> is_secret_name("extra_headers"), is_secret_name("top_p")
        (True, False)
    """
    return any(word in _SECRET_NAME_WORDS for word in re.split(r"[^a-z]+", name.lower()))


def register_secrets(options: Mapping[str, Any]) -> None:
    """Remember the secret values among ``options`` (by name), so they are masked everywhere."""
    found: list[str] = []
    for name, value in options.items():
        if not is_secret_name(name) or value is None:
            continue
        values = value.values() if isinstance(value, Mapping) else [value]
        found.extend(str(item) for item in values if isinstance(item, str))
    with _registered_lock:
        _registered.update(item for item in found if len(item) >= _MIN_EXPLICIT_CHARS)


def _environment_secrets() -> Iterable[str]:
    for name, value in os.environ.items():
        if name.upper().endswith(SECRET_ENV_SUFFIXES) and len(value) >= _MIN_ENVIRONMENT_CHARS:
            yield value


def secret_values() -> list[str]:
    """Every value to mask, longest first (so a key containing another is masked whole)."""
    with _registered_lock:
        values = set(_registered)
    values.update(_environment_secrets())
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """Return ``text`` with every known secret, and anything shaped like a key, masked.

    Example:
        >>> register_secrets({"api_key": "gsk_example_1234"})
        >>> redact("401: invalid key gsk_example_1234")
        '401: invalid key ***'
    """
    for secret in secret_values():
        if secret in text:
            text = text.replace(secret, MASK)
    return _KEY_LIKE_TEXT.sub(MASK, text)


def scrub_exception(error: BaseException) -> None:
    """Mask secrets in an exception chain that the judge's own errors will carry."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        with contextlib.suppress(AttributeError, TypeError):
            current.args = tuple(
                redact(argument) if isinstance(argument, str) else argument
                for argument in current.args
            )
            message = getattr(current, "message", None)
            if isinstance(message, str):
                setattr(current, "message", redact(message))  # noqa: B010
        pending.extend(
            linked for linked in (current.__cause__, current.__context__) if linked is not None
        )


class _RedactingFilter(logging.Filter):
    """Masks secrets in every record logged through the logger it is attached to."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted is left for logging to report
            return True
        masked = redact(message)
        if masked != message or record.args:
            record.msg, record.args = masked, None
        return True


_FILTER: Final = _RedactingFilter()


def install_log_filter(logger_names: Iterable[str]) -> None:
    """Attach the masking filter to each named logger (once)."""
    for name in logger_names:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
