"""Record every offline score on the demo data and the dev sets, or compare with a record.

A restructuring that must not change behaviour (moving code between layers, splitting a
module) is checked by recording the scores before it and comparing after::

    python benchmarks/score_snapshot.py --save before.json     # on the old commit
    python benchmarks/score_snapshot.py --compare before.json  # on the new one

The record holds, per data set, each item's score and axis scores from the offline judge:
the two demo files (every scorer) and, when ``../shared/benchmarks`` is at hand,
``summeval_dev`` (summarization) and ``evouna_nq_dev`` (answer similarity). ``--compare``
prints how many values differ and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import evaltoolkit as et
from evaltoolkit.meta import find_benchmarks, load_qa_equivalence, load_summeval

DEMO = Path(__file__).resolve().parent.parent / "data"
_COLUMNS = ("score", "alignment_score", "coverage_score", "base_similarity")


def _rows(result: et.EvalResult) -> list[dict[str, Any]]:
    frame = result.to_frame()
    kept = [column for column in ("item_id", "scorer", *_COLUMNS) if column in frame.columns]
    rows = frame[kept].to_dict(orient="records")
    return [
        {key: (None if isinstance(v, float) and math.isnan(v) else v) for key, v in row.items()}
        for row in rows
    ]


def snapshot(limit: int | None) -> dict[str, list[dict[str, Any]]]:
    """Score every data set with the offline judge and return the rows by data set."""
    summarization = et.create_summarization_scorer(reason="template")
    similarity = et.create_answer_similarity_scorer()
    textual = et.create_textual_difference_scorer()
    record = {
        "demo_summaries": _rows(
            et.run_evals(DEMO / "demo_summaries.jsonl", [summarization, textual], progress=False)
        ),
        "demo_answers": _rows(
            et.run_evals(DEMO / "demo_answers.jsonl", [similarity, textual], progress=False)
        ),
    }
    folder = find_benchmarks()
    if folder is None:
        print("../shared/benchmarks not found: demo data only", file=sys.stderr)
        return record
    summeval = load_summeval(folder / "summeval_dev.jsonl", limit=limit)
    record["summeval_dev"] = _rows(et.run_evals(summeval, summarization, progress=False))
    evouna = load_qa_equivalence(folder / "evouna_nq_dev.jsonl", limit=limit)
    evouna = evouna.assign(ground_truth=[str(answers[0]) for answers in evouna["ground_truth"]])
    record["evouna_nq_dev"] = _rows(et.run_evals(evouna, similarity, progress=False))
    return record


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    """Print the differences between two records; return how many values differ."""
    differences = 0
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name, []), after.get(name, [])
        if len(old) != len(new):
            print(f"{name}: {len(old)} rows before, {len(new)} after")
            differences += 1
            continue
        changed = [
            (left, right)
            for left, right in zip(old, new, strict=True)
            if any(
                not _same(left.get(column), right.get(column)) for column in set(left) | set(right)
            )
        ]
        print(f"{name}: {len(old)} rows, {len(changed)} differ")
        for left, right in changed[:5]:
            print(f"  before {left}\n  after  {right}")
        differences += len(changed)
    return differences


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-12, abs_tol=1e-12)
    return bool(left == right)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--save", type=Path, help="write the record to this JSON file")
    action.add_argument("--compare", type=Path, help="compare with the record in this file")
    parser.add_argument("--limit", type=int, default=None, help="rows per benchmark file")
    args = parser.parse_args()
    record = snapshot(args.limit)
    if args.save:
        args.save.write_text(json.dumps(record, ensure_ascii=False, indent=0), encoding="utf-8")
        print(f"wrote {args.save}: " + ", ".join(f"{k} {len(v)}" for k, v in record.items()))
        return 0
    differences = compare(json.loads(args.compare.read_text(encoding="utf-8")), record)
    print("identical" if not differences else f"{differences} rows differ")
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
