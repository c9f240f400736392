"""The JSON dialects of local model servers, emulated by the loopback server.

llama-cpp-python's server rejects a ``json_schema`` response format with HTTP 500 and takes
``{"type": "json_object", "schema": ...}``; others answer 400 or 422; some ignore the format
and reply in free text. Each must reach a scored item, wasting at most one request per form
per run.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import PLANTED_API_KEY
from loopback_server import Action, LoopbackServer, rate_limited, reply, status_error

import evaltoolkit as et
from evaltoolkit.errors import JudgeCallError
from evaltoolkit.judge import JudgeRequest
from evaltoolkit.judge import _grammar_server as grammar_module
from evaltoolkit.judge._adaptive import AdaptiveLimit, adaptive_limit, overloaded
from evaltoolkit.judge._grammar_server import MAX_CHARS, MAX_ITEMS, bounded_schema, grammar_server
from evaltoolkit.judge._litellm import LiteLLMJudge
from evaltoolkit.judge._structured import _remembered, default_max_tokens
from evaltoolkit.scorers.answer_similarity._prompts import ANALYZE_SCHEMA, EXTRACT_SCHEMA
from evaltoolkit.scorers.summarization._prompts import COVERAGE_SCHEMA
from evaltoolkit.scorers.summarization._scorer import COVERAGE_STEP

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


def test_each_step_budget_is_sized_from_the_reply_an_earlier_step_announced(
    loopback_server: LoopbackServer,
) -> None:
    units = 1

    def extracted(body: dict[str, Any]) -> Action:
        if body["messages"][-1]["content"].startswith("Break an ANSWER"):
            facts = [f"fact number {index}" for index in range(units)]
            return reply({"output_units": ["Paris"], "ground_truth_units": facts})
        return reply(answer_step_reply(body))

    loopback_server.set_responder(extracted)
    budgets = {}
    for units in (1, 6):
        loopback_server.reset()
        et.run_evals(ITEMS[:1], scorer_for(loopback_server), progress=False)
        budgets[units] = [body["max_tokens"] for body in loopback_server.requests]
    loopback_server.reset()
    et.run_evals(ITEMS[:1], scorer_for(loopback_server, max_tokens=999), progress=False)

    schema_sized = default_max_tokens(ANALYZE_SCHEMA)
    (extract, analyze_one, reason), (_, analyze_six, _) = budgets[1], budgets[6]
    # The analyze reply holds one match per ground-truth unit: its budget grows with them,
    # and for the demo's short answers stays far below the schema-sized budget.
    assert analyze_one < analyze_six < schema_sized
    assert 5 * analyze_one < schema_sized
    assert extract < default_max_tokens(EXTRACT_SCHEMA) // 4
    assert reason < 256
    # The user's max_tokens wins over every step's own budget.
    assert [body["max_tokens"] for body in loopback_server.requests] == [999, 999, 999]


def test_the_coverage_budget_grows_with_the_questions_to_answer() -> None:
    def budget(questions: int) -> int | None:
        inputs = {"summary": "A short summary.", "questions": ["Is it so?"] * questions}
        return COVERAGE_STEP.budget(inputs)

    assert budget(1) is not None and budget(10) is not None
    assert budget(1) < budget(2) < budget(10) < default_max_tokens(COVERAGE_SCHEMA)


class OneSlotServer:
    """A responder that serves one request at a time, like llama-cpp-python's server.

    ``busy="queue"``: the other requests wait (and are served even after their client gave
    up); ``busy="429"``: they are refused with HTTP 429 at once.
    """

    def __init__(self, busy: str, service_s: float) -> None:
        self.busy = busy
        self.service_s = service_s
        self.slot = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Action:
        if self.busy == "429":
            if not self.slot.acquire(blocking=False):
                return rate_limited(retry_after_s=None)
        else:
            self.slot.acquire()
        try:
            time.sleep(self.service_s)
        finally:
            self.slot.release()
        return reply({"cites": True}, delay_s=0.0)


CITES_STEP = et.Step(
    name="cites",
    prompt="Does this answer cite a source? {{output}}",
    schema={
        "type": "object",
        "properties": {"cites": {"type": "boolean"}},
        "required": ["cites"],
        "additionalProperties": False,
    },
)


@pytest.mark.parametrize("busy", ["queue", "429"])
def test_a_one_slot_server_gets_every_item_scored_at_the_run_concurrency(
    loopback_server: LoopbackServer, busy: str
) -> None:
    # Times large enough that a loaded machine's pauses (a tenth of a second) do not make a
    # request served alone time out; their ratio is what the test is about.
    loopback_server.set_responder(OneSlotServer(busy, service_s=0.06))
    scorer = et.create_judged_scorer(
        id="cites",
        steps=[CITES_STEP],
        score=lambda context: 1.0,
        model="openai/local",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        cache=False,
        timeout=0.3,  # 5 requests' service: at 8 in flight the later ones time out waiting
        backoff_base=0.01,
        backoff_max=0.02,
    )
    items = [{"id": index, "input": "q", "output": f"answer {index}"} for index in range(12)]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = et.run_evals(items, scorer, concurrency=8, progress=False)

    errors = [score.error.message for score in result.results("cites") if score.error]
    assert result.scores["cites"].scored == len(items), errors
    assert loopback_server.max_in_flight > 1  # the run did start at its concurrency
    said = [str(warning.message) for warning in caught if "lowered" in str(warning.message)]
    assert len(said) == 1, said
    assert said[0].startswith(
        f"the server at {loopback_server.url} answers one request at a time: lowered "
        "concurrency to 1 (from "
    )


async def rounds_of_successes(limit: AdaptiveLimit) -> list[int]:
    """Fill the limit with calls that all succeed until it is lifted; the limit of each round."""
    limits: list[int] = []
    while limit.limit is not None and len(limits) < 20:
        limits.append(limit.limit)
        batch = [await limit.acquire(ceiling=8) for _ in range(limit.limit)]
        for ticket in batch:
            limit.release(ticket, None)
    return limits


async def replies_near_the_timeout(limit: AdaptiveLimit, seconds: float) -> None:
    """Calls that succeed after ``seconds`` each: the server's replies queue."""
    for _ in range(6):
        ticket = await limit.acquire(ceiling=8)
        ticket.started -= seconds
        limit.release(ticket, None)


