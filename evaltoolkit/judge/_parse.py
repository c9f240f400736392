"""Reading a judge's reply: tolerant JSON parsing and validation against the step's schema.

Models wrap JSON in code fences, put a sentence before or after it, leave a trailing comma, or
write raw control characters (a newline, a tab) inside a string; :func:`parse_reply_object`
copes with all of that and returns the single JSON object the reply holds.
:func:`validate_reply` checks it against the step's JSON schema. Both raise
:class:`ReplyProblem`, whose message is written for the model: the judge feeds it back in the
repair request.

A reply that plainly matches a schema written with the common keywords (``type``,
``properties``, ``required``, ``additionalProperties``, ``items``, ``enum``, the numeric and
length bounds) is accepted by a small check of its own. jsonschema is imported only for other
schemas, and to word the problems of a reply that may not match (its import takes most of a
second, mostly spent by an optional format library that JupyterLab installs); one compiled
validator is kept per schema.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from ..errors import ConfigurationError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "ReplyProblem",
    "parse_and_validate",
    "parse_reply_object",
    "repair_instructions",
    "schema_fingerprint",
    "schema_instructions",
    "validate_reply",
]

_MAX_LISTED_ERRORS: Final = 8
_MAX_ERROR_CHARS: Final = 240
_FENCED_BLOCK: Final = re.compile(r"```[ \t]*[A-Za-z0-9_+-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)


class ReplyProblem(ValueError):
    """A reply that did not parse as one JSON object or did not match the schema.

    The message says what is wrong in words meant for the model that wrote the reply.
    """


def _strip_trailing_commas(text: str) -> str:
    """Drop commas that directly precede a closing ``}`` or ``]``, outside strings."""
    kept: list[str] = []
    in_string = False
    escaped = False
    length = len(text)
    for position, char in enumerate(text):
        if in_string:
            kept.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == ",":
            following = position + 1
            while following < length and text[following] in " \t\r\n":
                following += 1
            if following < length and text[following] in "}]":
                continue
        kept.append(char)
    return "".join(kept)


class _NotJson:
    """Why a text did not load as JSON."""

    def __init__(self, error: json.JSONDecodeError) -> None:
        self.error = error

    def describe(self) -> str:
        return f"{self.error.msg} at line {self.error.lineno} column {self.error.colno}"


def _loads_leniently(text: str) -> object:
    """``json.loads``, retried without trailing commas; a :class:`_NotJson` when both fail.

    ``strict=False`` accepts control characters inside strings, which grammar-constrained
    local models emit.
    """
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError as error:
        if "," not in text:
            return _NotJson(error)
        try:
            return json.loads(_strip_trailing_commas(text), strict=False)
        except json.JSONDecodeError:
            return _NotJson(error)


def _top_level_object_spans(text: str) -> Iterator[str]:
    """Yield each outermost ``{...}`` span of ``text``; an unclosed one runs to the end.

    Quotes only count inside an object, so an apostrophe or a stray quote in the prose around
    the JSON does not confuse the scan.
    """
    depth = 0
    start = 0
    in_string = False
    escaped = False
    for position, char in enumerate(text):
        if depth == 0:
            if char == "{":
                depth = 1
                start = position
            continue
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                yield text[start : position + 1]
    if depth > 0:
        yield text[start:]


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _objects_in(texts: Iterable[str]) -> tuple[list[dict[str, Any]], _NotJson | None]:
    """The JSON objects found in ``texts``, and the first span that failed to load."""
    objects: list[dict[str, Any]] = []
    first_failure: _NotJson | None = None
    for text in texts:
        for span in _top_level_object_spans(text):
            loaded = _loads_leniently(span)
            if isinstance(loaded, dict):
                objects.append(loaded)
            elif isinstance(loaded, _NotJson) and first_failure is None:
                first_failure = loaded
    return objects, first_failure


def parse_reply_object(text: str | None) -> dict[str, Any]:
    """Return the one JSON object in a model's reply.

    Accepts the object alone, inside a Markdown code fence, or with prose before or after it,
    and forgives trailing commas.

    Args:
        text: The reply's text.

    Returns:
        The parsed object.

    Raises:
        ReplyProblem: The reply is empty, holds no JSON object, holds several different ones,
            or its JSON is broken.

    Example:
        >>> parse_reply_object('Sure! ```json\\n{"score": 1,}\\n``` Hope that helps.')
        {'score': 1}
    """
    if text is None or not text.strip():
        raise ReplyProblem("the reply was empty; reply with a JSON object")
    stripped = text.strip().lstrip("\ufeff")
    whole = _loads_leniently(stripped)
    if isinstance(whole, dict):
        return whole
    if not isinstance(whole, _NotJson):
        raise ReplyProblem(f"the reply is {_json_kind(whole)}, not a JSON object")

    fenced = [match.group(1).strip() for match in _FENCED_BLOCK.finditer(stripped)]
    candidates, first_failure = _objects_in(fenced)
    if not candidates:
        candidates, first_failure = _objects_in([stripped])

    distinct = {json.dumps(candidate, sort_keys=True): candidate for candidate in candidates}
    if len(distinct) == 1:
        return next(iter(distinct.values()))
    if len(distinct) > 1:
        raise ReplyProblem(
            f"the reply contains {len(distinct)} different JSON objects; reply with exactly one"
        )
    if first_failure is not None:
        raise ReplyProblem(f"the reply's JSON is not valid: {first_failure.describe()}")
    raise ReplyProblem("the reply contains no JSON object")


class _SchemaEntry:
    """A schema's canonical JSON text, whether the plain check covers it, and, once needed,
    its compiled validator."""

    __slots__ = ("fingerprint", "plain", "schema", "simple", "validator")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self.fingerprint = json.dumps(schema, sort_keys=True, separators=(",", ":"))
        self.plain: Any = json.loads(self.fingerprint)
        self.simple = _is_simple(self.plain)
        self.validator: Validator | None = None


# Keywords that do not affect whether a value matches.
_ANNOTATIONS: Final = frozenset({"description", "title", "$comment", "examples", "default"})
_TYPE_NAMES: Final = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)
_COUNTS: Final = frozenset({"minItems", "maxItems", "minLength", "maxLength"})


def _is_simple(schema: Any) -> bool:
    """Whether a schema is a valid one written only with the keywords :func:`_plainly_matches`
    checks (no ``$schema``: the drafts differ on whether 1.0 is an integer)."""
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            names = value if isinstance(value, list) else [value]
            if not names or not all(isinstance(n, str) and n in _TYPE_NAMES for n in names):
                return False
        elif key == "properties":
            if not isinstance(value, dict) or not all(map(_is_simple, value.values())):
                return False
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
                return False
            if len(set(value)) != len(value):
                return False
        elif key == "additionalProperties":
            if not (isinstance(value, bool) or _is_simple(value)):
                return False
        elif key == "items":
            if not _is_simple(value):
                return False
        elif key == "enum":
            if not isinstance(value, list) or not value:
                return False
        elif key in ("minimum", "maximum"):
            if isinstance(value, bool) or not isinstance(value, int | float):
                return False
        elif key in _COUNTS:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                return False
        else:
            return False
    return True


def _has_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return name == "number" or isinstance(value, int) or value.is_integer()


def _plainly_matches(value: Any, schema: dict[str, Any]) -> bool:
    """Whether ``value`` certainly matches a schema that :func:`_is_simple` accepts.

    False means "not certain": jsonschema then decides, and words the problems.
    """
    if "type" in schema:
        names = schema["type"]
        listed: list[str] = names if isinstance(names, list) else [names]
        if not any(_has_type(value, name) for name in listed):
            return False
    if "enum" in schema and not any(
        type(value) is type(option) and value == option
        for option in schema["enum"]
        if not isinstance(option, dict | list)
    ):
        return False
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        if any(name not in value for name in schema.get("required", ())):
            return False
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                if not _plainly_matches(item, properties[name]):
                    return False
            elif extra is False or (isinstance(extra, dict) and not _plainly_matches(item, extra)):
                return False
    elif isinstance(value, list):
        if "items" in schema and not all(_plainly_matches(item, schema["items"]) for item in value):
            return False
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            return False
    elif isinstance(value, str):
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
            return False
    elif _has_type(value, "number"):
        if "minimum" in schema and not value >= schema["minimum"]:
            return False
        if "maximum" in schema and not value <= schema["maximum"]:
            return False
    return True


_SCHEMA_ENTRIES_MAX: Final = 512
_schema_entries: dict[int, _SchemaEntry] = {}
_schema_lock = threading.Lock()


def _schema_entry(schema: Mapping[str, Any]) -> _SchemaEntry:
    # Keyed by identity: step schemas are long-lived constants, and the entry keeps the schema
    # alive, so its id cannot be reused by another object while the entry exists.
    entry = _schema_entries.get(id(schema))
    if entry is not None and entry.schema is schema:
        return entry
    entry = _SchemaEntry(schema)
    with _schema_lock:
        if len(_schema_entries) >= _SCHEMA_ENTRIES_MAX:
            _schema_entries.clear()
        _schema_entries[id(schema)] = entry
    return entry


def schema_fingerprint(schema: Mapping[str, Any]) -> str:
    """Canonical JSON text of ``schema`` (sorted keys, compact), computed once per schema.

    Example:
        >>> schema_fingerprint({"type": "object", "required": []})
        '{"required":[],"type":"object"}'
    """
    return _schema_entry(schema).fingerprint


def _compiled_validator(schema: Mapping[str, Any]) -> Validator:
    entry = _schema_entry(schema)
    if entry.validator is not None:
        return entry.validator
    import jsonschema

    plain_schema: dict[str, Any] = json.loads(entry.fingerprint)
    validator_class = jsonschema.validators.validator_for(plain_schema)
    try:
        validator_class.check_schema(plain_schema)
    except jsonschema.SchemaError as error:
        raise ConfigurationError(
            f"the judge step's JSON schema is invalid: {error.message}"
        ) from error
    entry.validator = validator_class(plain_schema)
    return entry.validator


def _json_path(path: Iterable[object]) -> str:
    rendered = "$"
    for part in path:
        rendered += f"[{part}]" if isinstance(part, int) else f".{part}"
    return rendered


def _shorten(text: str) -> str:
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"


def validate_reply(value: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Check ``value`` against ``schema``.

    Raises:
        ReplyProblem: ``value`` breaks the schema; the message lists where and how.
        ConfigurationError: ``schema`` itself is not a valid JSON schema.

    Example:
        >>> schema = {"type": "object", "required": ["score"]}
        >>> validate_reply({"score": 1}, schema)
        >>> validate_reply({}, schema)
        Traceback (most recent call last):
        ...
        evaltoolkit.judge._parse.ReplyProblem: the reply does not match the JSON schema:
        - at $: 'score' is a required property
    """
    entry = _schema_entry(schema)
    if entry.simple and _plainly_matches(value, entry.plain):
        return
    validator = _compiled_validator(schema)
    errors = sorted(
        validator.iter_errors(value),
        key=lambda error: (len(error.absolute_path), [str(part) for part in error.absolute_path]),
    )
    if not errors:
        return
    lines = [
        f"- at {_json_path(error.absolute_path)}: {_shorten(error.message)}"
        for error in errors[:_MAX_LISTED_ERRORS]
    ]
    if len(errors) > _MAX_LISTED_ERRORS:
        lines.append(f"- and {len(errors) - _MAX_LISTED_ERRORS} more problems")
    raise ReplyProblem("the reply does not match the JSON schema:\n" + "\n".join(lines))


