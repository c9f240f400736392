"""The JSON dialects of local model servers, emulated by the loopback server.

llama-cpp-python's server rejects a ``json_schema`` response format with HTTP 500 and takes
``{"type": "json_object", "schema": ...}``; others answer 400 or 422; some ignore the format
and reply in free text. Each must reach a scored item, wasting at most one request per form
per run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import PLANTED_API_KEY
from loopback_server import Action, LoopbackServer, reply, status_error

import evaltoolkit as et
from evaltoolkit.errors import JudgeCallError
from evaltoolkit.judge import JudgeRequest
from evaltoolkit.judge._litellm import LiteLLMJudge
from evaltoolkit.judge._structured import _remembered

LLAMA_CPP_REJECTION = (
    "1 validation error:\n"
    "  ('body', 'response_format', 'type')\n"
    "    Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema']"
)
ITEMS = [
    {
        "id": f"q{index}",
        "input": f"Capital number {index}?",
        "output": "Paris",
        "ground_truth": "Paris",
    }
    for index in range(6)
]


@pytest.fixture(autouse=True)
def _forget_negotiated_forms() -> None:
    _remembered.clear()  # each test is a fresh process as far as servers go


def answer_step_reply(body: dict[str, Any]) -> dict[str, Any]:
    """A valid reply for the answer-similarity step a request is for, read from its prompt."""
    prompt = body["messages"][-1]["content"]
    if prompt.startswith("Break an ANSWER"):
        return {"output_units": ["Paris"], "ground_truth_units": ["Paris"]}
    if prompt.startswith("Compare an answer"):
        match = {
            "ground_truth_unit": "Paris",
            "output_unit": "Paris",
            "match_type": "exact",
            "explanation": "same",
        }
        return {"matches": [match], "contradictions": [], "extra_info": []}
    return {"reason": "The answer matches the ground truth exactly."}


def dialect(
    rejects: Callable[[dict[str, Any]], Action | None],
) -> Callable[[dict[str, Any]], Action]:
    def respond(body: dict[str, Any]) -> Action:
        refusal = rejects(body.get("response_format") or {})
        return refusal if refusal is not None else reply(answer_step_reply(body))

    return respond


def scorer_for(server: LoopbackServer, **options: Any) -> Any:
    settings: dict[str, Any] = {
        "api_base": server.url,
        "api_key": PLANTED_API_KEY,
        "cache": False,
        "backoff_base": 0.01,
        "backoff_max": 0.02,
    }
    settings.update(options)
    return et.create_answer_similarity_scorer("openai/local", **settings)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "response_format json_schema is not supported"),
        (422, "Unprocessable: unsupported value at response_format.type"),
        (500, LLAMA_CPP_REJECTION),
    ],
    ids=["400", "422", "500-llama-cpp-python"],
)
def test_a_rejected_json_schema_moves_to_json_object_once_per_run(
    loopback_server: LoopbackServer, status: int, message: str
) -> None:
    loopback_server.set_responder(
        dialect(
            lambda form: (
                status_error(status, message) if form.get("type") == "json_schema" else None
            )
        )
    )

    result = et.run_evals(ITEMS, scorer_for(loopback_server), concurrency=1, progress=False)

    assert result.scores["answer-similarity"].scored == len(ITEMS)
    assert result.scores["answer-similarity"].mean == 1.0
    forms = [(body.get("response_format") or {}).get("type") for body in loopback_server.requests]
    assert forms.count("json_schema") == 1  # one wasted request in the whole run
    assert loopback_server.requests_total == 3 * len(ITEMS) + 1
    accepted = next(
        body["response_format"]
        for body in loopback_server.requests
        if body.get("response_format", {}).get("type") == "json_object"
    )
    assert accepted["schema"]["required"] == ["output_units", "ground_truth_units"]
    first = result.items[0].scorer_results["answer-similarity"]
    assert first.calls[0].attempts == 2
    assert result.to_frame()["attempts"].sum() == 3 * len(ITEMS) + 1


def test_a_server_refusing_every_response_format_gets_plain_instructions(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.set_responder(
        dialect(lambda form: status_error(400, "unknown field: response_format") if form else None)
    )

    result = et.run_evals(ITEMS, scorer_for(loopback_server), concurrency=1, progress=False)

    assert result.scores["answer-similarity"].scored == len(ITEMS)
    forms = [(body.get("response_format") or {}).get("type") for body in loopback_server.requests]
    assert forms.count("json_schema") == 1
    assert forms.count("json_object") == 1
    plain = [body for body in loopback_server.requests if "response_format" not in body]
    assert len(plain) == 3 * len(ITEMS)
    assert "must match this JSON schema" in plain[0]["messages"][0]["content"]


def assert_read_without_repair(result: et.EvalResult, server: LoopbackServer) -> None:
    """Every reply was read at the first request (a call shared with an identical one in
    flight, or found in the cache, made none)."""
    calls = [call for item in result for call in item.scorer_results["answer-similarity"].calls]
    assert len(calls) == 3 * len(result)
    assert all(call.attempts == (0 if call.cached else 1) for call in calls)
    assert server.requests_total == sum(call.attempts for call in calls)


def test_a_server_ignoring_the_format_and_replying_in_free_text_is_read(
    loopback_server: LoopbackServer,
) -> None:
    def chatty(body: dict[str, Any]) -> Action:
        text = "Sure! Here is the JSON you asked for:\n" + json.dumps(answer_step_reply(body))
        return reply(text + "\nLet me know if you need anything else.")

    loopback_server.set_responder(chatty)

    result = et.run_evals(ITEMS, scorer_for(loopback_server), concurrency=2, progress=False)

    assert result.scores["answer-similarity"].scored == len(ITEMS)
    assert_read_without_repair(result, loopback_server)


def test_a_forced_form_is_sent_as_asked_and_its_rejection_explained(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.set_responder(
        dialect(
            lambda form: (
                status_error(500, LLAMA_CPP_REJECTION)
                if form.get("type") == "json_schema"
                else None
            )
        )
    )

    forced = et.run_evals(
        ITEMS[:1], scorer_for(loopback_server, structured_output="json_object"), progress=False
    )
    assert forced.scores["answer-similarity"].scored == 1
    assert {body["response_format"]["type"] for body in loopback_server.requests} == {"json_object"}

    refused = et.run_evals(
        ITEMS[:1], scorer_for(loopback_server, structured_output="json_schema"), progress=False
    )
    error = refused.items[0].scorer_results["answer-similarity"].error
    assert error is not None
    assert "structured_output='auto'" in error.message


async def test_the_provider_lines_that_say_what_to_change_are_kept(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.set_responder(
        lambda body: status_error(422, LLAMA_CPP_REJECTION.replace("response_format", "messages"))
    )
    judge = LiteLLMJudge(
        "openai/local", api_base=loopback_server.url, api_key=PLANTED_API_KEY, cache=False
    )
    request = JudgeRequest(
        step="verdict",
        stage="analyze",
        messages=({"role": "user", "content": "x"},),
        schema={"type": "object"},
    )

    with pytest.raises(JudgeCallError) as raised:
        await judge.complete(request)

    message = str(raised.value)
    assert "Input should be 'text' or 'json_object'" in message
    assert "('body', 'messages', 'type')" in message
    assert len(message) < 1200


def test_each_step_gets_a_completion_budget_sized_from_its_schema(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.set_responder(dialect(lambda form: None))

    et.run_evals(ITEMS[:1], scorer_for(loopback_server), progress=False)
    budgets = [body["max_tokens"] for body in loopback_server.requests]
    loopback_server.reset()
    et.run_evals(ITEMS[:1], scorer_for(loopback_server, max_tokens=99), progress=False)

    extract, analyze, reason = budgets
    assert 256 <= reason < extract < analyze <= 2048
    assert [body["max_tokens"] for body in loopback_server.requests] == [99, 99, 99]


def test_control_characters_inside_strings_need_no_repair(loopback_server: LoopbackServer) -> None:
    def raw_newlines(body: dict[str, Any]) -> Action:
        text = json.dumps(answer_step_reply(body))
        return reply(text.replace("exactly.", "exactly.\n\tIndeed."))

    loopback_server.set_responder(raw_newlines)

    result = et.run_evals(ITEMS[:2], scorer_for(loopback_server), progress=False)

    assert result.scores["answer-similarity"].scored == 2
    assert_read_without_repair(result, loopback_server)
    assert "\n\tIndeed" in str(result.items[0].scorer_results["answer-similarity"].reason)


def test_usage_and_attempts_count_failed_steps_too(loopback_server: LoopbackServer) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 4}
    loopback_server.set_responder(lambda body: reply("no JSON here", usage=usage))

    result = et.run_evals(ITEMS[:1], scorer_for(loopback_server, max_repairs=2), progress=False)

    score = result.items[0].scorer_results["answer-similarity"]
    assert score.error is not None and score.error.kind == "JudgeReplyError"
    assert score.calls[0].attempts == 3
    assert score.usage == et.Usage(prompt_tokens=30, completion_tokens=12)
    row = result.to_frame().iloc[0]
    assert row["attempts"] == 3
    assert row["prompt_tokens"] == 30


def test_the_negotiated_form_is_remembered_in_the_cache_key(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    loopback_server.set_responder(
        dialect(
            lambda form: (
                status_error(500, LLAMA_CPP_REJECTION)
                if form.get("type") == "json_schema"
                else None
            )
        )
    )
    cache = tmp_path / "cache"
    et.run_evals(ITEMS, scorer_for(loopback_server, cache=cache), concurrency=1, progress=False)
    first_run = loopback_server.requests_total
    _remembered.clear()  # a new process: nothing negotiated yet

    again = et.run_evals(ITEMS, scorer_for(loopback_server, cache=cache), progress=False)

    # The reason prompts repeat across items, so the cache answers some calls even then.
    assert first_run > 2 * len(ITEMS)
    assert loopback_server.requests_total == first_run  # every call came from the cache
    assert again.scores["answer-similarity"].scored == len(ITEMS)


async def test_a_reply_cut_at_the_token_limit_is_repaired_with_that_reason(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.enqueue(
        reply('{"ok": true, "why": "because because because', finish_reason="length"),
        reply({"ok": True, "why": "short"}),
    )
    judge = LiteLLMJudge(
        "openai/local", api_base=loopback_server.url, api_key=PLANTED_API_KEY, cache=False
    )
    request = JudgeRequest(
        step="verdict",
        stage="analyze",
        messages=({"role": "user", "content": "x"},),
        schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
    )

    answer = await judge.complete(request)

    assert answer.value == {"ok": True, "why": "short"}
    repair = loopback_server.messages_of(1)
    assert "reached the token limit (max_tokens)" in repair[-1]["content"]
    # The long, broken reply is not sent back: it would crowd a small model's context out.
    assert all("because because" not in str(message["content"]) for message in repair)
