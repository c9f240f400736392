"""Synthetic summarization results of any size for the views, built in well under a second.

A handful of demo summaries are scored once by the offline judge; copies of them, each with its
own SummEval-like id (long, as real ones are), document, system, axis scores and human label,
make up results of 800 or 10,000 items without another judge call. One item carries a
script/img payload in its summary and one failed at the coverage step, so that every view
meets both. Used by tests/test_browser.py, tests/test_widgets.py and benchmarks/views.py.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import random
from pathlib import Path
from typing import Any

import evaltoolkit as et
from evaltoolkit import EvalResult, ItemResult, ScoreResult

REPO = Path(__file__).resolve().parents[1]
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
PAYLOAD_ID = "payload-item"
FAILED_ID = "failed-item"
SUMMARIES_PER_DOCUMENT = 16
LEVELS = (0.0, 0.2, 0.25, 0.4, 0.5, 0.6, 0.67, 0.75, 0.8, 1.0)


def demo_rows() -> list[dict[str, Any]]:
    path = REPO / "data" / "demo_summaries.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@functools.cache
def _templates() -> tuple[ItemResult, ...]:
    rows = demo_rows()[:6]
    return tuple(et.run_evals(rows, et.create_summarization_scorer(), progress=False).items)


def item_id(index: int) -> str:
    """A SummEval-like id: the document's long hash and the system, as in SummEval dev."""
    document = index // SUMMARIES_PER_DOCUMENT
    digest = f"{(document * 2654435761) % 2**32:08x}{(document * 40503) % 2**24:06x}"
    return f"dm-test-{digest}{'a7f3' * 6}-M{index % SUMMARIES_PER_DOCUMENT:02d}"


def synthetic_result(size: int, *, seed: int = 0) -> EvalResult:
    """``size`` items scored by summarization (the first is the payload item, the second
    failed) and by textual difference (made-up scores: two scorers for the scorer filter).

    Args:
        size: How many items (at least 2).
        seed: Seed of the axis scores and labels.
    """
    rng = random.Random(seed)
    templates = _templates()
    items: list[ItemResult] = []
    for index in range(size):
        base = templates[index % len(templates)]
        score = base.scorer_results["summarization"]
        alignment, coverage = rng.choice(LEVELS), rng.choice(LEVELS)
        decided = (
            "alignment" if alignment < coverage else "coverage" if coverage < alignment else "tie"
        )
        details = {
            **score.details,
            "alignment_score": alignment,
            "coverage_score": coverage,
            "decided_by": decided,
        }
        result = dataclasses.replace(score, score=min(alignment, coverage), details=details)
        output = base.output
        identifier = item_id(index)
        if index == 0:
            identifier = PAYLOAD_ID
            output = f"The council voted to replace the bridge. {SCRIPT} {IMG} Work starts soon."
        elif index == 1:
            identifier = FAILED_ID
            result = ScoreResult(
                scorer="summarization",
                score=math.nan,
                error=et.StepError(step="coverage", message="the coverage reply never validated"),
            )
        human = min(5, max(1, round(1 + 4 * min(alignment, coverage) + rng.choice((-1, 0, 0, 1)))))
        items.append(
            dataclasses.replace(
                base,
                item_id=identifier,
                index=index,
                output=output,
                fields={
                    "doc_id": f"dm-test-{index // SUMMARIES_PER_DOCUMENT:05d}",
                    "system_id": f"M{index % SUMMARIES_PER_DOCUMENT:02d}",
                    "human_score": human,
                },
                scorer_results={
                    "summarization": result,
                    "textual-difference": ScoreResult(
                        scorer="textual-difference",
                        score=round(rng.random(), 3),
                        details={"compared_with": "input"},
                    ),
                },
            )
        )
    return EvalResult(items=items, scorer_ids=["summarization", "textual-difference"])


def brevity_scorer() -> et.JudgedScorer:
    """A judged scorer cheap enough to rescore 10,000 items in seconds: the offline judge
    counts the summary's words (the PromptTuner needs a scorer with prompt templates)."""
    step = et.Step(
        name="brevity",
        prompt='How many words has the SUMMARY? SUMMARY: {{output}} Reply with JSON: {"words": 12}',
        schema={
            "type": "object",
            "properties": {"words": {"type": "integer"}},
            "required": ["words"],
            "additionalProperties": False,
        },
        offline=lambda output: {"words": len(output.split())},
    )
    return et.create_judged_scorer(
        id="brevity",
        steps=[step],
        score=lambda context: 1.0 / (1.0 + context.replies["brevity"]["words"] / 40.0),
    )


def synthetic_rows(size: int) -> list[dict[str, Any]]:
    """``size`` data items for the PromptTuner, from the demo summaries: each with its own
    id, document and human label; the first one's summary holds the payload."""
    demo = demo_rows()
    rows = []
    for index in range(size):
        base = demo[index % len(demo)]
        output = base["output"]
        if index == 0:
            output = f"The council voted. {SCRIPT} {IMG}"
        rows.append(
            {
                "id": PAYLOAD_ID if index == 0 else item_id(index),
                "input": base["input"],
                "output": output,
                "doc_id": f"dm-test-{index // SUMMARIES_PER_DOCUMENT:05d}",
                "human_score": base["human_score"],
            }
        )
    return rows
