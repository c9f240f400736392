"""LiteLLMJudge end to end: litellm's real HTTP path against the loopback server."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import subprocess
import sys
import threading
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import PLANTED_API_KEY
from loopback_server import (
    LoopbackServer,
    cycle,
    drop_connection,
    hang,
    invalid_json,
    missing_fields,
    rate_limited,
    reply,
    server_error,
    status_error,
    tool_call_reply,
)

from evaltoolkit._internal.sync import run_sync
from evaltoolkit.errors import ConfigurationError, JudgeCallError, JudgeError, JudgeReplyError
from evaltoolkit.judge._cache import JudgeCache
from evaltoolkit.judge._cache_key import call_key, key_parameters
from evaltoolkit.judge._litellm import LiteLLMJudge
from evaltoolkit.judge._litellm_runtime import LITELLM_LOGGER_NAMES
from evaltoolkit.judge._run_scope import shared_call_limit
from evaltoolkit.judge._types import JudgeRequest, render_messages
from evaltoolkit.records import Usage

JudgeFactory = Callable[..., LiteLLMJudge]

CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["claims", "questions"],
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["claim", "supported", "reason"],
                "properties": {
                    "claim": {"type": "string"},
                    "supported": {"type": "boolean"},
                    "reason": {"type": "string"},
                },
            },
        },
        "questions": {"type": "array", "items": {"type": "string"}},
    },
}
VALID_REPLY: dict[str, Any] = {
    "claims": [{"claim": "Paris is in France", "supported": True, "reason": "the source says so"}],
    "questions": ["Is Paris in France?"],
}


def claims_request(
    user: str = "Source: Paris is in France.\nSummary: Paris is in France.",
    *,
    step: str = "source_judgement",
    schema: dict[str, Any] | None = None,
) -> JudgeRequest:
    return JudgeRequest(
        step=step,
        stage="preprocess",
        messages=(
            {"role": "system", "content": "You judge summaries against their source."},
            {"role": "user", "content": user},
        ),
        schema=CLAIMS_SCHEMA if schema is None else schema,
    )


def answer_valid(body: dict[str, Any]) -> Any:
    return reply(VALID_REPLY)


# -- replies ---------------------------------------------------------------------------------


async def test_scripted_reply_is_parsed_validated_and_recorded(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.enqueue(reply(VALID_REPLY, usage={"prompt_tokens": 11, "completion_tokens": 7}))
    judge = make_judge(seed=7)
    request = claims_request()

    answer = await judge.complete(request)

    assert answer.value == VALID_REPLY
    call = answer.call
    assert (call.step, call.stage, call.model) == ("source_judgement", "preprocess", judge.model)
    assert call.prompt == render_messages(request.messages)
    assert json.loads(call.raw_reply or "") == VALID_REPLY
    assert call.usage == Usage(prompt_tokens=11, completion_tokens=7)
    assert call.cost is None  # the loopback model is not in litellm's price map
    assert call.cached is False
    assert call.attempts == 1
    assert call.latency_s > 0
    body = loopback_server.requests[0]
    assert body["messages"] == [dict(message) for message in request.messages]
    assert body["temperature"] == 0.0
    assert body["seed"] == 7
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "source_judgement"
    assert body["response_format"]["json_schema"]["schema"] == CLAIMS_SCHEMA
    assert judge.offline is False


@pytest.mark.parametrize(
    "text",
    [
        "```json\n" + json.dumps(VALID_REPLY, indent=2) + "\n```",
        "Here is my judgement:\n" + json.dumps(VALID_REPLY) + "\nLet me know if you need more.",
        '{"claims": [{"claim": "Paris is in France", "supported": true, '
        '"reason": "the source says so",},], "questions": ["Is Paris in France?",],}',
    ],
    ids=["code-fence", "prose-around", "trailing-commas"],
)
async def test_loosely_formatted_replies_parse(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, text: str
) -> None:
    loopback_server.enqueue(reply(text))

    answer = await make_judge().complete(claims_request())

    assert answer.value == VALID_REPLY
    assert answer.call.raw_reply == text
    assert loopback_server.requests_total == 1


async def test_tool_call_reply_is_read(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.enqueue(tool_call_reply(VALID_REPLY))

    answer = await make_judge().complete(claims_request())

    assert answer.value == VALID_REPLY


async def test_invalid_reply_is_repaired_with_the_validation_error_fed_back(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    bad = missing_fields(VALID_REPLY, "questions")
    loopback_server.enqueue(bad, reply(VALID_REPLY))
    request = claims_request()

    answer = await make_judge().complete(request)

    assert answer.value == VALID_REPLY
    assert answer.call.attempts == 2
    repair_messages = loopback_server.messages_of(1)
    assert repair_messages[: len(request.messages)] == [dict(m) for m in request.messages]
    assert repair_messages[-2] == {"role": "assistant", "content": bad.content}
    assert repair_messages[-1]["role"] == "user"
    assert "'questions' is a required property" in repair_messages[-1]["content"]
    assert "JSON schema" in repair_messages[-1]["content"]


async def test_usage_is_summed_over_repair_attempts(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 3}
    loopback_server.enqueue(reply("not json", usage=usage), reply(VALID_REPLY, usage=usage))

    answer = await make_judge().complete(claims_request())

    assert answer.call.usage == Usage(prompt_tokens=20, completion_tokens=6)


async def test_every_reply_invalid_raises_reply_error_with_raw_reply_and_attempts(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.set_responder(lambda body: invalid_json('{"claims": [oops'))

    with pytest.raises(JudgeReplyError) as raised:
        await make_judge(max_repairs=2).complete(claims_request())

    error = raised.value
    assert error.step == "source_judgement"
    assert error.raw_reply == '{"claims": [oops'
    assert error.attempts == 3
    assert loopback_server.requests_total == 3
    assert "source_judgement" in str(error)


async def test_plain_json_instructions_when_structured_output_is_off(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.set_responder(answer_valid)
    judge = make_judge(structured_output="off")
    no_system = JudgeRequest(
        step="coverage",
        stage="analyze",
        messages=({"role": "user", "content": "Answer the questions."},),
        schema=CLAIMS_SCHEMA,
    )

    await judge.complete(claims_request())
    await judge.complete(no_system)

    with_system, without_system = loopback_server.requests
    assert "response_format" not in with_system
    assert with_system["messages"][0]["content"].startswith("You judge summaries")
    assert '"required":["claims","questions"]' in with_system["messages"][0]["content"]
    assert without_system["messages"][0]["role"] == "system"
    assert "JSON object" in without_system["messages"][0]["content"]
    assert without_system["messages"][1] == {"role": "user", "content": "Answer the questions."}


async def test_rejected_response_format_falls_back_to_instructions(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    def refuse_response_format(body: dict[str, Any]) -> Any:
        if "response_format" in body:
            return status_error(400, "response_format of type json_schema is not supported")
        return reply(VALID_REPLY)

    loopback_server.set_responder(refuse_response_format)
    judge = make_judge()

    answer = await judge.complete(claims_request())
    await judge.complete(claims_request("another summary"))

    assert answer.value == VALID_REPLY
    assert answer.call.attempts == 3
    forms = [body.get("response_format", {}).get("type") for body in loopback_server.requests]
    assert forms == ["json_schema", "json_object", None, None]


# -- faults and retries ----------------------------------------------------------------------


async def test_retry_after_of_a_rate_limit_is_honoured(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.enqueue(rate_limited(retry_after_s=0.3), reply(VALID_REPLY))

    answer = await make_judge(backoff_base=0.0).complete(claims_request())

    assert answer.value == VALID_REPLY
    assert answer.call.attempts == 2
    first, second = loopback_server.request_times
    assert second - first >= 0.29


@pytest.mark.parametrize(
    "fault",
    [server_error(500), server_error(503), drop_connection(), hang(3.0), rate_limited(None)],
    ids=["http-500", "http-503", "dropped-connection", "timeout", "429-without-retry-after"],
)
async def test_transient_faults_are_retried_then_succeed(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, fault: Any
) -> None:
    # A timed-out request is retried once only: a model that runs past the timeout is likely
    # to do it again, and a single-slot server would queue the repeats behind it.
    faults = 1 if fault.kind == "hang" else 2
    loopback_server.enqueue(*[fault] * faults, reply(VALID_REPLY))

    answer = await make_judge(timeout=1.0).complete(claims_request())

    assert answer.value == VALID_REPLY
    assert answer.call.attempts == faults + 1
    assert loopback_server.requests_total == faults + 1


@pytest.mark.parametrize(
    "fault",
    [server_error(500), drop_connection(), rate_limited(0.01), hang(3.0)],
    ids=["http-500", "dropped-connection", "rate-limited", "timeout"],
)
async def test_persistent_faults_raise_call_error_with_step_and_attempts(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, fault: Any
) -> None:
    loopback_server.set_responder(lambda body: fault)

    with pytest.raises(JudgeCallError) as raised:
        await make_judge(max_retries=2, timeout=0.3).complete(claims_request())

    requests = 2 if fault.kind == "hang" else 3  # a timeout is retried once only
    error = raised.value
    assert error.step == "source_judgement"
    assert error.attempts == requests
    assert error.__cause__ is not None
    assert f"failed {requests} times" in str(error)
    assert loopback_server.requests_total == requests


@pytest.mark.parametrize(
    ("status", "hint"),
    [(400, "Check the model name"), (401, "api_key"), (404, "check the model name")],
)
async def test_non_retryable_errors_fail_at_once_with_advice_and_no_key(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, status: int, hint: str
) -> None:
    loopback_server.set_responder(
        lambda body: status_error(status, f"rejected; you sent {PLANTED_API_KEY}")
    )

    with pytest.raises(JudgeCallError) as raised:
        await make_judge().complete(claims_request())

    assert loopback_server.requests_total == 1
    assert raised.value.attempts == 1
    assert hint in str(raised.value)
    assert f"HTTP {status}" in str(raised.value)
    assert PLANTED_API_KEY not in str(raised.value)
    assert PLANTED_API_KEY not in repr(raised.value)
    assert PLANTED_API_KEY not in "".join(traceback.format_exception(raised.value))


async def test_missing_key_advice_names_the_environment_variable(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    loopback_server.set_responder(lambda body: status_error(401, "invalid key"))

    with pytest.raises(JudgeCallError, match="check the key in OPENAI_API_KEY"):
        await make_judge(api_key=None).complete(claims_request())


# -- concurrency -----------------------------------------------------------------------------


async def test_server_never_sees_more_requests_in_flight_than_the_judge_allows(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.latency_s = 0.05
    loopback_server.set_responder(answer_valid)
    judge = make_judge(concurrency=4)

    answers = await asyncio.gather(
        *(judge.complete(claims_request(f"summary {index}")) for index in range(24))
    )

    assert len(answers) == 24
    assert loopback_server.requests_total == 24
    assert 2 <= loopback_server.max_in_flight <= 4


async def test_shared_call_limit_caps_two_judges_together(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.latency_s = 0.05
    loopback_server.set_responder(answer_valid)
    first, second = make_judge(concurrency=8), make_judge(concurrency=8)

    with shared_call_limit(3):
        await asyncio.gather(
            *(first.complete(claims_request(f"first {index}")) for index in range(12)),
            *(second.complete(claims_request(f"second {index}")) for index in range(12)),
        )

    assert loopback_server.requests_total == 24
    assert 2 <= loopback_server.max_in_flight <= 3


# -- cache -----------------------------------------------------------------------------------


async def test_identical_request_is_answered_from_the_cache(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    loopback_server.enqueue(reply(VALID_REPLY, usage={"prompt_tokens": 5, "completion_tokens": 2}))
    judge = make_judge(cache=judge_cache_dir)

    first = await judge.complete(claims_request())
    second = await judge.complete(claims_request())

    assert loopback_server.requests_total == 1
    assert second.value == first.value
    assert second.call.cached is True
    assert second.call.latency_s == 0
    assert second.call.attempts == 0
    assert (second.call.raw_reply, second.call.usage, second.call.cost) == (
        first.call.raw_reply,
        first.call.usage,
        first.call.cost,
    )
    assert second.call.prompt == first.call.prompt


def test_rerun_with_a_new_judge_on_a_new_loop_makes_no_request(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    loopback_server.set_responder(answer_valid)
    requests = [claims_request(f"summary {index}") for index in range(5)]

    async def run(judge: LiteLLMJudge) -> list[dict[str, Any]]:
        answers = await asyncio.gather(*(judge.complete(request) for request in requests))
        return [answer.value for answer in answers]

    first_run = asyncio.run(run(make_judge(cache=judge_cache_dir)))
    loopback_server.reset()
    second_run = asyncio.run(run(make_judge(cache=judge_cache_dir)))

    assert loopback_server.requests_total == 0
    assert second_run == first_run


def test_a_rerun_against_the_same_model_behind_a_new_port_makes_no_request(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    loopback_server.set_responder(answer_valid)
    first = asyncio.run(make_judge(cache=judge_cache_dir).complete(claims_request()))

    with LoopbackServer(responder=answer_valid) as restarted:  # same host, a new port
        assert restarted.url != loopback_server.url
        again = asyncio.run(
            make_judge(cache=judge_cache_dir, api_base=restarted.url).complete(claims_request())
        )
        assert restarted.requests_total == 0
    assert again.call.cached and again.value == first.value
    assert loopback_server.requests_total == 1


def test_cache_as_names_the_model_across_hosts_and_keeps_two_models_apart(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    loopback_server.set_responder(answer_valid)
    asyncio.run(make_judge(cache=judge_cache_dir, cache_as="smollm2").complete(claims_request()))

    # Another host's address (never called: the cache answers) under the same name.
    moved = make_judge(cache=judge_cache_dir, cache_as="smollm2", api_base="http://10.9.9.9:1/v1")
    assert asyncio.run(moved.complete(claims_request())).call.cached
    # Another model behind the same model string and server: its own name, its own calls.
    other = asyncio.run(
        make_judge(cache=judge_cache_dir, cache_as="qwen").complete(claims_request())
    )
    assert not other.call.cached
    assert loopback_server.requests_total == 2


def test_a_cache_written_with_the_port_in_its_keys_is_still_read(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    request = claims_request()
    judge = make_judge(cache=judge_cache_dir)
    assert judge.cache is not None
    old_key = call_key(  # the key as it was written before the port was left out
        model="openai/loopback",
        api_base=loopback_server.url,
        step=request.step,
        parameters=key_parameters(
            temperature=0.0, seed=None, max_tokens=judge._max_tokens(request), extra={}
        ),
        form="json_schema",
        schema=request.schema,
        messages=request.messages,
    )
    judge.cache.put(
        old_key, model="openai/loopback", step=request.step, value=VALID_REPLY, raw_reply=None
    )

    answer = asyncio.run(judge.complete(request))

    assert answer.call.cached and answer.value == VALID_REPLY
    assert loopback_server.requests_total == 0


@pytest.mark.parametrize(
    ("judge_options", "request_change"),
    [
        ({"temperature": 0.7}, {}),
        ({"seed": 3}, {}),
        ({"max_tokens": 64}, {}),
        ({"model": "openai/another-loopback"}, {}),
        ({}, {"user": "a different summary"}),
        ({}, {"schema": {**CLAIMS_SCHEMA, "required": ["claims"]}}),
        ({}, {"step": "coverage"}),
    ],
    ids=["temperature", "seed", "litellm-option", "model", "messages", "schema", "step"],
)
async def test_any_change_to_the_request_misses_the_cache(
    loopback_server: LoopbackServer,
    make_judge: JudgeFactory,
    judge_cache_dir: Path,
    judge_options: dict[str, Any],
    request_change: dict[str, Any],
) -> None:
    loopback_server.set_responder(answer_valid)
    await make_judge(cache=judge_cache_dir).complete(claims_request())

    changed = await make_judge(cache=judge_cache_dir, **judge_options).complete(
        claims_request(**request_change)
    )

    assert changed.call.cached is False
    assert loopback_server.requests_total == 2


async def test_the_api_key_and_secret_options_are_not_part_of_the_key(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    loopback_server.set_responder(answer_valid)
    await make_judge(cache=judge_cache_dir).complete(claims_request())

    other_key = make_judge(
        cache=judge_cache_dir,
        api_key="sk-another-key-456",
        extra={"extra_headers": {"X-Api-Token": "token-789"}},
    )
    answer = await other_key.complete(claims_request())

    assert answer.call.cached is True
    assert loopback_server.requests_total == 1


async def test_failures_are_not_cached(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    judge = make_judge(cache=judge_cache_dir, max_repairs=0, max_retries=0)
    loopback_server.enqueue(invalid_json(), server_error(500))
    with pytest.raises(JudgeReplyError):
        await judge.complete(claims_request())
    with pytest.raises(JudgeCallError):
        await judge.complete(claims_request())
    assert judge.cache is not None
    assert len(judge.cache) == 0

    loopback_server.set_responder(answer_valid)
    answer = await judge.complete(claims_request())

    assert answer.call.cached is False
    assert loopback_server.requests_total == 3
    assert len(judge.cache) == 1


async def test_cache_false_turns_the_cache_off(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.set_responder(answer_valid)
    judge = make_judge(cache=False)

    await judge.complete(claims_request())
    again = await judge.complete(claims_request())

    assert judge.cache is None
    assert again.call.cached is False
    assert loopback_server.requests_total == 2


async def test_cache_true_uses_the_default_directory(
    loopback_server: LoopbackServer,
    make_judge: JudgeFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EVALTOOLKIT_CACHE_DIR", str(tmp_path / "default"))
    loopback_server.set_responder(answer_valid)

    judge = make_judge(cache=True)
    await judge.complete(claims_request())

    assert judge.cache is not None
    assert judge.cache.path.parent == tmp_path / "default"
    assert len(judge.cache) == 1


async def test_a_judge_cache_instance_can_be_shared(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, judge_cache_dir: Path
) -> None:
    loopback_server.set_responder(answer_valid)
    shared = JudgeCache(judge_cache_dir)

    await make_judge(cache=shared).complete(claims_request())
    answer = await make_judge(cache=shared).complete(claims_request())

    assert answer.call.cached is True
    assert loopback_server.requests_total == 1


# -- secrets ---------------------------------------------------------------------------------


async def test_a_planted_api_key_leaks_nowhere(
    loopback_server: LoopbackServer,
    make_judge: JudgeFactory,
    judge_cache_dir: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("evaltoolkit", *LITELLM_LOGGER_NAMES):
        caplog.set_level(logging.DEBUG, logger=name)
    judge = make_judge(cache=judge_cache_dir, max_retries=1, max_repairs=1)
    loopback_server.enqueue(
        server_error(500),
        invalid_json(),
        reply(VALID_REPLY),
        status_error(401, f"Incorrect API key provided: {PLANTED_API_KEY}"),
        server_error(500),
        server_error(500),
    )

    produced: list[object] = [judge]
    produced.append(await judge.complete(claims_request("first")))
    produced.append(await judge.complete(claims_request("first")))  # a cache hit
    for user in ("second", "third"):
        with pytest.raises(JudgeCallError) as raised:
            await judge.complete(claims_request(user))
        produced.extend([raised.value, "".join(traceback.format_exception(raised.value))])

    assert loopback_server.request_headers[0]["authorization"] == f"Bearer {PLANTED_API_KEY}"
    texts = [repr(item) for item in produced] + [str(item) for item in produced]
    for text in texts:
        assert PLANTED_API_KEY not in text
    assert PLANTED_API_KEY not in caplog.text
    out, err = capfd.readouterr()
    assert PLANTED_API_KEY not in out + err
    assert judge.cache is not None
    cache_files = list(judge.cache.path.parent.iterdir())
    assert cache_files
    for path in cache_files:
        assert PLANTED_API_KEY.encode() not in path.read_bytes()


# -- usage and cost --------------------------------------------------------------------------


async def test_cost_comes_from_litellm_price_map_for_a_known_model(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 100}
    loopback_server.enqueue(reply(VALID_REPLY, usage=usage))

    answer = await make_judge(model="openai/gpt-4o-mini").complete(claims_request())

    assert answer.call.usage == Usage(prompt_tokens=1000, completion_tokens=100)
    assert answer.call.cost is not None
    assert answer.call.cost > 0


# -- event loops and threads -----------------------------------------------------------------


# Event loops running at once in several threads share litellm's one background logging worker,
# which then strands tasks on loops that close (BerriAI/litellm#36548): noise, not wrong results.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore:coroutine 'Logging.async_success_handler' was never awaited")
def test_asyncio_run_repeatedly_and_from_threads(
    loopback_server: LoopbackServer, make_judge: JudgeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    loopback_server.set_responder(answer_valid)
    judge = make_judge()
    caplog.set_level(logging.WARNING)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        sequential = [asyncio.run(judge.complete(claims_request())).value for _ in range(4)]
        gc.collect()

    assert sequential == [VALID_REPLY] * 4
    assert not [w for w in caught if "unclosed" in str(w.message)]
    assert "event loop changed" not in caplog.text

    from_threads: list[dict[str, Any]] = []

    def work() -> None:
        from_threads.append(asyncio.run(judge.complete(claims_request())).value)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    gc.collect()  # collect the stranded tasks here, under this test's warning filter

    assert from_threads == [VALID_REPLY] * 4
    assert loopback_server.requests_total == 8


async def test_sync_api_inside_a_running_loop(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.set_responder(answer_valid)
    judge = make_judge(concurrency=2)

    in_loop = await judge.complete(claims_request())
    from_worker_thread = run_sync(judge.complete(claims_request("other")))

    assert in_loop.value == from_worker_thread.value == VALID_REPLY


async def test_under_mixed_faults_every_call_ends_once_with_a_reply_or_a_judge_error(
    loopback_server: LoopbackServer, make_judge: JudgeFactory
) -> None:
    loopback_server.set_responder(
        cycle(
            [
                reply(VALID_REPLY),
                server_error(500),
                reply(VALID_REPLY),
                reply(VALID_REPLY),
                drop_connection(),
                reply(VALID_REPLY),
                rate_limited(0.01),
                reply(VALID_REPLY),
                invalid_json(),
                reply(VALID_REPLY),
            ]
        )
    )
    judge = make_judge(concurrency=8, max_retries=2, max_repairs=1)

    outcomes = await asyncio.gather(
        *(judge.complete(claims_request(f"summary {index}")) for index in range(50)),
        return_exceptions=True,
    )

    assert len(outcomes) == 50
    failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    judge_errors = [failure for failure in failures if isinstance(failure, JudgeError)]
    assert judge_errors == failures
    assert all(error.step == "source_judgement" for error in judge_errors)
    replies = [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]
    assert len({answer.call.prompt for answer in replies}) == len(replies)
    assert len(replies) >= 40
    assert all(answer.value == VALID_REPLY for answer in replies)


# -- configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"model": ""},
        {"model": "offline"},
        {"concurrency": 0},
        {"max_retries": -1},
        {"max_repairs": -1},
        {"timeout": 0},
        {"messages": []},
        {"num_retries": 3},
        {"cache": 123},
        {"backoff_base": -1.0},
    ],
)
def test_invalid_options_are_configuration_errors(
    make_judge: JudgeFactory, options: dict[str, Any]
) -> None:
    with pytest.raises(ConfigurationError):
        make_judge(**options)


def test_repr_names_the_model_but_never_the_key(make_judge: JudgeFactory) -> None:
    judge = make_judge()

    assert "openai/loopback" in repr(judge)
    assert PLANTED_API_KEY not in repr(judge)


def test_importing_the_judge_modules_does_not_import_litellm_or_jsonschema() -> None:
    code = (
        "import sys, evaltoolkit, evaltoolkit.judge._litellm, evaltoolkit.judge._cache, "
        "evaltoolkit.judge._parse\n"
        "print(sorted(name for name in ('litellm', 'jsonschema') if name in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )

    assert result.stdout.strip() == "[]"


def test_creating_a_model_scorer_imports_litellm_in_the_background() -> None:
    code = (
        "import sys, evaltoolkit as et\n"
        "from evaltoolkit.judge import _litellm_runtime as runtime\n"
        "et.create_summarization_scorer('offline')\n"
        "print(runtime._import_thread is None, 'litellm' in sys.modules)\n"
        "et.create_summarization_scorer('openai/gpt-4o-mini', cache=False)\n"
        "runtime._import_thread.join(120)\n"
        "print(runtime._litellm_module is sys.modules['litellm'])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=180
    )

    # The offline scorer starts nothing; a model scorer's judge starts the import, no call made.
    assert result.stdout.split() == ["True", "False", "True"]
