"""The replies and faults of benchmarks/peer_speed.py: what every tool it times relies on.

The benchmark's figures are only comparable if each tool gets replies its own parser accepts
and the same share of faults; these checks run in milliseconds, no tool and no server needed.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from evaltoolkit.judge._parse import validate_reply  # jsonschema where the plain check cannot tell

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "peer_speed.py"


@pytest.fixture(scope="module")
def peer_speed() -> Any:
    spec = importlib.util.spec_from_file_location("peer_speed", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["peer_speed"] = module
    spec.loader.exec_module(module)
    return module


# A pydantic-style schema with $defs, $ref and anyOf, as DeepEval sends in response_format.
VERDICTS_SCHEMA: dict[str, Any] = {
    "$defs": {
        "Verdict": {
            "properties": {
                "verdict": {"enum": ["yes", "no", "idk"], "type": "string"},
                "reason": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
            "required": ["verdict", "reason"],
            "type": "object",
        }
    },
    "properties": {"verdicts": {"items": {"$ref": "#/$defs/Verdict"}, "type": "array"}},
    "required": ["verdicts"],
    "type": "object",
}


def test_a_reply_in_response_format_matches_its_schema(peer_speed: Any) -> None:
    body = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Judge this."}]}],
        "response_format": {"type": "json_schema", "json_schema": {"schema": VERDICTS_SCHEMA}},
    }
    reply = json.loads(peer_speed.answer_for(body))
    validate_reply(reply, VERDICTS_SCHEMA)
    assert [verdict["verdict"] for verdict in reply["verdicts"]] == ["yes"] * 3


def test_a_schema_quoted_in_the_prompt_is_answered_with_ragas_answers(peer_speed: Any) -> None:
    schema = {
        "properties": {"answers": {"items": {"type": "string"}, "type": "array"}},
        "required": ["answers"],
        "type": "object",
    }
    prompt = (
        "Answer each question with 1 or 0.\nPlease return the output in a JSON format that "
        f"complies with the following schema as specified in JSON Schema:\n{json.dumps(schema)}"
        'Do not use single quotes.\n\nExample output: {"answers": ["1"]}'
    )
    reply = json.loads(peer_speed.answer_for({"messages": [{"role": "user", "content": prompt}]}))
    validate_reply(reply, schema)
    assert set(reply["answers"]) <= {"1", "0"}


def test_replies_to_different_prompts_differ(peer_speed: Any) -> None:
    # Identical replies would let a tool's single-flight or cache answer items it never sent.
    schema = {"type": "object", "properties": {"reason": {"type": "string"}}}

    def answer(text: str) -> str:
        body = {
            "messages": [{"role": "user", "content": text}],
            "response_format": {"json_schema": {"schema": schema}},
        }
        return str(peer_speed.answer_for(body))

    assert answer("item one") != answer("item two")
    assert answer("item one") == answer("item one")


def test_faults_come_at_the_given_rate_and_in_every_kind(peer_speed: Any) -> None:
    responder = peer_speed.FaultyResponder(0.2, seed=1000)
    body = {"messages": [{"role": "user", "content": "x"}]}
    actions = [responder(body) for _ in range(2000)]
    faults = [action for action in actions if action.kind != "reply"]
    assert len(faults) == responder.faults
    assert 0.17 < len(faults) / len(actions) < 0.23
    statuses = {action.status for action in faults if action.kind == "status"}
    assert statuses == {429, 500, 503}
    assert any(action.kind == "drop" for action in faults)
    assert all(
        action.headers.get("Retry-After") == "1" for action in faults if action.status == 429
    )


def test_the_same_seed_gives_the_same_faults(peer_speed: Any) -> None:
    body = {"messages": [{"role": "user", "content": "x"}]}
    first = peer_speed.FaultyResponder(0.2, seed=7)
    second = peer_speed.FaultyResponder(0.2, seed=7)
    assert [first(body).kind for _ in range(200)] == [second(body).kind for _ in range(200)]
