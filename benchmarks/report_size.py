"""How big a 10,000-item report is, and how fast headless Chromium opens it.

Builds a summarization run of 10,000 items (by default 625 documents of 16 summaries each, as
in SummEval, with sources of about 3,000 characters, claims, questions, reasons, judge
prompts and replies, and 2% failed items), writes its report, and loads it from file:// in
headless Chromium (Debian's /usr/bin/chromium) several times: the time until the item table
shows its first page, the time a filter takes to redraw it, and the requests the page made
(none but the file). Also builds the worst case, every item with its own source, to show the
size budget holding.

    python benchmarks/report_size.py                 # 10,000 items, 3 loads
    python benchmarks/report_size.py --items 2000 --loads 5

The run is built directly as result records (the scorers are not what is measured here);
``--score`` scores SummEval's dev set (repeated to the size asked) with the offline judge
instead, when ../shared/benchmarks is at hand.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaltoolkit import EvalResult, ItemResult, ModelCall, ScoreResult, StepError  # noqa: E402
from evaltoolkit.report import write_report  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WORDS = [
    "council",
    "bridge",
    "river",
    "engineers",
    "report",
    "vote",
    "million",
    "budget",
    "city",
    "harbour",
    "supports",
    "inspection",
    "ferry",
    "construction",
    "lane",
    "schedule",
    "owners",
    "project",
    "safety",
    "study",
    "researchers",
    "bees",
    "colony",
    "decline",
    "pesticide",
    "farmers",
    "season",
    "volcano",
    "alert",
    "residents",
    "evacuation",
    "scientists",
    "eruption",
    "rail",
    "strike",
    "union",
    "workers",
    "wages",
    "talks",
    "minister",
    "agreement",
]


@functools.cache
def _word_stream() -> tuple[str, ...]:
    return tuple(random.Random(1).choices(WORDS, k=200_000))


def _sentence(rng: random.Random, words: int) -> str:
    # A run of a long random word stream: one draw a sentence, where a draw a word made
    # most of the seconds spent building a 10,000-item run.
    stream = _word_stream()
    start = rng.randrange(len(stream) - words)
    picked = " ".join(stream[start : start + words])
    return picked[0].upper() + picked[1:] + f" in {rng.randint(1990, 2030)}."


def _document(rng: random.Random, chars: int) -> str:
    parts: list[str] = []
    length = 0
    while length < chars:
        parts.append(_sentence(rng, rng.randint(8, 18)))
        length += len(parts[-1]) + 1
    return " ".join(parts)


def synthetic_run(
    items: int = 10_000,
    *,
    summaries_per_document: int = 16,
    source_chars: int = 3000,
    failed_share: float = 0.02,
    seed: int = 0,
) -> EvalResult:
    """A summarization run built as records: realistic texts and sizes, no scoring.

    Args:
        items: Items in the run.
        summaries_per_document: Items sharing one source (1: every item its own source).
        source_chars: Length of each source.
        failed_share: Share of items that failed at the coverage step.
        seed: Seed of the texts and verdicts.
    """
    rng = random.Random(seed)
    documents: list[tuple[str, list[str]]] = []
    result_items: list[ItemResult] = []
    for index in range(items):
        if index % summaries_per_document == 0:
            source = _document(rng, source_chars)
            questions = [
                f"Does the text say that {_sentence(rng, 10)[:-1].lower()}?" for _ in range(10)
            ]
            documents.append((source, questions))
        source, questions = documents[-1]
        summary = " ".join(_sentence(rng, rng.randint(8, 16)) for _ in range(rng.randint(3, 6)))
        claims = [
            {
                "claim": _sentence(rng, rng.randint(6, 12)),
                "supported": rng.random() < 0.8,
                "reason": f'Supported by the source: "{_sentence(rng, 14)}".',
            }
            for _ in range(rng.randint(3, 8))
        ]
        verdicts = [
            {
                "question": question,
                "answered": rng.random() < 0.5,
                "reason": f'The summary states it: "{_sentence(rng, 12)}".',
            }
            for question in questions
        ]
        alignment = sum(claim["supported"] for claim in claims) / len(claims)
        coverage = sum(verdict["answered"] for verdict in verdicts) / len(verdicts)
        failed = rng.random() < failed_share
        calls = tuple(
            ModelCall(
                step=step,
                stage=stage,  # type: ignore[arg-type]
                model="offline",
                prompt=f"[user]\nSOURCE:\n{source}\n\nSUMMARY:\n{summary}",
                raw_reply=json.dumps({"step": step}),
            )
            for step, stage in (("source_judgement", "preprocess"), ("coverage", "analyze"))
        )
        score = ScoreResult(
            scorer="summarization",
            score=float("nan") if failed else min(alignment, coverage),
            reason=None
            if failed
            else f"The score is {min(alignment, coverage):.3f}, decided by "
            f"{'coverage' if coverage < alignment else 'alignment'}.",
            preprocess_step_result=None
            if failed
            else {"alignment": claims, "questions": questions},
            analyze_step_result=None if failed else {"coverage": verdicts},
            details={}
            if failed
            else {
                "alignment_score": alignment,
                "coverage_score": coverage,
                "decided_by": "coverage" if coverage < alignment else "alignment",
                "claims": len(claims),
                "questions": len(questions),
            },
            calls=calls,
            judge_model="offline",
            latency_s=0.01,
            error=StepError("coverage", "the coverage reply never validated", "JudgeReplyError")
            if failed
            else None,
            run_id="benchmark",
        )
        result_items.append(
            ItemResult(
                item_id=f"doc{index // summaries_per_document}-{index % summaries_per_document}",
                index=index,
                input=source,
                output=summary,
                fields={"doc_id": f"doc{index // summaries_per_document}"},
                scorer_results={"summarization": score},
            )
        )
    return EvalResult(items=result_items, scorer_ids=["summarization"], run_id="benchmark")


def scored_run(items: int) -> EvalResult:
    """SummEval's dev summaries, repeated to ``items``, scored with the offline judge."""
    import evaltoolkit as et
    from evaltoolkit.meta import find_benchmarks

    folder = find_benchmarks()
    if folder is None:
        raise SystemExit("--score needs ../shared/benchmarks (set EVALTOOLKIT_BENCHMARKS)")
    rows = [json.loads(line) for line in (folder / "summeval_dev.jsonl").open()]
    data = [
        {
            "id": f"{rows[i % len(rows)]['doc_id']}/{i}",
            "input": rows[i % len(rows)]["source"],
            "output": rows[i % len(rows)]["summary"],
            "doc_id": rows[i % len(rows)]["doc_id"],
        }
        for i in range(items)
    ]
    return et.run_evals(data, et.create_summarization_scorer(reason="template"), progress=True)


