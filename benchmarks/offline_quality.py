"""Measure the offline judge against human labels.

Reads the human-labelled benchmark files by path (never copies them):

- SummEval (``summeval_dev.jsonl``): per-document Spearman correlation, averaged over
  documents, between the offline alignment axis and human consistency, and between the
  offline coverage axis and human relevance. Documents whose scores are constant (NaN
  correlation) are skipped and counted; "(flat docs as 0)" counts the documents where only the
  judge's scores are constant as a correlation of 0 instead, so that a judge cannot gain by
  ranking nothing.
- EVOUNA-NQ (``evouna_nq_dev.jsonl``): the answer-similarity score of each candidate against
  each golden answer (best kept), AUROC and accuracy at a fixed threshold against
  ``human_correct``.

Held-out report: every figure is printed for all rows and for two halves, split by a stable
hash (SHA-256) of the SummEval ``doc_id`` and of the EVOUNA row ``id``, so that a change can be
checked for improving both halves rather than one.

Baselines computed here: content-word overlap for SummEval (share of summary content words
found in the source; share of the source's content words found in the summary) and SQuAD-style
token F1 for EVOUNA.

Usage::

    python benchmarks/offline_quality.py [--limit N] [--benchmarks DIR] [--threshold T]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import string
import sys
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata, spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaltoolkit.judge._offline import (
    analyze_units,
    extract_units,
    judge_coverage,
    judge_source,
)
from evaltoolkit.judge._offline._text import content_stems
from evaltoolkit.scorers import ANSWER_THRESHOLD

DEFAULT_BENCHMARKS = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
MAX_QUESTIONS = 10


def read_jsonl(path: Path, limit: int | None) -> list[dict[str, Any]]:
    """Read up to ``limit`` rows of a JSON Lines file."""
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


# --- the scorers' formulas (as the scorers compute them) -------------------------------------


def alignment_score(step1: dict[str, Any]) -> float:
    """Supported claims / claims; no claims gives 0."""
    claims = step1["claims"]
    return sum(bool(c["supported"]) for c in claims) / len(claims) if claims else 0.0


def coverage_score(step1: dict[str, Any], step2: dict[str, Any], max_questions: int) -> float:
    """Answered / questions asked (first ``max_questions``; a missing verdict is unanswered)."""
    questions = step1["questions"][:max_questions]
    if not questions:
        return 0.0
    verdicts = step2["verdicts"][: len(questions)]
    return sum(bool(v["answered"]) for v in verdicts) / len(questions)


def answer_similarity_score(analysis: dict[str, Any]) -> float:
    """The answer-similarity formula with the default options."""
    semantic_threshold, exact_bonus, missing_penalty = 0.8, 0.2, 0.15
    contradiction_penalty, extra_penalty = 1.0, 0.05
    matches = analysis["matches"]
    if not matches:
        return 0.0
    credit = {
        "exact": 1.0 + exact_bonus,
        "semantic": semantic_threshold,
        "partial": semantic_threshold / 2,
        "missing": -missing_penalty,
    }
    total = sum(credit[m["match_type"]] for m in matches) / (len(matches) * (1 + exact_bonus))
    total -= len(analysis["contradictions"]) * contradiction_penalty
    total -= min(len(analysis["extra_info"]) * extra_penalty, 0.2)
    return min(max(total, 0.0), 1.0)


# --- statistics ---------------------------------------------------------------------------


def per_document_spearman(
    doc_ids: list[str], predicted: list[float], human: list[float]
) -> tuple[list[float], int]:
    """Spearman correlation per document; returns (correlations, documents skipped).

    A document whose predicted or human scores are constant has no correlation (NaN): it is
    skipped and counted.
    """
    groups: dict[str, list[int]] = defaultdict(list)
    for index, doc_id in enumerate(doc_ids):
        groups[doc_id].append(index)
    correlations: list[float] = []
    skipped = 0
    for doc_id in sorted(groups):
        indices = groups[doc_id]
        if len(indices) < 3:
            skipped += 1
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # constant input: NaN, counted as skipped below
            rho = spearmanr([predicted[i] for i in indices], [human[i] for i in indices]).statistic
        if rho is None or math.isnan(float(rho)):
            skipped += 1
            continue
        correlations.append(float(rho))
    return correlations, skipped


def constant_prediction_documents(
    doc_ids: list[str], predicted: list[float], human: list[float]
) -> int:
    """Documents where the human scores vary but the predicted ones are all equal."""
    groups: dict[str, list[int]] = defaultdict(list)
    for index, doc_id in enumerate(doc_ids):
        groups[doc_id].append(index)
    return sum(
        1
        for indices in groups.values()
        if len(indices) >= 3
        and len({human[i] for i in indices}) > 1
        and len({predicted[i] for i in indices}) == 1
    )


def bootstrap_interval(values: list[float], resamples: int = 2000) -> tuple[float, float]:
    """95% bootstrap interval of the mean (fixed seed, so the figures are reproducible)."""
    if not values:
        return float("nan"), float("nan")
    rng = np.random.default_rng(0)
    data = np.asarray(values)
    means = data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def auroc(scores: list[float], labels: list[bool]) -> float:
    """Area under the ROC curve (Mann-Whitney, ties count half)."""
    ranks = rankdata(scores)
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    rank_sum = sum(rank for rank, label in zip(ranks, labels, strict=True) if label)
    return float((rank_sum - positives * (positives + 1) / 2) / (positives * negatives))


def accuracy(scores: list[float], labels: list[bool], threshold: float) -> float:
    """Share of items where (score >= threshold) equals the label."""
    hits = sum((score >= threshold) == label for score, label in zip(scores, labels, strict=True))
    return hits / len(labels) if labels else float("nan")


# --- baselines ----------------------------------------------------------------------------


def overlap_consistency(source: str, summary: str) -> float:
    """Share of the summary's content words that occur in the source."""
    source_stems = set(content_stems(source))
    summary_stems = content_stems(summary)
    return (
        sum(s in source_stems for s in summary_stems) / len(summary_stems) if summary_stems else 0
    )


