"""Record every offline score on the demo data and the dev sets, or compare with a record.

A restructuring that must not change behaviour (moving code between layers, splitting a
module) is checked by recording the scores before it and comparing after::

    python benchmarks/score_snapshot.py --save before.json     # on the old commit
    python benchmarks/score_snapshot.py --compare before.json  # on the new one

The record holds, per data set, each item's score and axis scores from the offline judge:
the two demo files (every scorer) and, when ``../shared/benchmarks`` is at hand,
``summeval_dev`` (summarization) and ``evouna_nq_dev`` (answer similarity). ``--compare``
prints how many values differ and exits 1 when any does. For the demo files the record also
holds each item's verdicts (claims, questions, unit matches, with the offline rule that
decided each), so that a changed demo score is shown with the verdicts that changed it::

    demo_answers: 32 rows, 1 differ
      qa-12 answer-similarity: score 0.95 -> 0.9
        - output_units: Plants take in carbon dioxide, and they also release oxygen
        + output_units: Plants take in carbon dioxide
        + output_units: and they also release oxygen
        + extra_info: and they also release oxygen
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
# What a verdict is about, and what was decided, in the step results of each scorer.
_SUBJECTS = ("claim", "question", "ground_truth_unit")
_OUTCOMES = ("supported", "answered", "match_type")


def _verdicts(step_results: list[Any]) -> list[str]:
    """One line per verdict of an item's step results: "alignment: <claim> -> True (rule)"."""
    lines: list[str] = []
    for text in step_results:
        if not isinstance(text, str):
            continue
        for key, entries in json.loads(text).items():
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict):
                    lines.append(f"{key}: {entry}")
                    continue
                subject = next((entry[k] for k in _SUBJECTS if k in entry), None)
                outcome = next((entry[k] for k in _OUTCOMES if k in entry), None)
                if subject is None:
                    continue
                rule = f" ({entry['rule']})" if "rule" in entry else ""
                lines.append(f"{key}: {subject} -> {outcome}{rule}")
    return lines


def _rows(result: et.EvalResult, verdicts: bool = False) -> list[dict[str, Any]]:
    frame = result.to_frame()
    kept = [column for column in ("item_id", "scorer", *_COLUMNS) if column in frame.columns]
    rows = frame[kept].to_dict(orient="records")
    rows = [
        {key: (None if isinstance(v, float) and math.isnan(v) else v) for key, v in row.items()}
        for row in rows
    ]
    if verdicts:
        steps = [column for column in frame.columns if column.endswith("_step_result")]
        for row, results in zip(rows, frame[steps].to_numpy().tolist(), strict=True):
            row["verdicts"] = _verdicts(results)
    return rows


def snapshot(limit: int | None) -> dict[str, list[dict[str, Any]]]:
    """Score every data set with the offline judge and return the rows by data set."""
    summarization = et.create_summarization_scorer(reason="template")
    similarity = et.create_answer_similarity_scorer()
    textual = et.create_textual_difference_scorer()
    record = {
        "demo_summaries": _rows(
            et.run_evals(DEMO / "demo_summaries.jsonl", [summarization, textual], progress=False),
            verdicts=True,
        ),
        "demo_answers": _rows(
            et.run_evals(DEMO / "demo_answers.jsonl", [similarity, textual], progress=False),
            verdicts=True,
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
                not _same(left.get(column), right.get(column))
                for column in (set(left) | set(right)) - {"verdicts"}
            )
        ]
        print(f"{name}: {len(old)} rows, {len(changed)} differ")
        shown = changed if name.startswith("demo") else changed[:5]
        for left, right in shown:
            _show(left, right)
        differences += len(changed)
    return differences


def _show(left: dict[str, Any], right: dict[str, Any]) -> None:
    """Print a changed row: its values before and after, and the verdicts that changed."""
    values = ", ".join(
        f"{column} {left.get(column)} -> {right.get(column)}"
        for column in _COLUMNS
        if not _same(left.get(column), right.get(column))
    )
    print(f"  {right.get('item_id')} {right.get('scorer')}: {values}")
    if "verdicts" not in left or "verdicts" not in right:
        return
    before, after = left["verdicts"], right["verdicts"]
    for line in before:
        if line not in after:
            print(f"    - {line}")
    for line in after:
        if line not in before:
            print(f"    + {line}")


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