def load_times(path: Path, loads: int) -> dict[str, object]:
    """Open the report ``loads`` times; the seconds to the first table page and to a filter."""
    from playwright.sync_api import sync_playwright

    opened: list[float] = []
    filtered: list[float] = []
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, env={"HOME": tempfile.mkdtemp()}
        )
        for _ in range(loads):
            page = browser.new_page()
            page.on("request", lambda request: requests.append(request.url))
            started = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("#items-body tr")
            opened.append(time.perf_counter() - started)
            started = time.perf_counter()
            page.fill("#f-gap", "0.5")
            page.dispatch_event("#f-gap", "change")
            page.wait_for_function(
                "document.getElementById('showing').textContent.includes('matching')"
            )
            filtered.append(time.perf_counter() - started)
            page.close()
        browser.close()
    return {
        "open_s": opened,
        "filter_s": filtered,
        "other_requests": sorted({url for url in requests if url != path.as_uri()}),
    }


def measure(result: EvalResult, label: str, folder: Path, loads: int) -> None:
    started = time.perf_counter()
    path = write_report(result, folder / f"{label}.html", title=f"report_size: {label}")
    built = time.perf_counter() - started
    size = path.stat().st_size
    print(
        f"{label}: {len(result):,} items, report {size:,} bytes ({size / 1e6:.1f} MB), "
        f"built in {built:.1f} s"
    )
    if not CHROMIUM.exists():
        print("  (no /usr/bin/chromium: load time not measured)")
        return
    times = load_times(path, loads)
    opened = times["open_s"]
    filtered = times["filter_s"]
    assert isinstance(opened, list) and isinstance(filtered, list)
    print(
        f"  open in Chromium to the first table page: median {statistics.median(opened):.2f} s "
        f"(max {max(opened):.2f} s over {loads} loads)"
    )
    print(f"  filter |a - c| >= 0.5 and redraw: median {statistics.median(filtered) * 1000:.0f} ms")
    print(f"  requests other than the file itself: {times['other_requests'] or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument(
        "--score", action="store_true", help="score SummEval with the offline judge"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        if args.score:
            measure(scored_run(args.items), "summeval-scored", folder, args.loads)
        else:
            measure(synthetic_run(args.items), "shared-sources", folder, args.loads)
            measure(
                synthetic_run(args.items, summaries_per_document=1),
                "distinct-sources",
                folder,
                args.loads,
            )


if __name__ == "__main__":
    main()
