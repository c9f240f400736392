"""Keeping credentials out of everything the toolkit stores: one masking function.

The values masked are the keys given to a judge (and the values of its secret-named options:
``extra_headers``, ``aws_secret_access_key``, ...), and the values of every environment
variable whose name looks like a secret's (``*_KEY``, ``*_API_KEY``, ``*_TOKEN``,
``*_SECRET``, ``*PASSWORD*``, ``*_CREDENTIALS``: where litellm and most services read
credentials from). Judge replies, reasons and raw replies, the judge cache, errors (a
target's exception included), logs and every export pass through it before they are stored,
so a key that a server or a target echoes stays where it was.

Standard library only, so that every layer may use it.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = [
    "MASK",
    "SecretMasker",
    "is_secret_name",
    "is_secret_variable",
    "mask_secrets",
    "redact",
    "register_secrets",
    "secret_masker",
    "secret_values",
]

MASK: Final = "***"
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
# An environment variable is a secret's when one of its words is one of these ("OPENAI_API_KEY",
# "MY_SERVICE_TOKEN", "AWS_SECRET_ACCESS_KEY"), or when it says PASSWORD anywhere.
_SECRET_VARIABLE_WORDS: Final = frozenset(
    {"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS"}
)
_SECRET_VARIABLE_PARTS: Final = ("PASSWORD", "PASSWD", "SECRET")

_registered: set[str] = set()
_registered_lock = threading.Lock()


def is_secret_name(name: str) -> bool:
    """Whether an option of this name carries a secret (its value stays out of cache keys).

    Example:
        >>> is_secret_name("extra_headers"), is_secret_name("top_p")
        (True, False)
    """
    return any(word in _SECRET_NAME_WORDS for word in re.split(r"[^a-z]+", name.lower()))


@functools.lru_cache(maxsize=4096)  # the environment is read for every reply masked
def is_secret_variable(name: str) -> bool:
    """Whether an environment variable of this name holds a secret.

    Example:
        >>> [is_secret_variable(name) for name in
        ...  ("OPENAI_API_KEY", "MY_SERVICE_TOKEN", "DB_PASSWORD_PROD", "TOKENIZERS_PARALLELISM")]
        [True, True, True, False]
    """
    upper = name.upper()
    if any(part in upper for part in _SECRET_VARIABLE_PARTS):
        return True
    return any(word in _SECRET_VARIABLE_WORDS for word in re.split(r"[^A-Z0-9]+", upper))


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
        if len(value) >= _MIN_ENVIRONMENT_CHARS and is_secret_variable(name):
            yield value


def secret_values() -> list[str]:
    """Every value to mask, longest first (so a key containing another is masked whole)."""
    with _registered_lock:
        values = set(_registered)
    values.update(_environment_secrets())
    return sorted(values, key=len, reverse=True)


class SecretMasker:
    """Masks a fixed set of secret values; build one with :func:`secret_masker` per batch.

    Reading the environment costs more than masking a text, so a batch of texts (a reply,
    an export) is masked with one masker.

    Args:
        values: The values to mask.
        key_shapes: Also mask text shaped like an API key (``sk-...``), for text that came
            from a model or a service; data exports mask the known values only.
    """

    def __init__(self, values: Iterable[str], *, key_shapes: bool = True) -> None:
        ordered = sorted(set(values), key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._key_shapes = key_shapes

    @property
    def masks_values(self) -> bool:
        """Whether there is any known value to mask."""
        return self._pattern is not None

    def text(self, text: str, *, replacement: str = MASK) -> str:
        """``text`` with every secret replaced."""
        if self._pattern is not None:
            text = self._pattern.sub(replacement, text)
        if self._key_shapes:
            text = _KEY_LIKE_TEXT.sub(replacement, text)
        return text

    def deep(self, value: Any) -> Any:
        """``value`` with every text in it masked: mappings, lists and tuples followed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {key: self.deep(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.deep(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self.deep(item) for item in value)
        return value


def secret_masker(*, key_shapes: bool = True) -> SecretMasker:
    """A masker of every secret known now (see the module's docstring).

    Example:
        >>> register_secrets({"api_key": "gsk_example_5678"})
        >>> secret_masker().deep({"reason": ["key gsk_example_5678 seen"]})
        {'reason': ['key *** seen']}
    """
    return SecretMasker(secret_values(), key_shapes=key_shapes)


def redact(text: str) -> str:
    """Return ``text`` with every known secret, and anything shaped like a key, masked.

    Example:
        >>> register_secrets({"api_key": "gsk_example_1234"})
        >>> redact("401: invalid key gsk_example_1234")
        '401: invalid key ***'
    """
    return secret_masker().text(text)


def mask_secrets(value: Any) -> Any:
    """``value`` (a text, or mappings and lists of texts) with every secret masked.

    Example:
        >>> register_secrets({"api_key": "gsk_example_9012"})
        >>> mask_secrets(["ok", "gsk_example_9012"])
        ['ok', '***']
    """
    return secret_masker().deep(value)
