"""The judge services (cache, retries, fail-fast stop, limits, accounting) around any backend.

A backend here is a small class with no litellm in it; the services must treat it exactly as
they treat the litellm judge.
"""

from __future__ import annotations

import asyncio
import json
import math
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from judge_script import script_steps, step_of
from loopback_server import Action, LoopbackServer, reply

import evaltoolkit as et
from evaltoolkit.errors import ConfigurationError, JudgeCallError
from evaltoolkit.judge import (
    BackendReply,
    JudgeBackend,
    JudgeConfig,
    JudgeReply,
    JudgeRequest,
    ServicedJudge,
    create_judge,
)
from evaltoolkit.judge._litellm import LiteLLMBackend, LiteLLMJudge
from evaltoolkit.judge._retry import FailureKind
from evaltoolkit.judge._single_flight import SingleFlight
from evaltoolkit.records import ModelCall, Usage
from evaltoolkit.records._internal import sum_usage

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"cites": {"type": "boolean"}},
    "required": ["cites"],
    "additionalProperties": False,
}
ITEMS = [{"id": str(n), "input": "Q?", "output": f"according to source {n}"} for n in range(8)]


class RateLimited(Exception):
    """A provider's 429 with a Retry-After, as a backend's own client would raise it."""

    status_code = 429

    def __init__(self, retry_after_s: float) -> None:
        super().__init__("slow down")
        self.headers = {"retry-after": str(retry_after_s)}


class CountingBackend:  # the twenty-line custom judge: no litellm, no HTTP
    model = "custom/keyword"

    def __init__(self, failures: list[Exception] | None = None) -> None:
        self.failures = list(failures or [])
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0

    async def send(self, request: JudgeRequest) -> BackendReply:
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.01)
            if self.failures:
                raise self.failures.pop(0)
            text = request.messages[-1]["content"]
            return BackendReply(
                {"cites": "according to" in text}, raw_reply="yes", usage=Usage(7, 2)
            )
        finally:
            self.in_flight -= 1


def cites_scorer(model: Any, **options: Any) -> et.JudgedScorer:
    step = et.Step(name="cites", prompt="Does it cite? {{output}}", schema=SCHEMA)
    return et.create_judged_scorer(
        id="cites",
        steps=[step],
        score=lambda context: 1.0 if context.replies["cites"]["cites"] else 0.0,
        model=model,
        **options,
    )


def calls_of(result: et.EvalResult) -> list[ModelCall]:
    return [call for item in result for call in item.scorer_results["cites"].calls]


FAST = {"backoff_base": 0.001, "backoff_max": 0.005}


def test_a_custom_backend_is_cached_retried_limited_and_counted(tmp_path: Path) -> None:
    backend = CountingBackend(failures=[TimeoutError("scripted"), ConnectionError("dropped")])
    scorer = cites_scorer(backend, cache=tmp_path, concurrency=2, **FAST)

    first = et.run_evals(ITEMS, scorer, concurrency=8, progress=False)

    assert [item.scorer_results["cites"].score for item in first] == [1.0] * len(ITEMS)
    assert backend.calls == len(ITEMS) + 2  # the two scripted failures were retried
    assert backend.max_in_flight <= 2
    calls = calls_of(first)
    assert len(calls) == len(ITEMS)
    assert sum(call.attempts for call in calls) == backend.calls  # retries counted on the call
    assert max(call.attempts for call in calls) >= 2
    assert all(call.usage == Usage(7, 2) and not call.cached for call in calls)
    assert first.usage == Usage(7 * len(ITEMS), 2 * len(ITEMS))
    assert all(call.model == "custom/keyword" and call.raw_reply == "yes" for call in calls)

    rerun_backend = CountingBackend()
    second = et.run_evals(ITEMS, cites_scorer(rerun_backend, cache=tmp_path), progress=False)

    assert rerun_backend.calls == 0
    assert all(call.cached and call.attempts == 0 for call in calls_of(second))
    assert [item.scorer_results["cites"].score for item in second] == [1.0] * len(ITEMS)