async def test_successes_raise_a_lowered_limit_back_to_the_run_concurrency() -> None:
    limit = AdaptiveLimit("http://127.0.0.1:1/v1")
    await replies_near_the_timeout(limit, 0.8)
    first = [await limit.acquire(ceiling=8) for _ in range(8)]
    first[0].started -= 1.0
    limit.release(first[0], TimeoutError())  # after 1 s, where replies take 0.8 s: overload
    assert limit.limit == 4  # halved from the 8 in flight
    with pytest.raises(TimeoutError):  # 7 still in flight: a retry waits for the lower limit
        await asyncio.wait_for(limit.acquire(ceiling=8), 0.05)
    for ticket in first[1:]:
        limit.release(ticket, None)  # admitted before the cut: they say nothing of the new limit
    assert limit.limit == 4

    with pytest.warns(RuntimeWarning, match=r"answers about 4 requests at a time: lowered "):
        limits = await rounds_of_successes(limit)

    assert limits == sorted(limits) and limits[0] == 4 and limits[-1] == 7
    assert limit.limit is None  # back at the run's concurrency: the server limits nothing


async def test_a_timeout_counts_against_its_call_only_at_a_settled_limit() -> None:
    limit = AdaptiveLimit("http://127.0.0.1:2/v1")
    await replies_near_the_timeout(limit, 0.8)
    queued = [await limit.acquire(ceiling=8) for _ in range(2)]
    for ticket in queued:
        ticket.started -= 1.0
    limit.release(queued[0], TimeoutError())
    limit.release(queued[1], TimeoutError())
    assert limit.limit == 1
    alone = await limit.acquire(ceiling=8)
    alone.started -= 1.0
    limit.release(alone, TimeoutError())

    # The first timed out beside a call the server could not serve as well; the call sent
    # alone timed out on its own.
    assert queued[0].crowded
    assert not alone.crowded


def test_only_overload_lowers_the_limit() -> None:
    class RateLimited(Exception):
        status_code = 429

    class BadRequest(Exception):
        status_code = 400

    assert overloaded(TimeoutError()) and overloaded(RateLimited())
    assert overloaded(ConnectionResetError())
    assert not overloaded(BadRequest()) and not overloaded(ConnectionRefusedError())


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


def test_cache_as_on_the_command_line_reuses_a_cache_on_another_host(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    from evaltoolkit.cli import main

    loopback_server.set_responder(dialect(lambda form: None))
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(item) + "\n" for item in ITEMS[:2]))

    def run(api_base: str, *extra: str) -> int:
        return main(
            [
                "run", str(data), "--scorer", "answer-similarity", "--model", "openai/local",
                "--api-base", api_base, "--cache-dir", str(tmp_path / "cache"), "--no-progress",
                "--out", str(tmp_path / "out.csv"), *extra,
            ]
        )  # fmt: skip

    assert run(loopback_server.url, "--cache-as", "smollm2") == 0
    made = loopback_server.requests_total
    assert made >= 3  # identical calls of the two items are sent once
    other_host = loopback_server.url.replace("127.0.0.1", "localhost")
    assert run(other_host, "--cache-as", "smollm2") == 0
    assert loopback_server.requests_total == made  # the cache answered: same name
    assert run(other_host) == 0
    assert loopback_server.requests_total == 2 * made  # another host, no name: asked again


LLAMA_CPP_PROPS = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 4}


def sent_schemas(server: LoopbackServer) -> list[dict[str, Any]]:
    return [body["response_format"]["json_schema"]["schema"] for body in server.requests]


