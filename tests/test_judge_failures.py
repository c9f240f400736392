"""Failures no retry can fix: they stop the judge at once, say what to do, and leak no key."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest
from _support import DATA
from loopback_server import LoopbackServer, raw_body, reply, status_error

import evaltoolkit as et
from evaltoolkit.errors import JudgeCallError
from evaltoolkit.judge import JudgeRequest
from evaltoolkit.judge._litellm import LiteLLMJudge
from evaltoolkit.judge._litellm_runtime import LITELLM_LOGGER_NAMES

# Not shaped like an OpenAI key: only masking the environment's values can catch it.
ENVIRONMENT_KEY = "gsk_Planted0environment0Key0987"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}


def request(text: str = "Is it fine?") -> JudgeRequest:
    return JudgeRequest(
        step="verdict",
        stage="analyze",
        messages=({"role": "user", "content": text},),
        schema=SCHEMA,
    )


def authorization(headers: dict[str, str]) -> str:
    return {name.lower(): value for name, value in headers.items()}["authorization"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_key_from_the_environment_echoed_in_a_401_leaks_nowhere(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    loopback_server.set_responder(
        lambda body: status_error(
            401, "Incorrect API key provided: {header}", echo_header="Authorization"
        )
    )
    out = tmp_path / "scored.csv"
    cache = tmp_path / "cache"
    environment = {
        **os.environ,
        "OPENAI_API_KEY": ENVIRONMENT_KEY,
        "EVALTOOLKIT_CACHE_DIR": str(cache),
        "LITELLM_LOG": "DEBUG",  # litellm's most talkative logging, to stderr
    }
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaltoolkit",
            "run",
            str(DATA / "demo_answers.jsonl"),
            "--scorer",
            "answer-similarity",
            "--model",
            "openai/loopback",
            "--api-base",
            loopback_server.url,
            "--out",
            str(out),
            "--no-progress",
        ],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )

    headers = loopback_server.request_headers
    assert headers and authorization(headers[0]) == f"Bearer {ENVIRONMENT_KEY}"
    assert ENVIRONMENT_KEY not in completed.stdout + completed.stderr
    assert "refused the credentials" in completed.stdout + completed.stderr
    assert out.exists()
    exported = out.read_text(encoding="utf-8")
    assert "refused the credentials" in exported
    assert ENVIRONMENT_KEY not in exported
    for path in cache.rglob("*"):
        if path.is_file():
            assert ENVIRONMENT_KEY.encode() not in path.read_bytes()


async def test_an_echoed_key_is_masked_in_errors_results_and_logs(
    loopback_server: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", ENVIRONMENT_KEY)
    for name in ("evaltoolkit", *LITELLM_LOGGER_NAMES):
        caplog.set_level(logging.DEBUG, logger=name)
    loopback_server.set_responder(
        lambda body: status_error(401, "you sent {header}", echo_header="Authorization")
    )
    judge = LiteLLMJudge(
        "openai/loopback", api_base=loopback_server.url, api_key=ENVIRONMENT_KEY, cache=False
    )

    with pytest.raises(JudgeCallError) as raised:
        await judge.complete(request())
    logging.getLogger("LiteLLM").warning("provider said: Bearer %s", ENVIRONMENT_KEY)

    seen = [
        str(raised.value),
        repr(raised.value),
        "".join(traceback.format_exception(raised.value)),
    ]
    assert authorization(loopback_server.request_headers[0]).endswith(ENVIRONMENT_KEY)
    assert all(ENVIRONMENT_KEY not in text for text in seen)
    assert "***" in str(raised.value)
    assert ENVIRONMENT_KEY not in caplog.text
    out, err = capfd.readouterr()
    assert ENVIRONMENT_KEY not in out + err


async def test_refused_credentials_stop_the_judge_after_the_first_call(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.set_responder(lambda body: status_error(401, "invalid key"))
    judge = LiteLLMJudge(
        "openai/loopback", api_base=loopback_server.url, api_key="sk-wrong-key-000", cache=False
    )

    outcomes = []
    for index in range(5):
        with pytest.raises(JudgeCallError) as raised:
            await judge.complete(request(f"item {index}"))
        outcomes.append(raised.value)

    assert loopback_server.requests_total == 1
    assert outcomes[0].attempts == 1
    assert all(error.attempts == 0 for error in outcomes[1:])
    assert all("refused the credentials" in str(error) for error in outcomes)
    assert all("check the api_key given to the judge" in str(error) for error in outcomes)


def test_a_missing_key_fails_every_item_before_any_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    scorer = et.create_answer_similarity_scorer("openai/gpt-4o-mini", cache=False)
    items = [
        {"input": f"q{index}", "output": "Paris", "ground_truth": "Paris"} for index in range(200)
    ]

    result = et.run_evals(items, scorer, progress=False)

    errors = [item.scorer_results["answer-similarity"].error for item in result]
    assert all(error is not None for error in errors)
    assert all(
        "set OPENAI_API_KEY in the environment" in error.message for error in errors if error
    )
    assert all(error.attempts == 0 for error in errors if error)
    assert result.scores["answer-similarity"].failed == 200


async def test_a_refused_connection_names_the_url_and_is_not_retried() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    judge = LiteLLMJudge("openai/loopback", api_base=url, api_key="sk-any-key-123", cache=False)

    with pytest.raises(JudgeCallError) as first:
        await judge.complete(request())
    with pytest.raises(JudgeCallError) as second:
        await judge.complete(request("another"))

    assert url in str(first.value)
    assert "connection refused" in str(first.value)
    assert first.value.attempts == 1
    assert second.value.attempts == 0
    assert url in str(second.value)


async def test_an_unknown_provider_is_not_retried() -> None:
    judge = LiteLLMJudge("no-such-provider-model", api_key="sk-any-key-123", cache=False)

    with pytest.raises(JudgeCallError, match="provider/model") as raised:
        await judge.complete(request())

    assert raised.value.attempts <= 1


async def test_a_self_hosted_server_without_a_key_gets_a_placeholder(
    loopback_server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    loopback_server.enqueue(reply({"ok": True}))
    judge = LiteLLMJudge("openai/loopback", api_base=loopback_server.url, cache=False)

    answer = await judge.complete(request())

    assert answer.value == {"ok": True}
    assert authorization(loopback_server.request_headers[0]) == "Bearer no-key-required"


def test_the_stopped_judge_error_reaches_every_remaining_item_in_a_run(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.latency_s = 0.02
    loopback_server.set_responder(lambda body: status_error(403, "forbidden"))
    scorer = et.create_summarization_scorer(
        "openai/loopback", api_base=loopback_server.url, api_key="sk-any-key-123", cache=False
    )
    items = [{"input": f"Source {index}.", "output": "Summary."} for index in range(40)]

    result = et.run_evals(items, scorer, concurrency=4, progress=False)

    assert result.scores["summarization"].failed == 40
    assert loopback_server.requests_total <= 4  # only the calls already in flight
    messages = {item.scorer_results["summarization"].error.message for item in result}  # type: ignore[union-attr]
    assert all("HTTP 403" in message for message in messages)


def test_judge_errors_keep_their_json_shape_in_exports(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    loopback_server.set_responder(lambda body: status_error(401, "nope"))
    scorer = et.create_answer_similarity_scorer(
        "openai/loopback", api_base=loopback_server.url, api_key="sk-any-key-123", cache=False
    )
    result = et.run_evals(
        [{"input": "q", "output": "a", "ground_truth": "a"}], scorer, progress=False
    )

    path = result.to_jsonl(tmp_path / "out.jsonl")

    row = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert row["error_step"] == "extract"
    assert "HTTP 401" in row["error"]
    assert asyncio.iscoroutinefunction(LiteLLMJudge.complete)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (500, "Context size has been exceeded."),  # llama.cpp's llama-server
        (400, "the request exceeds the available context size, try increasing it"),
    ],
)
async def test_a_prompt_longer_than_the_context_is_not_retried_and_says_what_to_do(
    loopback_server: LoopbackServer, status: int, message: str
) -> None:
    loopback_server.set_responder(lambda body: status_error(status, message))
    judge = LiteLLMJudge(
        "openai/loopback",
        api_base=loopback_server.url,
        api_key="sk-any-key-123",
        cache=False,
        max_retries=3,
        backoff_base=0.01,
    )

    with pytest.raises(JudgeCallError) as raised:
        await judge.complete(request())

    assert loopback_server.requests_total == 1  # a longer wait does not shorten the prompt
    text = str(raised.value)
    assert "does not fit the context of 'openai/loopback'" in text
    assert "raise -c or lower -np" in text
    loopback_server.set_responder(lambda body: reply({"ok": True}))
    assert (await judge.complete(request("short"))).value == {"ok": True}  # not fatal


def _fast_judge(server: LoopbackServer) -> LiteLLMJudge:
    return LiteLLMJudge(
        "openai/loopback",
        api_base=server.url,
        api_key="sk-loopback-000",
        cache=False,
        backoff_base=0.01,
    )


@pytest.mark.parametrize(
    "body",
    [b"\xff\xfe\x00garbage\x81", b"<html><body>Proxy login</body></html>", b""],
    ids=["not-utf8", "a-web-page", "empty"],
)
async def test_a_successful_reply_whose_body_is_not_json_is_named_and_not_retried(
    loopback_server: LoopbackServer, body: bytes
) -> None:
    loopback_server.set_responder(lambda _: raw_body(body))
    judge = _fast_judge(loopback_server)

    with pytest.raises(JudgeCallError) as raised:
        await judge.complete(request())
    with pytest.raises(JudgeCallError) as later:
        await judge.complete(request("another item"))

    message = str(raised.value)
    assert "not a chat-completion JSON reply" in message
    assert "HTTP 500" not in message and "server error" not in message
    assert "api_base" in message
    assert loopback_server.requests_total == 1  # no retry, and the judge stopped calling
    assert raised.value.attempts == 1
    assert "not called" in str(later.value)


async def test_a_real_server_error_with_a_web_page_is_still_retried(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.enqueue(raw_body(b"<html>bad gateway</html>", status=502))
    loopback_server.set_responder(lambda _: reply({"ok": True}))
    judge = _fast_judge(loopback_server)

    answered = await judge.complete(request())

    assert answered.value == {"ok": True}
    assert loopback_server.requests_total == 2
