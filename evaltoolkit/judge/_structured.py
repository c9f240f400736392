"""Asking a model for JSON: the three forms servers accept, and finding the one that works.

- ``json_schema``: OpenAI's ``response_format={"type": "json_schema", ...}`` (OpenAI, the C++
  llama.cpp server, vLLM, recent Ollama).
- ``json_object``: ``{"type": "json_object", "schema": {...}}``: JSON mode with the schema
  attached, which llama-cpp-python's server enforces with a grammar (vLLM and Ollama read it
  too); the schema is also described in the system message.
- ``off``: no ``response_format``; the system message describes the schema.

In ``auto`` mode a judge starts with the best form litellm says the provider supports and
moves down when a server rejects the form (any 4xx or 5xx whose body mentions the response
format or schema), remembering what worked per (model, api_base) for the rest of the process.
Whatever the form, the reply is parsed, validated and repaired the same way.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeGuard

from ._config import StructuredOutput
from ._parse import schema_fingerprint, schema_instructions

__all__ = [
    "CHARS_PER_TOKEN",
    "FORMS",
    "default_max_tokens",
    "form_rejected",
    "positive_int",
    "prepare_messages",
    "remember_form",
    "remembered_form",
    "response_format",
]

Form = StructuredOutput  # one of FORMS; "auto" is not a form
#: The forms, best first.
FORMS: Final[tuple[Form, ...]] = ("json_schema", "json_object", "off")

_SCHEMA_NAME_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")
_REJECTION_WORDS: Final = ("response_format", "json_schema", "schema", "format")

#: Characters a token is counted for, fewer than most tokenizers average: a budget sized with
#: it holds the text, and a prompt's tokens counted with it are over- rather than underestimated.
CHARS_PER_TOKEN: Final = 3
# Completion budget per reply field, for default_max_tokens.
_TOKENS_PER_STRING: Final = 60
_TOKENS_PER_SCALAR: Final = 8
_ITEMS_PER_ARRAY: Final = 10
_OBJECT_OVERHEAD: Final = 10
_MIN_MAX_TOKENS: Final = 256
_MAX_MAX_TOKENS: Final = 2048

_remembered: dict[tuple[str, str], Form] = {}
_remembered_lock = threading.Lock()


def remembered_form(model: str, api_base: str | None) -> Form | None:
    """The form that last worked (or was last tried) for this model and server, if any."""
    with _remembered_lock:
        return _remembered.get((model, api_base or ""))


def remember_form(model: str, api_base: str | None, form: Form) -> None:
    """Remember ``form`` for this model and server for the rest of the process."""
    with _remembered_lock:
        _remembered[(model, api_base or "")] = form


def form_rejected(error: BaseException, status: int | None) -> bool:
    """Whether a failed request says the server does not accept the response format we sent.

    Example:
        >>> form_rejected(ValueError("Input should be 'text' or 'json_object' at "
        ...     "response_format.type"), 500)
        True
        >>> form_rejected(ValueError("upstream timeout"), 504)
        False
    """
    if status is None or status < 400:
        return False
    text = str(error).lower()
    return any(word in text for word in _REJECTION_WORDS)


@functools.lru_cache(maxsize=256)
def _strict_compatible(fingerprint: str) -> bool:
    """Whether a schema meets OpenAI's strict mode: closed objects, every property required."""

    def check(node: object) -> bool:
        if isinstance(node, list):
            return all(check(item) for item in node)
        if not isinstance(node, dict):
            return True
        if node.get("type") == "object" or "properties" in node:
            properties = node.get("properties", {})
            if node.get("additionalProperties") is not False:
                return False
            if set(node.get("required", [])) != set(properties):
                return False
        return all(check(child) for child in node.values())

    schema: object = json.loads(fingerprint)
    return check(schema)


def response_format(form: Form, step: str, schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``response_format`` argument for ``form`` (None for ``off``).

    Example:
        >>> response_format("json_object", "verdict", {"type": "object"})
        {'type': 'json_object', 'schema': {'type': 'object'}}
    """
    if form == "off":
        return None
    fingerprint = schema_fingerprint(schema)
    fresh_copy = json.loads(fingerprint)  # litellm may alter what it is given
    if form == "json_object":
        return {"type": "json_object", "schema": fresh_copy}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": _SCHEMA_NAME_UNSAFE.sub("_", step)[:64] or "reply",
            "schema": fresh_copy,
            "strict": _strict_compatible(fingerprint),
        },
    }


def prepare_messages(
    form: Form, messages: Sequence[Mapping[str, Any]], schema: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The messages to send in ``form``: the schema described in the system message unless the
    server enforces it through ``json_schema``."""
    prepared = [dict(message) for message in messages]
    if form == "json_schema":
        return prepared
    instructions = schema_instructions(schema)
    if prepared and prepared[0].get("role") == "system":
        prepared[0]["content"] = f"{prepared[0].get('content') or ''}\n\n{instructions}"
    else:
        prepared.insert(0, {"role": "system", "content": instructions})
    return prepared


def default_max_tokens(schema: Mapping[str, Any]) -> int:
    """A completion budget sized from a reply schema: room for a full reply, not for a loop.

    Each string counts 60 tokens (fewer with a ``maxLength``: three characters a token), each
    other scalar 8, each array 10 items (fewer with a ``maxItems``), each object 10 tokens of
    punctuation; the total is kept between 256 and 2,048, several times what a
    full reply of a strong model takes. A small model that repeats itself then stops there
    instead of filling its context (and a reply cut at the limit is asked for again, shorter).

    Example:
        >>> default_max_tokens({"type": "object", "properties": {"reason": {"type": "string"}}})
        256
    """
    return max(_MIN_MAX_TOKENS, min(_MAX_MAX_TOKENS, _estimate(schema)))


def _estimate(node: object) -> int:
    if not isinstance(node, Mapping):
        return _TOKENS_PER_SCALAR
    kind = node.get("type")
    if kind == "array" or "items" in node:
        items = node.get("maxItems", _ITEMS_PER_ARRAY)
        count = items if isinstance(items, int) and not isinstance(items, bool) else 1
        return _OBJECT_OVERHEAD + min(count, _ITEMS_PER_ARRAY) * _estimate(node.get("items", {}))
    if kind == "object" or "properties" in node:
        properties = node.get("properties", {})
        fields = properties.values() if isinstance(properties, Mapping) else []
        return _OBJECT_OVERHEAD + sum(_estimate(child) for child in fields)
    if "enum" in node:
        return _TOKENS_PER_SCALAR
    if kind == "string" or (isinstance(kind, list) and "string" in kind):
        length = node.get("maxLength")
        if positive_int(length):
            return min(_TOKENS_PER_STRING, -(-length // CHARS_PER_TOKEN))
        return _TOKENS_PER_STRING
    return _TOKENS_PER_SCALAR


def positive_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an int above 0 (a bool is not).

    Example:
        >>> positive_int(3), positive_int(0), positive_int(True), positive_int(2.0)
        (True, False, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
