"""Tolerant parsing of judge replies and their validation against a step's schema."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from _support import DATA
from hypothesis import given
from hypothesis import strategies as st

from evaltoolkit.errors import ConfigurationError
from evaltoolkit.judge._parse import (
    ReplyProblem,
    _compiled_validator,
    _is_simple,
    _plainly_matches,
    parse_and_validate,
    parse_reply_object,
    repair_instructions,
    schema_fingerprint,
    schema_instructions,
    validate_reply,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["verdicts"],
    "additionalProperties": False,
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["question", "answered"],
                "properties": {
                    "question": {"type": "string"},
                    "answered": {"type": "boolean"},
                },
            },
        }
    },
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=5)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('  \ufeff{"a": 1}\n', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('```json\n{"a": 1}', {"a": 1}),  # the closing fence was cut off
        ('Sure, here it is: {"a": 1}. Hope this helps!', {"a": 1}),
        ('I\'d say "probably" - {"a": "x}y"}', {"a": "x}y"}),
        ('{"a": [1, 2,],}', {"a": [1, 2]}),
        ('{"a": "keep, ]this"}', {"a": "keep, ]this"}),
        ('{"a": 1} and once more {"a": 1}', {"a": 1}),
        ('Notes:\n```text\nno JSON here\n```\nAnswer: {"a": 1}', {"a": 1}),
    ],
)
def test_replies_parse_leniently(text: str, expected: dict[str, Any]) -> None:
    assert parse_reply_object(text) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "empty"),
        ("   ", "empty"),
        ("no JSON at all", "no JSON object"),
        ("[1, 2]", "an array"),
        ('"just a string"', "a string"),
        ('{"a": 1} {"b": 2}', "2 different JSON objects"),
        ('{"a": [oops', "not valid"),
    ],
)
def test_unusable_replies_say_why(text: str | None, problem: str) -> None:
    with pytest.raises(ReplyProblem, match=re.escape(problem)):
        parse_reply_object(text)


@given(json_objects, st.sampled_from(["{}", "```json\n{}\n```", "Answer:\n{}\nDone.", " {} "]))
def test_any_object_survives_wrapping(value: dict[str, Any], wrapper: str) -> None:
    text = wrapper.replace("{}", json.dumps(value, indent=2))

    assert parse_reply_object(text) == value


@given(json_objects)
def test_trailing_commas_are_forgiven(value: dict[str, Any]) -> None:
    text = json.dumps(value, indent=1)
    with_commas = re.sub(r"(?<=[\]}\"\d el])\n(\s*)([\]}])", r",\n\1\2", text)

    assert parse_reply_object(with_commas) == value


def test_validation_lists_every_problem_with_its_path() -> None:
    value = {"verdicts": [{"question": "q1", "answered": "yes"}, {"answered": True}], "x": 1}

    with pytest.raises(ReplyProblem) as raised:
        validate_reply(value, SCHEMA)

    message = str(raised.value)
    assert "at $: Additional properties are not allowed ('x' was unexpected)" in message
    assert "at $.verdicts[0].answered: 'yes' is not of type 'boolean'" in message
    assert "at $.verdicts[1]: 'question' is a required property" in message


def test_long_error_lists_are_cut_short() -> None:
    value = {"verdicts": [{"question": index, "answered": "no"} for index in range(10)]}

    with pytest.raises(ReplyProblem, match=r"and \d+ more problems"):
        validate_reply(value, SCHEMA)


def test_valid_reply_passes() -> None:
    text = '```json\n{"verdicts": [{"question": "q", "answered": true}]}\n```'

    assert parse_and_validate(text, SCHEMA) == {"verdicts": [{"question": "q", "answered": True}]}


def test_an_invalid_schema_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="schema is invalid"):
        validate_reply({}, {"type": "no-such-type"})


def test_validators_are_compiled_once_per_schema() -> None:
    schema = {"type": "object", "required": ["a"]}

    assert _compiled_validator(schema) is _compiled_validator(schema)


def test_fingerprint_ignores_key_order() -> None:
    assert schema_fingerprint({"b": 1, "a": [2]}) == schema_fingerprint({"a": [2], "b": 1})


def test_instructions_carry_the_schema() -> None:
    problem = ReplyProblem("the reply was empty")

    assert schema_fingerprint(SCHEMA) in schema_instructions(SCHEMA)
    assert "the reply was empty" in repair_instructions(problem, SCHEMA)
    assert schema_fingerprint(SCHEMA) in repair_instructions(problem, SCHEMA)


# --- the plain check that spares jsonschema's import --------------------------------------

_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from([0.0, 1.0, 2.5, -1.5])
    | st.sampled_from(["", "a", "yes", "ab cd"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=8,
)
_TYPES = st.sampled_from(["object", "array", "string", "number", "integer", "boolean", "null"])


def _schemas(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    inner = _schemas(depth - 1) if depth else st.builds(dict, type=_TYPES)
    return st.fixed_dictionaries(
        {},
        optional={
            "type": _TYPES | st.lists(_TYPES, min_size=1, max_size=2, unique=True),
            "properties": st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
            "required": st.lists(st.sampled_from("abc"), max_size=3, unique=True),
            "additionalProperties": st.booleans() | inner,
            "items": inner,
            "enum": st.lists(_JSON_VALUES, min_size=1, max_size=3),
            "minimum": st.integers(-3, 3) | st.just(0.5),
            "maximum": st.integers(-3, 3),
            "minItems": st.integers(0, 2),
            "maxItems": st.integers(0, 3),
            "minLength": st.integers(0, 2),
            "maxLength": st.integers(0, 3),
            "description": st.just("what it is"),
        },
    )


@given(schema=_schemas(2), value=_JSON_VALUES)
def test_the_plain_check_never_accepts_what_jsonschema_rejects(
    schema: dict[str, Any], value: Any
) -> None:
    import jsonschema

    assert _is_simple(schema)
    jsonschema.Draft202012Validator.check_schema(schema)
    if _plainly_matches(value, schema):
        assert not list(jsonschema.Draft202012Validator(schema).iter_errors(value))


@given(value=_JSON_VALUES)
def test_the_plain_check_accepts_what_the_step_schema_allows(value: Any) -> None:
    import jsonschema

    reply = {
        "verdicts": [{"question": "q", "answered": True}, {"question": "r", "answered": False}]
    }
    assert _plainly_matches(reply, SCHEMA)
    assert _plainly_matches(value, {}) and _plainly_matches(value, {"description": "x"})
    valid = not list(jsonschema.Draft202012Validator({"type": "integer"}).iter_errors(value))
    assert _plainly_matches(value, {"type": "integer"}) == valid


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^a"},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
        {"anyOf": [{"type": "string"}]},
        {"type": "no-such-type"},
        {"required": ["a", "a"]},
        {"items": [{"type": "string"}]},
    ],
)
def test_other_schemas_go_to_jsonschema(schema: dict[str, Any]) -> None:
    assert not _is_simple(schema)


def test_a_pattern_is_still_enforced_by_jsonschema() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^a"}}}

    validate_reply({"id": "abc"}, schema)
    with pytest.raises(ReplyProblem, match="does not match"):
        validate_reply({"id": "xyz"}, schema)


def test_every_built_in_step_schema_takes_the_plain_check() -> None:
    import evaltoolkit as et

    scorers = [et.create_summarization_scorer(), et.create_answer_similarity_scorer()]
    steps = [step for scorer in scorers for step in scorer._judge_steps()]

    assert len(steps) >= 4
    assert all(_is_simple(json.loads(schema_fingerprint(step.schema))) for step in steps)


def test_an_offline_run_does_not_import_jsonschema() -> None:
    import subprocess
    import sys

    code = (
        "import sys, evaltoolkit as et\n"
        "r = et.run_evals('data/demo_summaries.jsonl', "
        "[et.create_summarization_scorer()], progress=False)\n"
        "assert r.scores['summarization'].failed == 0\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=DATA.parent, check=True
    )

    assert done.stdout.strip() == "False"
