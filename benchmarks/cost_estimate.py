"""What a model judge costs: the estimate beside what the run then reports, and per-source
questions beside the reference, on the loopback server (in this process, scripted replies).

The server answers every summarization step with a reply of realistic size (five claims,
eight questions, eight verdicts, each with a reason) and reports usage the way OpenAI counts
it: o200k_base tokens of each message, plus 3 a message and 3 a request. The judge is
``openai/gpt-4o-mini`` pointed at the server, so the run's cost is litellm's price of that
usage.

Prints, for the demo data and for the first ``--items`` SummEval dev items (200 by default):

- the estimate (calls, input tokens of the first step, input and output tokens of all steps,
  cost) beside what the run reports, and whether the reported figures fall inside the range;
- requests and tokens per item with ``questions="per_summary"`` (the reference) and
  ``questions="per_source"``, for the SummEval items and for the 16 summaries of one document.
  These runs use a fresh judge cache each, at concurrency 1 (identical calls in flight at the
  same time would otherwise be sent twice unless single-flight is in place).

Usage::

    python benchmarks/cost_estimate.py [--items 200] [--benchmarks DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import tiktoken  # noqa: E402
from loopback_server import Action, LoopbackServer, reply  # noqa: E402

import evaltoolkit as et  # noqa: E402
from evaltoolkit.judge._litellm_runtime import import_litellm  # noqa: E402
from evaltoolkit.meta import find_benchmarks  # noqa: E402

MODEL = "openai/gpt-4o-mini"
DEMO = REPO / "evaltoolkit" / "_demo_data" / "demo_summaries.jsonl"
REASON = "The claim about the date is not supported by the source, which gives another year."


def _replies(turn: int) -> dict[str, dict[str, Any]]:
    questions = [f"Does the text say that fact number {n} of the article holds?" for n in range(8)]
    claims = [
        {"claim": f"The summary states fact {n} ({turn}).", "supported": n != 3, "reason": REASON}
        for n in range(5)
    ]
    verdicts = [
        {"question": q, "answered": n % 3 != 0, "reason": REASON} for n, q in enumerate(questions)
    ]
    return {
        "source_judgement": {"claims": claims, "questions": questions},
        "source_questions": {"questions": questions},
        "claims": {"claims": claims},
        "coverage": {"verdicts": verdicts},
        "reason": {"reason": f"Coverage decided the score ({turn}): {REASON} {REASON}"},
    }


class Responder:
    """Replies by step, with usage counted in o200k_base tokens."""

    def __init__(self) -> None:
        # Counting once points tiktoken at the encodings litellm ships: no download.
        import_litellm().token_counter(model=MODEL, text="warm up")
        self.encoding = tiktoken.get_encoding("o200k_base")
        self.turns = itertools.count()

    def tokens(self, text: str) -> int:
        return len(self.encoding.encode(text))

    def __call__(self, body: dict[str, Any]) -> Action:
        step = str(body["response_format"]["json_schema"]["name"])
        text = json.dumps(_replies(next(self.turns))[step])
        prompt = sum(3 + self.tokens(str(m.get("content", ""))) for m in body["messages"]) + 3
        completion = self.tokens(text)
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        return reply(text, usage=usage)


def _scorer(server: LoopbackServer, cache: Any = False, **options: Any) -> Any:
    return et.create_summarization_scorer(
        MODEL, api_base=server.url, api_key="sk-benchmark", cache=cache, **options
    )


def _within(value: float, low: float, high: float) -> str:
    return "inside" if low <= value <= high else "OUTSIDE"


def estimate_versus_run(name: str, server: LoopbackServer, items: list[dict[str, Any]]) -> None:
    scorer = _scorer(server)
    estimate = et.estimate_cost(items, scorer)
    before = server.requests_total
    result = et.run_evals(items, scorer, progress=False, concurrency=8)
    calls = [c for s in result.results("summarization") for c in s.calls]
    first = [c for c in calls if c.step == "source_judgement"]
    first_reported = sum(c.usage.prompt_tokens for c in first if c.usage)
    first_estimate = next(s for s in estimate.steps if s.step == "source_judgement")
    usage = result.usage
    assert usage is not None and result.cost is not None
    in_low, in_high = estimate.input_tokens
    out_low, out_high = estimate.output_tokens
    cost = estimate.cost
    assert cost is not None
    gap = (first_estimate.input_tokens_low - first_reported) / first_reported
    print(f"\n{name}: {len(items)} items")
    print(f"  {estimate.one_line()}")
    for note in estimate.notes:
        print(f"  note: {note}")
    print(f"  calls: estimated {estimate.calls}, requests made {server.requests_total - before}")
    print(
        f"  first step input tokens: estimated {first_estimate.input_tokens_low:,}, reported "
        f"{first_reported:,} ({gap:+.1%})"
    )
    print(
        f"  input tokens: range {in_low:,}-{in_high:,}, reported {usage.prompt_tokens:,} "
        f"({_within(usage.prompt_tokens, in_low, in_high)})"
    )
    print(
        f"  output tokens: range {out_low:,}-{out_high:,}, reported {usage.completion_tokens:,} "
        f"({_within(usage.completion_tokens, out_low, out_high)})"
    )
    print(
        f"  cost: range ${cost[0]:.4f}-${cost[1]:.4f}, reported ${result.cost:.4f} "
        f"({_within(result.cost, cost[0], cost[1])})"
    )


def per_item(server: LoopbackServer, items: list[dict[str, Any]], questions: str) -> str:
    with tempfile.TemporaryDirectory() as cache:
        scorer = _scorer(server, cache, questions=questions)
        before = server.requests_total
        result = et.run_evals(items, scorer, progress=False, concurrency=1)
        requests = server.requests_total - before
    usage = result.usage
    assert usage is not None
    count = len(items)
    return (
        f"{questions:<11}  requests/item {requests / count:5.2f}  input tokens/item "
        f"{usage.prompt_tokens / count:7.0f}  output tokens/item "
        f"{usage.completion_tokens / count:5.0f}  cost/item ${(result.cost or 0) / count:.6f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200, help="SummEval dev items")
    parser.add_argument("--benchmarks", type=Path, default=None, help="the benchmark folder")
    args = parser.parse_args()
    demo = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    folder = args.benchmarks or find_benchmarks()
    summeval: list[dict[str, Any]] = []
    if folder is not None and (Path(folder) / "summeval_dev.jsonl").exists():
        rows = [json.loads(line) for line in (Path(folder) / "summeval_dev.jsonl").open()]
        summeval = [
            {"id": f"{r['doc_id']}/{r['system_id']}", "input": r["source"], "output": r["summary"]}
            for r in rows
        ]
    else:
        print("no SummEval file: pass --benchmarks DIR or set EVALTOOLKIT_BENCHMARKS")
    with LoopbackServer(responder=Responder()) as server:
        estimate_versus_run("demo data", server, demo)
        if summeval:
            estimate_versus_run("SummEval dev", server, summeval[: args.items])
            print(f"\nper item, SummEval dev ({args.items} items):")
            for mode in ("per_summary", "per_source"):
                print("  " + per_item(server, summeval[: args.items], mode))
            first_doc = summeval[0]["input"]
            one_source = [item for item in summeval if item["input"] == first_doc]
            print(f"\nper item, the {len(one_source)} summaries of one SummEval document:")
            for mode in ("per_summary", "per_source"):
                print("  " + per_item(server, one_source, mode))


if __name__ == "__main__":
    main()