def test_a_retry_after_is_waited_and_refused_credentials_stop_the_judge() -> None:
    backend = CountingBackend(failures=[RateLimited(0.2)])
    judge = create_judge(backend, cache=False, **FAST)
    request = JudgeRequest(
        step="cites", stage="analyze", messages=({"role": "user", "content": "x"},), schema=SCHEMA
    )

    started = time.perf_counter()
    reply = asyncio.run(judge.complete(request))

    assert time.perf_counter() - started >= 0.2
    assert reply.call.attempts == 2

    refused = CountingBackend(failures=[PermissionError("key revoked")])
    result = et.run_evals(
        ITEMS[:3], cites_scorer(refused, cache=False, **FAST), concurrency=1, progress=False
    )

    assert refused.calls == 1  # never retried, and no later item was sent
    errors = [item.scorer_results["cites"].error for item in result]
    assert all(error is not None and "key revoked" in error.message for error in errors)
    assert all(math.isnan(item.scorer_results["cites"].score) for item in result)


def test_retries_run_out_into_an_item_error_with_the_attempts() -> None:
    backend = CountingBackend(failures=[TimeoutError("slow")] * 5)
    judge = ServicedJudge(backend, cache=False, max_retries=4, timeout=1.0, **FAST)
    request = JudgeRequest(
        step="cites", stage="analyze", messages=({"role": "user", "content": "x"},), schema=SCHEMA
    )

    with pytest.raises(JudgeCallError) as raised:
        asyncio.run(judge.complete(request))

    assert backend.calls == 2  # a timed-out request is retried once
    assert raised.value.attempts == 2


def test_a_reply_that_breaks_the_schema_is_an_item_error_not_a_zero() -> None:
    class Wrong(CountingBackend):
        async def send(self, request: JudgeRequest) -> BackendReply:
            return BackendReply({"cites": "maybe"}, raw_reply="maybe")

    result = et.run_evals(ITEMS[:1], cites_scorer(Wrong(), cache=False), progress=False)

    outcome = result[0].scorer_results["cites"]
    assert math.isnan(outcome.score)
    assert outcome.error is not None and outcome.error.kind == "JudgeReplyError"
    assert "schema" in outcome.error.message and outcome.error.raw_reply == "maybe"


def test_a_judge_object_gets_the_services_when_given_service_options(tmp_path: Path) -> None:
    class Plain:
        model = "custom/plain"
        offline = False
        calls = 0

        async def complete(self, request: JudgeRequest) -> JudgeReply:
            Plain.calls += 1
            call = ModelCall(
                step=request.step, stage=request.stage, model=self.model, prompt="", raw_reply=None
            )
            return JudgeReply({"cites": True}, call)

    plain = Plain()
    assert create_judge(plain) is plain  # no options: used as it is

    for _ in range(2):
        et.run_evals(ITEMS, cites_scorer(Plain(), cache=tmp_path), progress=False)

    assert Plain.calls == len(ITEMS)
    with pytest.raises(ConfigurationError, match="temperature"):
        create_judge(plain, temperature=0.3)
    serviced = create_judge(plain, cache=False)
    with pytest.raises(ConfigurationError, match="already"):
        create_judge(serviced, cache=False)  # never two caches around one backend
    with pytest.raises(ConfigurationError, match="judge backend"):
        create_judge(object())  # type: ignore[arg-type]


def test_a_serviced_judge_pickles_with_its_backend_and_reopens_its_cache(tmp_path: Path) -> None:
    judge = ServicedJudge(CountingBackend(), cache=tmp_path / "c", concurrency=3)

    copy = pickle.loads(pickle.dumps(judge))

    assert isinstance(copy, ServicedJudge)
    assert copy.model == "custom/keyword" and copy.concurrency == 3
    assert copy.cache is not None and judge.cache is not None
    assert copy.cache.path == judge.cache.path


def cites_request(text: str = "x") -> JudgeRequest:
    return JudgeRequest(
        step="cites", stage="analyze", messages=({"role": "user", "content": text},), schema=SCHEMA
    )


