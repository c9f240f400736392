"""Keeping credentials out of the judge's exceptions and logs.

A provider may quote the credential it was sent in an error body (some do with HTTP 401), or
in a reply, so every text the judge passes on is masked first, by the toolkit's one masking
function (:mod:`evaltoolkit._internal.secrets`): the keys given to a judge, the values of
secret-named options, the values of secret-named environment variables, and anything shaped
like an ``sk-`` key. This module applies it to exceptions (their messages and raw replies)
and to the records of litellm's loggers and the judge's own.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from typing import Final

from .._internal.secrets import is_secret_name, redact, register_secrets

__all__ = [
    "install_log_filter",
    "is_secret_name",
    "redact",
    "register_secrets",
    "scrub_exception",
]


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
            for name in ("message", "raw_reply"):
                text = getattr(current, name, None)
                if isinstance(text, str):
                    setattr(current, name, redact(text))
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