def overlap_relevance(source: str, summary: str) -> float:
    """Share of the source's distinct content words that occur in the summary."""
    source_stems = set(content_stems(source))
    summary_stems = set(content_stems(summary))
    return len(source_stems & summary_stems) / len(source_stems) if source_stems else 0.0


def _squad_tokens(text: str) -> list[str]:
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return text.split()


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD token F1 between a prediction and one golden answer."""
    predicted, gold = _squad_tokens(prediction), _squad_tokens(truth)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if not predicted or not gold or not common:
        return float(predicted == gold)
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


# --- benchmarks ---------------------------------------------------------------------------


def held_out_half(key: str) -> str:
    """The half ("A" or "B") a document or row falls in, by a stable hash of its id."""
    return "AB"[hashlib.sha256(key.encode("utf-8")).digest()[0] % 2]


def summeval_figures(
    rows: list[dict[str, Any]], alignment: list[float], coverage: list[float]
) -> dict[str, float]:
    """Per-document Spearman of each axis (and the overlap baselines) with its human label."""
    doc_ids = [row["doc_id"] for row in rows]
    consistency = [row["consistency"] for row in rows]
    relevance = [row["relevance"] for row in rows]
    base_c = [overlap_consistency(r["source"], r["summary"]) for r in rows]
    base_r = [overlap_relevance(r["source"], r["summary"]) for r in rows]
    figures: dict[str, float] = {"rows": len(rows), "documents": len(set(doc_ids))}
    for name, predicted, human in (
        ("alignment~consistency", alignment, consistency),
        ("coverage~relevance", coverage, relevance),
        ("baseline overlap~consistency", base_c, consistency),
        ("baseline overlap~relevance", base_r, relevance),
    ):
        correlations, skipped = per_document_spearman(doc_ids, predicted, human)
        low, high = bootstrap_interval(correlations)
        figures[name] = float(np.mean(correlations)) if correlations else float("nan")
        # Skipping a document whose scores are all equal rewards a judge that ranks nothing
        # there; counting it as 0 shows how much of the figure such skips carry.
        flat = constant_prediction_documents(doc_ids, predicted, human)
        figures[name + " (flat docs as 0)"] = (
            float(np.sum(correlations)) / (len(correlations) + flat)
            if correlations or flat
            else float("nan")
        )
        figures[name + " 95% CI low"] = low
        figures[name + " 95% CI high"] = high
        figures[name + " docs"] = len(correlations)
        figures[name + " docs skipped"] = skipped
    return figures


def run_summeval(path: Path, limit: int | None) -> dict[str, dict[str, float]]:
    """Score every SummEval summary; figures for all rows and for each held-out half."""
    rows = read_jsonl(path, limit)
    started = time.perf_counter()
    alignment: list[float] = []
    coverage: list[float] = []
    for row in rows:
        step1 = judge_source(row["source"], row["summary"], MAX_QUESTIONS)
        step2 = judge_coverage(row["summary"], step1["questions"][:MAX_QUESTIONS])
        alignment.append(alignment_score(step1))
        coverage.append(coverage_score(step1, step2, MAX_QUESTIONS))
    elapsed = time.perf_counter() - started
    reports: dict[str, dict[str, float]] = {}
    for half in ("all", "A", "B"):
        chosen = [i for i, row in enumerate(rows) if half in ("all", held_out_half(row["doc_id"]))]
        reports[half] = summeval_figures(
            [rows[i] for i in chosen], [alignment[i] for i in chosen], [coverage[i] for i in chosen]
        )
    reports["all"]["seconds"] = elapsed
    return reports


def best_over(golden: Iterable[str], score: Callable[[str], float]) -> float:
    return max((score(answer) for answer in golden), default=0.0)


def similarity(candidate: str, golden_answer: str, question: str) -> float:
    units = extract_units(candidate, golden_answer, question)
    analysis = analyze_units(units["output_units"], units["ground_truth_units"], question=question)
    return answer_similarity_score(analysis)


def evouna_figures(
    rows: list[dict[str, Any]], scores: list[float], baseline: list[float], threshold: float
) -> dict[str, float]:
    """AUROC and accuracy at ``threshold`` against ``human_correct``, with the token-F1 baseline."""
    labels = [bool(row["human_correct"]) for row in rows]
    best_baseline_accuracy = max(accuracy(baseline, labels, t / 100) for t in range(1, 100))
    return {
        "rows": len(rows),
        "AUROC": auroc(scores, labels),
        f"accuracy@{threshold}": accuracy(scores, labels, threshold),
        "baseline token F1 AUROC": auroc(baseline, labels),
        "baseline token F1 best accuracy": best_baseline_accuracy,
        "share human_correct": sum(labels) / len(labels) if labels else float("nan"),
    }


def run_evouna(path: Path, limit: int | None, threshold: float) -> dict[str, dict[str, float]]:
    """Score every EVOUNA answer; figures for all rows and for each held-out half."""
    rows = read_jsonl(path, limit)
    started = time.perf_counter()
    scores = [
        best_over(
            row["golden_answers"], lambda g, r=row: similarity(r["candidate"], g, r["question"])
        )
        for row in rows
    ]
    elapsed = time.perf_counter() - started
    baseline = [
        best_over(row["golden_answers"], lambda g, r=row: token_f1(r["candidate"], g))
        for row in rows
    ]
    reports: dict[str, dict[str, float]] = {}
    for half in ("all", "A", "B"):
        chosen = [i for i, row in enumerate(rows) if half in ("all", held_out_half(row["id"]))]
        reports[half] = evouna_figures(
            [rows[i] for i in chosen],
            [scores[i] for i in chosen],
            [baseline[i] for i in chosen],
            threshold,
        )
    reports["all"]["seconds"] = elapsed
    return reports


def print_reports(title: str, reports: dict[str, dict[str, float]]) -> None:
    """Print each figure for all rows and for the two held-out halves, side by side."""
    width = max(len(name) for name in reports["all"]) + 2
    print(f"{title:{width + 2}s} {'all':>8s} {'half A':>8s} {'half B':>8s}")
    for name in reports["all"]:
        cells = []
        for half in ("all", "A", "B"):
            value = reports[half].get(name)
            if value is None:
                cells.append(f"{'':>8s}")
            elif isinstance(value, float):
                cells.append(f"{value:8.4f}")
            else:
                cells.append(f"{value:8d}")
        print(f"  {name:{width}s} {' '.join(cells)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="rows per benchmark file")
    parser.add_argument("--benchmarks", type=Path, default=DEFAULT_BENCHMARKS)
    parser.add_argument("--threshold", type=float, default=ANSWER_THRESHOLD)
    args = parser.parse_args(argv)
    print_reports("SummEval dev", run_summeval(args.benchmarks / "summeval_dev.jsonl", args.limit))
    print_reports(
        "EVOUNA-NQ dev",
        run_evouna(args.benchmarks / "evouna_nq_dev.jsonl", args.limit, args.threshold),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
