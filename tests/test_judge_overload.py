"""The adaptive limit tells a server's overload from scattered faults, and honours Retry-After.

A provider that fails one call in five whatever the load keeps the run's concurrency; a server
refusing most calls, or whose replies come close to the timeout, lowers it (the one-slot
servers of test_local_servers.py); a ``Retry-After`` is waited by the call that got it, and by
every call to the server once it is overloaded.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import threading
import warnings
from typing import Any

import pytest
from conftest import PLANTED_API_KEY
from loopback_server import (
    Action,
    LoopbackServer,
    drop_connection,
    rate_limited,
    reply,
    server_error,
)

import evaltoolkit as et
from evaltoolkit.judge._adaptive import AdaptiveLimit, adaptive_limit


class RateLimited(Exception):
    status_code = 429

    def __init__(self, retry_after_s: float | None = None) -> None:
        super().__init__("rate limited")
        self.litellm_response_headers = (
            {} if retry_after_s is None else {"retry-after": str(retry_after_s)}
        )


class Unavailable(Exception):
    status_code = 503


def scattered_fault(rng: random.Random) -> BaseException | None:
    """One call's outcome at 20% faults of every overload kind, whatever the load."""
    if rng.random() >= 0.2:
        return None
    return rng.choice([RateLimited(0.5), Unavailable(), ConnectionResetError(), TimeoutError()])


@pytest.mark.parametrize("seed", range(10))
async def test_scattered_faults_at_one_in_five_leave_the_limit_alone(seed: int) -> None:
    rng = random.Random(seed)
    limit = AdaptiveLimit(f"http://127.0.0.1:{seed}/v1")
    in_flight = [await limit.acquire(ceiling=100) for _ in range(100)]
    faults = 0
    for _ in range(2000):
        ticket = in_flight.pop(0)
        outcome = scattered_fault(rng)
        # Replies take 0.05 s; a hung call runs to its 1 s timeout.
        ticket.started -= 1.0 if isinstance(outcome, TimeoutError) else 0.05
        faults += outcome is not None
        limit.release(ticket, outcome)
        assert limit.limit is None
        in_flight.append(await asyncio.wait_for(limit.acquire(ceiling=100), 1.0))

    assert 300 < faults < 500  # the faults did come, at about one in five
    assert limit.in_flight == 100


async def test_refusals_that_dominate_lower_the_limit_and_pause_for_retry_after() -> None:
    limit = AdaptiveLimit("http://127.0.0.1:3/v1")
    first = [await limit.acquire(ceiling=8) for _ in range(8)]
    for ticket in first[:5]:
        limit.release(ticket, RateLimited(0.3))
    assert limit.limit is None  # five refusals in five calls: not yet evidence enough
    limit.release(first[5], RateLimited(0.3))
    assert limit.limit == 1  # six of six: halved from the 3 then in flight
    for ticket in first[6:]:
        limit.release(ticket, None)
    assert limit.in_flight == 0

    # Room under the limit, but the server asked for 0.3 s before the next request.
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(limit.acquire(ceiling=8), 0.1)
    ticket = await asyncio.wait_for(limit.acquire(ceiling=8), 2.0)
    with pytest.warns(RuntimeWarning, match="answers one request at a time: lowered"):
        limit.release(ticket, None)


async def test_a_scattered_retry_after_holds_back_only_its_own_retry() -> None:
    limit = AdaptiveLimit("http://127.0.0.1:4/v1")
    first = [await limit.acquire(ceiling=8) for _ in range(8)]
    limit.release(first[0], RateLimited(30.0))

    others = await asyncio.wait_for(limit.acquire(ceiling=8), 0.5)  # no pause for the rest

    assert limit.limit is None
    for ticket in [*first[1:], others]:
        limit.release(ticket, None)


class ScatteredFaults:
    """Fails the first attempt of about one prompt in five: 429 with Retry-After, 503, a
    dropped connection, 500. (A hung request among quick replies is the unit test's.)"""

    FAULTS = (
        lambda: rate_limited(0.1),
        lambda: server_error(503),
        drop_connection,
        lambda: server_error(500),
    )

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self.seen: set[str] = set()
        self.faulted: dict[str, str] = {}
        self.in_flight_after_faults: list[int] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Action:
        prompt = body["messages"][-1]["content"]
        key = hashlib.sha256(prompt.encode()).hexdigest()
        with self.lock:
            first = key not in self.seen
            self.seen.add(key)
            if len(self.faulted) >= 10:
                self.in_flight_after_faults.append(self.server.in_flight)
        bucket = int(key[:8], 16) % 100
        if first and bucket < 20:
            fault = self.FAULTS[bucket % len(self.FAULTS)]()
            with self.lock:
                self.faulted[prompt] = fault.kind if fault.status != 429 else "429"
            return fault
        return reply({"cites": True})


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


