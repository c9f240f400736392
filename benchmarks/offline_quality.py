"""Measure the offline judge against human labels, through the real scorers and meta tooling.

Reads the human-labelled benchmark files by path (never copies them):

- SummEval (``summeval_dev.jsonl``): Spearman correlation per document, averaged over
  documents, between the summarization scorer's alignment axis and human consistency, and
  between its coverage axis and human relevance (``max_questions=10``).
- EVOUNA-NQ (``evouna_nq_dev.jsonl``): the answer-similarity score of each candidate, scored
  against each golden answer with the best kept; AUROC, and accuracy at the documented
  threshold (``ANSWER_THRESHOLD``), against ``human_correct``.

Every figure is printed for all rows and for two halves, split by a stable hash (SHA-256) of
the SummEval ``doc_id`` and of the EVOUNA row ``id``, so that a change can be checked for
improving both halves rather than one. Baselines: content-word overlap for SummEval (the share
of the summary's content words found in the source; the share of the source's found in the
summary) and SQuAD-style token F1 for EVOUNA.

Usage::

    python benchmarks/offline_quality.py [--limit N] [--benchmarks DIR] [--bootstrap N]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import string
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from evaltoolkit.meta import (
    ANSWER_THRESHOLD,
    agreement,
    find_benchmarks,
    load_qa_equivalence,
    load_summeval,
    meta_evaluate,
)
from evaltoolkit.scorers._offline._text import content_stems

HALVES = ("all", "A", "B")


def held_out_half(key: Any) -> str:
    """The half ("A" or "B") a document or row falls in, by a stable hash of its id."""
    return "AB"[hashlib.sha256(str(key).encode("utf-8")).digest()[0] % 2]


def overlap_consistency(source: str, summary: str) -> float:
    """Share of the summary's content words that occur in the source."""
    source_stems = set(content_stems(source))
    summary_stems = content_stems(summary)
    if not summary_stems:
        return 0.0
    return sum(stem in source_stems for stem in summary_stems) / len(summary_stems)


def overlap_relevance(source: str, summary: str) -> float:
    """Share of the source's distinct content words that occur in the summary."""
    source_stems = set(content_stems(source))
    summary_stems = set(content_stems(summary))
    return len(source_stems & summary_stems) / len(source_stems) if source_stems else 0.0