def test_a_backend_names_its_server_cache_keys_failure_hook_and_credentials_hint(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    class Described(CountingBackend):
        api_base = "http://10.0.0.9:8000/v1"

        def cache_keys(self, request: JudgeRequest, *, every: bool) -> list[str]:
            return [f"key-of-{request.messages[-1]['content']}"]

        def on_failure(self, error: BaseException, failure: FailureKind, made: int) -> None:
            seen.append(failure.label)

        def credentials_hint(self) -> str:
            return "rotate the custom key"

    backend = Described(failures=[RateLimited(0.0), PermissionError("key revoked")])
    judge = ServicedJudge(backend, cache=tmp_path, **FAST)
    assert judge.api_base == "http://10.0.0.9:8000/v1"
    assert judge.cached_value(cites_request("according to a")) is None

    with pytest.raises(JudgeCallError) as raised:
        asyncio.run(judge.complete(cites_request("according to a")))

    assert len(seen) == 2 and seen[0] != seen[1]  # the hook saw both failures, in order
    assert "rotate the custom key" in str(raised.value)
    assert "10.0.0.9" in str(raised.value)

    healthy = ServicedJudge(Described(), cache=tmp_path)
    asyncio.run(healthy.complete(cites_request("according to a")))
    assert healthy.cache is not None
    hit = healthy.cache.get("key-of-according to a")  # stored under the backend's own key
    assert hit is not None and hit.value == {"cites": True}
    assert healthy.cached_value(cites_request("according to a")) == {"cites": True}
    assert healthy.cached_value(cites_request("other")) is None


def test_a_plain_backend_reply_is_found_by_cached_value_without_a_request(tmp_path: Path) -> None:
    backend = CountingBackend()
    judge = ServicedJudge(backend, cache=tmp_path)
    request = cites_request("according to b")
    assert judge.cached_value(request) is None

    asyncio.run(judge.complete(request))

    assert judge.cached_value(request) == {"cites": True}
    assert backend.calls == 1
    assert judge.config == JudgeConfig(model="custom/keyword", cache=tmp_path)


def test_judge_options_become_a_config_in_one_place() -> None:
    config = JudgeConfig(model="openai/x", temperature=0.2, cache=False)

    assert JudgeConfig.from_options(config) is config
    assert JudgeConfig.from_options(config, maxTokens=64) == config.replace(max_tokens=64)
    assert create_judge(config, max_tokens=64).config.max_tokens == 64  # type: ignore[attr-defined]
    with pytest.raises(ConfigurationError, match="did you mean 'temperature'"):
        JudgeConfig.from_options(config, temprature=0.5)
    with pytest.raises(ConfigurationError, match="did you mean 'timeout'"):
        ServicedJudge(CountingBackend(), timout=3)


def test_the_litellm_judge_is_its_backend_served_by_the_same_services(
    loopback_server: LoopbackServer,
    make_judge: Callable[..., LiteLLMJudge],
    tmp_path: Path,
) -> None:
    loopback_server.set_responder(lambda body: reply({"cites": True}))
    judge = make_judge(cache=tmp_path, concurrency=3)

    assert isinstance(judge, ServicedJudge)
    backend = judge.backend
    assert isinstance(backend, LiteLLMBackend) and isinstance(backend, JudgeBackend)
    assert (backend.model, backend.api_base) == (judge.model, loopback_server.url)
    asyncio.run(judge.complete(cites_request()))
    assert loopback_server.requests_total == 1
    assert judge.cached_value(cites_request()) == {"cites": True}

    copy = pickle.loads(pickle.dumps(judge))

    assert isinstance(copy, LiteLLMJudge) and copy.config == judge.config
    assert isinstance(copy.backend, LiteLLMBackend) and copy.backend is not backend
    assert asyncio.run(copy.complete(cites_request())).call.cached
    # The backend alone answers a step with no services around it: no cache, no retries.
    alone = asyncio.run(backend.send(cites_request()))
    assert alone.value == {"cites": True} and alone.usage is not None
    assert loopback_server.requests_total == 2


# -- single-flight, counted on the loopback server ------------------------------------------

SOURCE = (
    "The Zephyr observatory opened in 2011 on Mount Arlo. It houses a 4-metre telescope. "
    "Its first director was Dr. Ines Vardi."
)
SUMMARIES = [f"Summary {n}: the Zephyr observatory opened in 2011." for n in range(16)]
STEP_REPLIES: dict[str, Any] = {
    "source_judgement": {
        "claims": [{"claim": "It opened in 2011.", "supported": True, "reason": "stated"}],
        "questions": ["Does the text say it opened in 2011?"],
    },
    "coverage": {
        "verdicts": [
            {"question": "Does the text say it opened in 2011?", "answered": True, "reason": "yes"}
        ]
    },
    "reason": {"reason": "Both axes are full."},
}


def slowly(value: dict[str, Any]) -> Callable[[dict[str, Any]], Action]:
    return lambda body: reply(value, delay_s=0.4)


def distinct_bodies(server: LoopbackServer) -> int:
    return len({json.dumps(body, sort_keys=True) for body in server.requests})


@pytest.mark.parametrize("cache", [True, False], ids=["cache-on", "cache-off"])
def test_identical_calls_in_flight_are_sent_once(
    loopback_server: LoopbackServer,
    make_judge: Callable[..., LiteLLMJudge],
    tmp_path: Path,
    cache: bool,
) -> None:
    # The reason step answers slowly, so that every item's identical call is in flight
    # before the first one is answered, however the items are scheduled.
    script_steps(loopback_server, {**STEP_REPLIES, "reason": slowly(STEP_REPLIES["reason"])})
    judge = make_judge(cache=tmp_path if cache else False)
    items = [{"id": n, "input": SOURCE, "output": summary} for n, summary in enumerate(SUMMARIES)]

    result = et.run_evals(
        items, et.create_summarization_scorer(judge), concurrency=16, progress=False
    )

    assert result.scores["summarization"].scored == 16
    # Each step's reply differs per summary except the reason's, which sees only the replies:
    # without single-flight, 48 requests for 33 distinct bodies.
    assert distinct_bodies(loopback_server) == 33
    assert loopback_server.requests_total == 33
    calls = [call for item in result for call in item.scorer_results["summarization"].calls]
    reasons = [call for call in calls if call.step == "reason"]
    (sent,) = [call for call in reasons if not call.cached]  # the others waited for it
    assert sent.attempts == 1
    assert all(call.attempts == 0 and call.usage == sent.usage for call in reasons if call.cached)
    assert sum(call.attempts for call in calls) == 33
    assert result.usage == sum_usage([call.usage for call in calls if not call.cached])


def test_a_failing_shared_call_fails_once_for_all_its_waiters(
    loopback_server: LoopbackServer, make_judge: Callable[..., LiteLLMJudge]
) -> None:
    unavailable = Action("status", status=503, delay_s=0.3)
    script_steps(loopback_server, {**STEP_REPLIES, "reason": lambda body: unavailable})
    items = [{"id": n, "input": SOURCE, "output": summary} for n, summary in enumerate(SUMMARIES)]
    items = items[:6]
    judge = make_judge(max_retries=1)

    result = et.run_evals(
        items, et.create_summarization_scorer(judge), concurrency=6, progress=False
    )

    reason_requests = [body for body in loopback_server.requests if step_of(body) == "reason"]
    assert len(reason_requests) == 2  # one request and its one retry, for all six items
    outcomes = [item.scorer_results["summarization"] for item in result]
    errors = [outcome.error for outcome in outcomes]
    assert all(error is not None and error.step == "reason" for error in errors)
    assert all("503" in error.message for error in errors if error is not None)
    assert len({id(error) for error in errors}) == 6  # each item has its own error
    assert sorted(error.attempts or 0 for error in errors if error is not None) == [0] * 5 + [2]
    assert all(math.isnan(outcome.score) for outcome in outcomes)
    assert len(result.to_frame()) == 6


def test_a_cancelled_waiter_leaves_the_shared_call_to_the_others() -> None:
    flights: SingleFlight[str] = SingleFlight()
    started: list[str] = []
    finished: list[str] = []

    async def work() -> str:
        started.append("sent")
        await asyncio.sleep(0.05)
        finished.append("done")
        return "reply"

    async def main() -> tuple[list[Any], list[str]]:
        first = asyncio.create_task(flights.run("key", work))
        await asyncio.sleep(0)
        others = [asyncio.create_task(flights.run("key", work)) for _ in range(2)]
        await asyncio.sleep(0.01)
        first.cancel()  # the caller whose work runs gives up; the work goes on for the others
        kept = await asyncio.gather(*others)
        lone = asyncio.create_task(flights.run("other", work))
        await asyncio.sleep(0.01)
        lone.cancel()  # nobody else waits: the work is cancelled
        await asyncio.gather(lone, return_exceptions=True)
        await asyncio.sleep(0.06)
        return kept, finished

    kept, done = asyncio.run(main())

    assert kept == [("reply", True), ("reply", True)]
    assert started == ["sent", "sent"]
    assert done == ["done"]  # the lone call's work did not run to its end
