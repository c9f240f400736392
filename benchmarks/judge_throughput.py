"""Judge throughput against a server that answers in 0.5 s: LiteLLMJudge beside bare litellm.

Runs, in the same process and against the same loopback server (started in a separate process,
so that its CPU time is not counted as the client's):

- a bare ``litellm.acompletion`` loop under an ``asyncio.Semaphore(concurrency)``;
- ``LiteLLMJudge.complete`` with the cache off;
- ``LiteLLMJudge.complete`` with a fresh disk cache (every call a miss, then a write);
- the same judge again over the now warm cache (every call a hit, no HTTP request);
- the summarization scorer through ``run_evals(concurrency=...)`` with the judge's default
  options (no judge limit of its own: the run's concurrency is the one knob), cache off,
  its three steps per item answered by the same server.

- with ``--faults 0.2``: the same scorer run again against a second server that fails the
  first attempt of that share of distinct prompts (HTTP 429 with ``Retry-After: 0.1``, 503,
  a dropped connection, 500, in turn), and the wall-clock ratio faulty / fault-free.

Each variant warms up first (one round of ``concurrency`` calls), then times ``--calls`` calls;
with ``--rounds`` above 1 the variants alternate and the best round of each is reported.
Prints calls/s, the share of the ideal (concurrency / latency), the judge/bare and
runner/bare ratios (target >= 0.95) and the client CPU time per request
(``time.process_time`` over the requests made).

Usage::

    python benchmarks/judge_throughput.py [--calls 640] [--concurrency 32] [--latency 0.5]
        [--faults 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import evaltoolkit as et  # noqa: E402
from evaltoolkit.judge._cache import JudgeCache  # noqa: E402
from evaltoolkit.judge._litellm import LiteLLMJudge, import_litellm  # noqa: E402
from evaltoolkit.judge._types import JudgeRequest  # noqa: E402

MODEL = "openai/loopback"
API_KEY = "sk-benchmark-key"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["verdicts"],
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["question", "answered", "reason"],
                "properties": {
                    "question": {"type": "string"},
                    "answered": {"type": "boolean"},
                    "reason": {"type": "string"},
                },
            },
        }
    },
}
REPLY = {
    "verdicts": [
        {"question": f"Does the summary say {n}?", "answered": n % 2 == 0, "reason": "it does"}
        for n in range(5)
    ]
}


STEP_REPLIES: dict[str, Any] = {
    "source_judgement": {
        "claims": [{"claim": "The cat sat.", "supported": True, "reason": "it says so"}],
        "questions": [f"Does the text say fact {n}?" for n in range(5)],
    },
    "coverage": REPLY,
    "reason": {"reason": "The summary is supported and covers the source."},
}


def _respond(body: dict[str, Any]) -> Any:
    from loopback_server import reply

    step = (body.get("response_format") or {}).get("json_schema", {}).get("name", "coverage")
    if step == "source_judgement":
        # A claim naming the item's source, so that each item's reason prompt is its own:
        # identical calls in flight together would be sent once, and not measured.
        prompt = " ".join(str(message.get("content")) for message in body["messages"])
        source = re.search(r"Source \d+", prompt)
        claim = f"{source.group(0) if source else 'The source'} says the cat sat."
        judgement = STEP_REPLIES[step]
        return reply({**judgement, "claims": [{**judgement["claims"][0], "claim": claim}]})
    return reply(STEP_REPLIES.get(step, REPLY))


class _Faulty:
    """Fails the first attempt of ``share`` of distinct prompts, a fault of each kind in turn."""

    def __init__(self, share: float) -> None:
        import threading

        self.share = share
        self.seen: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Any:
        import hashlib

        from loopback_server import drop_connection, rate_limited, server_error

        prompt = " ".join(str(message.get("content")) for message in body["messages"])
        key = hashlib.sha256(prompt.encode()).hexdigest()
        with self.lock:
            first = key not in self.seen
            self.seen.add(key)
        bucket = int(key[:8], 16) % 1000
        if first and bucket < 1000 * self.share:
            faults = (
                lambda: rate_limited(0.1),
                lambda: server_error(503),
                drop_connection,
                lambda: server_error(500),
            )
            return faults[bucket % len(faults)]()
        return _respond(body)


def _serve(latency_s: float, urls: Any, stop: Any, faults: float = 0.0) -> None:
    """Run the loopback server in this (separate) process until ``stop`` is set."""
    from loopback_server import LoopbackServer

    responder = _Faulty(faults) if faults else _respond
    with LoopbackServer(responder=responder, latency_s=latency_s) as server:
        urls.put(server.url)
        stop.wait()


def request_for(index: int) -> JudgeRequest:
    return JudgeRequest(
        step="coverage",
        stage="analyze",
        messages=(
            {"role": "system", "content": "Answer each question from the summary alone."},
            {"role": "user", "content": f"Summary number {index}: the cat sat on the mat."},
        ),
        schema=SCHEMA,
    )


@dataclass
class Measurement:
    name: str
    calls: int
    wall_s: float
    cpu_s: float

    @property
    def calls_per_s(self) -> float:
        return self.calls / self.wall_s

    @property
    def cpu_ms_per_call(self) -> float:
        return 1000 * self.cpu_s / self.calls


async def _timed(
    name: str, call: Callable[[int], Awaitable[object]], first: int, calls: int, warmup: int
) -> Measurement:
    await asyncio.gather(*(call(first - 1 - index) for index in range(warmup)))
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    await asyncio.gather(*(call(first + index) for index in range(calls)))
    wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
    return Measurement(name, calls, wall, cpu)


def bare_litellm(url: str, concurrency: int) -> Callable[[int], Awaitable[object]]:
    litellm = import_litellm()
    semaphore: asyncio.Semaphore | None = None

    async def call(index: int) -> object:
        nonlocal semaphore
        semaphore = semaphore or asyncio.Semaphore(concurrency)
        request = request_for(index)
        async with semaphore:
            return await litellm.acompletion(
                model=MODEL,
                api_base=url,
                api_key=API_KEY,
                messages=[dict(message) for message in request.messages],
                temperature=0.0,
                timeout=60,
                num_retries=0,
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "coverage", "schema": SCHEMA, "strict": False},
                },
            )

    return call


def judge_calls(judge: LiteLLMJudge) -> Callable[[int], Awaitable[object]]:
    async def call(index: int) -> object:
        return await judge.complete(request_for(index))

    return call


def scorer_run(
    url: str, calls: int, concurrency: int, first: int, name: str = "summarization, run_evals"
) -> Measurement:
    """The summarization scorer over ``calls`` items (three calls each), judge defaults.

    An item's three steps run one after another, so the run ends with a drain: its last items
    finish over about three server latencies with fewer and fewer calls in flight. Scoring as
    many items as the bare loop makes calls keeps that drain a small share of the run, as it
    is in a real data set.
    """
    scorer = et.create_summarization_scorer(MODEL, api_base=url, api_key=API_KEY, cache=False)
    items = [
        {
            "id": first + index,
            "input": f"Source {first + index}: a cat sat.",
            "output": f"Cat {first + index}.",
        }
        for index in range(max(calls, 1))
    ]
    et.run_evals(items[:concurrency], scorer, concurrency=concurrency, progress=False)  # warm-up
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    result = et.run_evals(items, scorer, concurrency=concurrency, progress=False)
    wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
    # Identical calls in flight together are sent once (single-flight): count the calls that
    # made a request.
    made = sum(not call.cached for score in result.results("summarization") for call in score.calls)
    failed = result.scores["summarization"].failed
    if failed:
        print(f"  warning: {failed} items failed in the scorer run", flush=True)
    if name != "summarization, run_evals":  # the faulty server: count the items' requests
        made = sum(
            call.attempts for score in result.results("summarization") for call in score.calls
        )
    return Measurement(name, made, wall, cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=640)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--faults", type=float, default=0.0)
    options = parser.parse_args()

    context = multiprocessing.get_context("spawn")
    urls, stop = context.Queue(), context.Event()
    server = context.Process(target=_serve, args=(options.latency, urls, stop), daemon=True)
    server.start()
    url = urls.get(timeout=60)
    faulty_url = None
    if options.faults:
        faulty = context.Process(
            target=_serve, args=(options.latency, urls, stop, options.faults), daemon=True
        )
        faulty.start()
        faulty_url = urls.get(timeout=60)
    import_litellm()

    ideal = options.concurrency / options.latency
    warmup = options.concurrency
    best: dict[str, Measurement] = {}
    offset = 0
    with tempfile.TemporaryDirectory() as scratch:
        for round_number in range(options.rounds):
            cache = JudgeCache(Path(scratch) / f"round-{round_number}")
            variants: list[tuple[str, Callable[[int], Awaitable[object]]]] = [
                ("bare litellm.acompletion", bare_litellm(url, options.concurrency)),
                (
                    "LiteLLMJudge, cache off",
                    judge_calls(
                        LiteLLMJudge(
                            MODEL,
                            api_base=url,
                            api_key=API_KEY,
                            concurrency=options.concurrency,
                            cache=False,
                        )
                    ),
                ),
                (
                    "LiteLLMJudge, fresh cache",
                    judge_calls(
                        LiteLLMJudge(
                            MODEL,
                            api_base=url,
                            api_key=API_KEY,
                            concurrency=options.concurrency,
                            cache=cache,
                        )
                    ),
                ),
            ]
            for name, call in variants:
                offset += options.calls + warmup + 10
                measured = asyncio.run(_timed(name, call, offset, options.calls, warmup))
                if name not in best or measured.calls_per_s > best[name].calls_per_s:
                    best[name] = measured
                print(
                    f"  round {round_number + 1}: {name:<28} {measured.calls_per_s:7.1f} calls/s",
                    flush=True,
                )
            # The fresh-cache judge's calls, again: every one a hit.
            rerun = LiteLLMJudge(
                MODEL, api_base=url, api_key=API_KEY, concurrency=options.concurrency, cache=cache
            )
            measured = asyncio.run(
                _timed("LiteLLMJudge, warm cache", judge_calls(rerun), offset, options.calls, 0)
            )
            name = measured.name
            if name not in best or measured.calls_per_s > best[name].calls_per_s:
                best[name] = measured
            offset += options.calls + warmup + 10
            measured = scorer_run(url, options.calls, options.concurrency, offset)
            print(
                f"  round {round_number + 1}: {measured.name:<28} "
                f"{measured.calls_per_s:7.1f} calls/s",
                flush=True,
            )
            if measured.name not in best or measured.calls_per_s > best[measured.name].calls_per_s:
                best[measured.name] = measured
            if faulty_url is not None:
                offset += options.calls + warmup + 10
                name = f"run_evals, {options.faults:.0%} faults"
                measured = scorer_run(faulty_url, options.calls, options.concurrency, offset, name)
                print(
                    f"  round {round_number + 1}: {measured.name:<28} {measured.wall_s:7.2f} s",
                    flush=True,
                )
                if name not in best or measured.wall_s < best[name].wall_s:
                    best[name] = measured

    stop.set()
    server.join(timeout=10)

    print()
    print(
        f"{options.calls} calls, concurrency {options.concurrency}, server latency "
        f"{options.latency} s: ideal {ideal:.1f} calls/s (best of {options.rounds} rounds)"
    )
    print(f"{'variant':<28} {'calls/s':>8} {'of ideal':>9} {'CPU ms/call':>12}")
    for measured in best.values():
        print(
            f"{measured.name:<28} {measured.calls_per_s:8.1f} {measured.calls_per_s / ideal:9.0%}"
            f" {measured.cpu_ms_per_call:12.2f}"
        )
    bare = best["bare litellm.acompletion"].calls_per_s
    for name in (
        "LiteLLMJudge, cache off",
        "LiteLLMJudge, fresh cache",
        "summarization, run_evals",
    ):
        ratio = best[name].calls_per_s / bare
        verdict = "ok" if ratio >= 0.95 else "BELOW TARGET"
        print(f"ratio {name} / bare: {ratio:.3f} (target >= 0.95: {verdict})")
    runner, bare_run = best["summarization, run_evals"], best["bare litellm.acompletion"]
    print(
        f"runner / bare: {runner.calls_per_s / bare_run.calls_per_s:.3f}; client CPU ms per "
        f"request: runner {runner.cpu_ms_per_call:.2f}, bare {bare_run.cpu_ms_per_call:.2f}"
    )
    faulty_name = f"run_evals, {options.faults:.0%} faults"
    if faulty_name in best:
        faulty_run = best[faulty_name]
        print(
            f"{faulty_name}: {faulty_run.wall_s:.2f} s against {runner.wall_s:.2f} s fault-free "
            f"for the same items ({faulty_run.wall_s / runner.wall_s:.2f}x; target <= 1.5x); "
            f"{faulty_run.calls} requests"
        )


if __name__ == "__main__":
    main()