def bounds_of(node: object) -> list[tuple[str, int]]:
    """Every maxItems and maxLength in a schema, with the kind of node it bounds."""
    found: list[tuple[str, int]] = []
    if isinstance(node, dict):
        found += [(key, node[key]) for key in ("maxItems", "maxLength") if key in node]
        for child in node.values():
            found += bounds_of(child)
    elif isinstance(node, list):
        for child in node:
            found += bounds_of(child)
    return found


def test_a_llama_cpp_server_gets_a_schema_whose_every_reply_closes(
    loopback_server: LoopbackServer,
) -> None:
    """llama-server's grammar keeps a looping reply valid but endless; with every list and
    free-text string bounded, every path through it closes the JSON within its budget."""
    loopback_server.props = LLAMA_CPP_PROPS
    loopback_server.set_responder(lambda body: reply(answer_step_reply(body)))

    result = et.run_evals(ITEMS[:2], scorer_for(loopback_server), progress=False)

    assert [item.scorer_results["answer-similarity"].score for item in result] == [1.0, 1.0]
    assert loopback_server.props_asked == 1  # once per server, not per request
    analyze = [
        (schema, body["max_tokens"])
        for schema, body in zip(
            sent_schemas(loopback_server), loopback_server.requests, strict=True
        )
        if "matches" in schema["properties"]
    ]
    schema, budget = analyze[0]
    assert ("maxItems", MAX_ITEMS) in bounds_of(schema)
    assert ("maxLength", MAX_CHARS) in bounds_of(schema)
    match_type = schema["properties"]["matches"]["items"]["properties"]["match_type"]
    assert "maxLength" not in match_type  # an enumeration is bounded already
    assert bounds_of(ANALYZE_SCHEMA) == []  # the step's own schema is untouched
    # Room for the bounded reply in full, where the step's own budget (sized for one unit)
    # would cut a reply that loops within the bounds.
    assert budget == default_max_tokens(bounded_schema(ANALYZE_SCHEMA))
    assert budget > 4 * default_max_tokens({"type": "string"})


@pytest.mark.parametrize("case", ["no /props", "max_tokens given"])
def test_other_servers_and_a_given_max_tokens_get_the_steps_own_schema(
    loopback_server: LoopbackServer, case: str
) -> None:
    options: dict[str, Any] = {}
    if case == "max_tokens given":
        loopback_server.props = LLAMA_CPP_PROPS
        options["max_tokens"] = 999
    loopback_server.set_responder(lambda body: reply(answer_step_reply(body)))

    et.run_evals(ITEMS[:1], scorer_for(loopback_server, **options), progress=False)

    assert all(bounds_of(schema) == [] for schema in sent_schemas(loopback_server))
    if case == "max_tokens given":
        assert [body["max_tokens"] for body in loopback_server.requests] == [999] * 3


async def test_a_hosted_provider_is_never_asked_for_props(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(grammar_module, "_ask", lambda api_base: asked.append(api_base))

    for hosted in ("https://api.openai.com/v1", "https://8.8.8.8/v1", "https://example.org/v1"):
        assert await grammar_server(hosted) is None
    await grammar_server("http://192.168.1.20:8080/v1")
    await grammar_server("http://localhost:8080/v1")

    assert asked == ["http://192.168.1.20:8080/v1", "http://localhost:8080/v1"]


def test_bounds_keep_a_tighter_one_and_reach_nested_strings() -> None:
    schema = {
        "type": "object",
        "properties": {
            "few": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 9}},
            "nested": {"type": "array", "items": {"type": ["string", "null"]}},
            "kind": {"type": "string", "enum": ["a", "b"]},
        },
    }

    bounded = bounded_schema(schema)["properties"]

    assert bounded["few"]["maxItems"] == 3 and bounded["few"]["items"]["maxLength"] == 9
    assert bounded["nested"]["maxItems"] == MAX_ITEMS
    assert bounded["nested"]["items"]["maxLength"] == MAX_CHARS
    assert bounded["kind"] == {"type": "string", "enum": ["a", "b"]}
    assert "maxItems" not in schema["properties"]["nested"]  # the original is left alone


def test_a_llama_cpp_server_is_sent_no_more_requests_than_its_slots() -> None:
    """Requests beyond a server's slots queue there, and the later ones run past their
    timeout; a server that announces its slots is never sent more, and nothing is lowered."""
    with LoopbackServer(latency_s=0.05) as server:
        server.props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 2}
        server.set_responder(lambda body: reply(answer_step_reply(body)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "lowered concurrency" warning
            result = et.run_evals(ITEMS, scorer_for(server), concurrency=8, progress=False)
        learned = adaptive_limit("openai/local", server.url)

    assert [item.scorer_results["answer-similarity"].score for item in result] == [1.0] * 6
    assert server.max_in_flight == 2
    assert learned.slots == 2
    assert learned.limit is None  # nothing lowered: the run's concurrency still applies