def test_a_run_under_scattered_faults_keeps_its_concurrency(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.latency_s = 0.05
    faults = ScatteredFaults(loopback_server)
    loopback_server.set_responder(faults)
    scorer = et.create_judged_scorer(
        id="cites",
        steps=[CITES_STEP],
        score=lambda context: 1.0,
        model="openai/scattered",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        cache=False,
        backoff_base=0.01,
        backoff_max=0.02,
    )
    items = [{"id": index, "input": "q", "output": f"answer {index}"} for index in range(160)]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = et.run_evals(items, scorer, concurrency=32, progress=False)

    assert result.scores["cites"].scored == len(items)
    assert 20 <= len(faults.faulted) <= 50  # about one prompt in five failed once
    assert not [warning for warning in caught if "lowered" in str(warning.message)]
    assert adaptive_limit("openai/scattered", loopback_server.url).limit is None
    # Requests kept arriving many at a time after the faults began (the old limit fell to 1).
    assert max(faults.in_flight_after_faults) >= 16
    # Each 429's Retry-After was waited by its own retry.
    arrivals: dict[str, list[float]] = {}
    for body, when in zip(loopback_server.requests, loopback_server.request_times, strict=True):
        arrivals.setdefault(body["messages"][-1]["content"], []).append(when)
    rate_limited_prompts = [prompt for prompt, kind in faults.faulted.items() if kind == "429"]
    assert rate_limited_prompts
    for prompt in rate_limited_prompts:
        first, retry = arrivals[prompt][:2]
        assert retry - first >= 0.1 + 0.05 - 0.01  # the latency, then the Retry-After


class FailsFirstAttempts:
    """A backend whose every prompt fails ``failures`` times (with ``error``), then answers."""

    def __init__(self, model: str, failures: int, error: type[BaseException]) -> None:
        self.model = model
        self.failures = failures
        self.error = error
        self.attempts: dict[str, int] = {}

    async def send(self, request: et.judge.JudgeRequest) -> et.judge.BackendReply:
        await asyncio.sleep(0.005)
        prompt = request.messages[-1]["content"]
        self.attempts[prompt] = self.attempts.get(prompt, 0) + 1
        if self.attempts[prompt] <= self.failures:
            raise self.error()
        return et.judge.BackendReply({"cites": True}, raw_reply="yes")


def retry_waits(caplog: pytest.LogCaptureFixture) -> list[float]:
    """The waits the services logged: "... on attempt 2; retrying in 0.01 s"."""
    messages = [record.getMessage() for record in caplog.records]
    return [float(message.split()[-2]) for message in messages if "retrying in" in message]


@pytest.mark.filterwarnings("ignore:the server at custom/fails-8:RuntimeWarning")
@pytest.mark.parametrize("prompts", [1, 8], ids=["scattered", "overload"])
def test_retry_waits_grow_only_under_overload(
    prompts: int, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scattered fault's retry waits within the first ceiling whatever its number (the fault
    is as likely at any moment); once failures dominate (overload), the waits double."""
    monkeypatch.setattr("evaltoolkit.judge._retry.random.uniform", lambda low, high: high)
    backend = FailsFirstAttempts(f"custom/fails-{prompts}", failures=3, error=Unavailable)
    scorer = et.create_judged_scorer(
        id="cites",
        steps=[CITES_STEP],
        score=lambda context: 1.0,
        model=backend,
        cache=False,
        backoff_base=0.01,
        backoff_max=1.0,
    )
    items = [{"id": str(n), "output": f"answer {n}"} for n in range(prompts)]

    with caplog.at_level("DEBUG", logger="evaltoolkit"):
        result = et.run_evals(items, scorer, progress=False)

    assert [item.scorer_results["cites"].score for item in result] == [1.0] * prompts
    waits = retry_waits(caplog)
    assert len(waits) == 3 * prompts
    if prompts == 1:  # three 503s of one call, nothing else failing: scattered
        assert waits == [0.01, 0.01, 0.01]
    else:  # 24 failures of 32 calls: the limit was cut, and the later waits doubled
        assert adaptive_limit("custom/fails-8", None).limit is not None
        assert max(waits) == 0.04
        assert waits.count(0.01) < len(waits)