def parse_and_validate(text: str | None, schema: Mapping[str, Any]) -> dict[str, Any]:
    """Parse a reply tolerantly and validate it against ``schema``.

    Example:
        >>> parse_and_validate('{"ok": true}', {"type": "object"})
        {'ok': True}
    """
    value = parse_reply_object(text)
    validate_reply(value, schema)
    return value


def schema_instructions(schema: Mapping[str, Any]) -> str:
    """Instructions appended to the system message when the provider cannot enforce a schema.

    Example:
        >>> schema_instructions({"type": "object"}).splitlines()[-1]
        '{"type":"object"}'
    """
    return (
        "Reply with a single JSON object and nothing else: no prose, no Markdown code fences. "
        "The object must match this JSON schema:\n" + schema_fingerprint(schema)
    )


def repair_instructions(problem: ReplyProblem, schema: Mapping[str, Any]) -> str:
    """The user message that asks the model to fix an invalid reply.

    Example:
        >>> repair_instructions(ReplyProblem("the reply was empty"), {"type": "object"})[:40]
        'Your previous reply could not be used: t'
    """
    return (
        f"Your previous reply could not be used: {problem}\n\n"
        "Reply again with only a JSON object, no other text, that matches this JSON schema:\n"
        + schema_fingerprint(schema)
    )