def _squad_tokens(text: str) -> list[str]:
    text = "".join(char for char in text.lower() if char not in string.punctuation)
    return re.sub(r"\b(a|an|the)\b", " ", text).split()


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD token F1 between a prediction and one golden answer."""
    predicted, gold = _squad_tokens(prediction), _squad_tokens(truth)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if not predicted or not gold or not common:
        return float(predicted == gold)
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def _value(table: pd.DataFrame, score: str, metric: str, level: str) -> tuple[float, ...]:
    row = table[(table["score"] == score) & (table["metric"] == metric) & (table["level"] == level)]
    if row.empty:
        return (float("nan"),) * 4
    first = row.iloc[0]
    groups = float(first["groups"]) if level == "per_group" else float(first["n"])
    return float(first["value"]), float(first["ci_low"]), float(first["ci_high"]), groups


def summeval_report(path: Path, limit: int | None, bootstrap: int) -> dict[str, list[str]]:
    frame = load_summeval(path, limit=limit)
    started = time.perf_counter()
    evaluation = meta_evaluate(
        frame,
        task="summarization",
        label="consistency",
        source_col="input",
        summary_col="output",
        n_bootstrap=0,
        progress=False,
    )
    elapsed = time.perf_counter() - started
    scores = evaluation.scores.assign(
        relevance=frame["relevance"].to_numpy(),
        overlap_consistency=[
            overlap_consistency(s, m) for s, m in zip(frame["input"], frame["output"], strict=True)
        ],
        overlap_relevance=[
            overlap_relevance(s, m) for s, m in zip(frame["input"], frame["output"], strict=True)
        ],
        half=[held_out_half(doc) for doc in frame["doc_id"]],
    )
    lines: dict[str, list[str]] = {}
    pairs = (
        ("alignment~consistency", "alignment", "consistency"),
        ("coverage~relevance", "coverage", "relevance"),
        ("baseline overlap~consistency", "overlap_consistency", "consistency"),
        ("baseline overlap~relevance", "overlap_relevance", "relevance"),
    )
    for half in HALVES:
        chosen = scores if half == "all" else scores[scores["half"] == half]
        for name, score, label in pairs:
            table = agreement(chosen, score, label, group="doc_id", n_bootstrap=bootstrap)
            value, low, high, documents = _value(table, score, "spearman", "per_group")
            lines.setdefault(name, []).append(
                f"{value:.3f} [{low:.2f}, {high:.2f}] {int(documents)} docs"
            )
    lines["items"] = [
        str(len(scores)),
        *(str(int((scores["half"] == half).sum())) for half in HALVES[1:]),
    ]
    lines["seconds to score (run_evals)"] = [f"{elapsed:.1f}", "", ""]
    return lines


def evouna_report(path: Path, limit: int | None, bootstrap: int) -> dict[str, list[str]]:
    frame = load_qa_equivalence(path, limit=limit)
    started = time.perf_counter()
    evaluation = meta_evaluate(
        frame,
        task="answer-similarity",
        label="human_correct",
        question_col="input",
        answer_col="output",
        reference_col="ground_truth",
        n_bootstrap=0,
        progress=False,
    )
    elapsed = time.perf_counter() - started
    column = evaluation.score_columns[0]
    scores = evaluation.scores.assign(
        token_f1=[
            max((token_f1(answer, gold) for gold in golden or []), default=0.0)
            for answer, golden in zip(frame["output"], frame["ground_truth"], strict=True)
        ],
        half=[held_out_half(item) for item in frame["item_id"]],
    )
    lines: dict[str, list[str]] = {}
    for half in HALVES:
        chosen = scores if half == "all" else scores[scores["half"] == half]
        table = agreement(
            chosen,
            [column, "token_f1"],
            "human_correct",
            threshold=ANSWER_THRESHOLD,
            n_bootstrap=bootstrap,
        )
        for name, score, metric in (
            ("AUROC", column, "auroc"),
            (f"accuracy @ {ANSWER_THRESHOLD}", column, "accuracy"),
            ("baseline token F1 AUROC", "token_f1", "auroc"),
            ("baseline token F1 best accuracy", "token_f1", "best_accuracy"),
        ):
            value, low, high, _ = _value(table, score, metric, "pooled")
            lines.setdefault(name, []).append(f"{value:.3f} [{low:.2f}, {high:.2f}]")
        lines.setdefault("items", []).append(str(len(chosen)))
    lines["seconds to score (every golden answer)"] = [f"{elapsed:.1f}", "", ""]
    return lines


def print_report(title: str, lines: dict[str, list[str]]) -> None:
    width = max(len(name) for name in lines) + 2
    print(f"{title:<{width}} " + " ".join(f"{half:<26}" for half in ("all", "half A", "half B")))
    for name, cells in lines.items():
        print(f"  {name:<{width - 2}} " + " ".join(f"{cell:<26}" for cell in cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="rows per benchmark file")
    parser.add_argument("--benchmarks", type=Path, default=None, help="the benchmark folder")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    args = parser.parse_args(argv)
    folder = args.benchmarks or find_benchmarks()
    if folder is None:
        print("no benchmark folder: pass --benchmarks DIR or set EVALTOOLKIT_BENCHMARKS")
        return 2
    print_report(
        "SummEval dev (per-document Spearman)",
        summeval_report(folder / "summeval_dev.jsonl", args.limit, args.bootstrap),
    )
    print()
    print_report(
        "EVOUNA-NQ dev", evouna_report(folder / "evouna_nq_dev.jsonl", args.limit, args.bootstrap)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
