"""Measure the offline judge against human labels, each set also left out of the tuning.

Reads the human-labelled benchmark files by path (never copies them):

- ``summeval_dev``: per-document Spearman of the alignment axis with human ``consistency``
  and of the coverage axis with human ``relevance``;
- ``realsumm_dev``: per-document Spearman of coverage with ``litepyramid_recall``;
- ``newsroom_dev``: per-document Spearman of coverage with ``informativeness`` and
  ``relevance``;
- ``rank19_dev``: pair accuracy of alignment: the share of pairs (two summaries of one
  source) in which the factual summary scores higher, ties counting half;
- ``evouna_nq_dev`` (the answer-similarity judge, reported for reference): AUROC.

What it does:

1. Tuning. The offline summarization judge has six tuned settings
   (:class:`SummarizationOfflineSettings`): three act on the alignment axis only, three on the
   coverage axis only, so each group is searched on its own small grid (``ALIGNMENT_GRID``,
   ``COVERAGE_GRID``). A grid point's objective is the judge's smallest improvement over the
   naive baseline across the set-label pairs of its axis (then the mean improvement, to break
   ties): a setting that helps one set by hurting another loses. The grid is first restricted
   to points under which the project's hand-written demo set (``data/demo_summaries.jsonl``)
   behaves: every faithful summary keeps alignment >= 0.8, every planted fault lowers
   alignment, and every omission lowers coverage below its faithful sibling's (a judge that
   flags faithful paraphrases is not one to ship, whatever the dev sets say).
2. For each data set, the settings are chosen once with every set ("all sets"), and once with
   that set left out of the objective ("left out": the figure that says what to expect on a
   set the judge was not tuned on).
3. The scores are the real scorer's (``create_summarization_scorer(reason="template")`` through
   ``run_evals``); the grid search calls the same offline functions directly, and the script
   checks that both give identical axis scores for the default settings. When the scorer
   does not yet take ``offline_settings``, the left-out figures for settings other than the
   defaults come from that direct path.
4. Per-document figures skip documents whose human or judge scores are constant, which
   flatters a judge that ties a whole document; the table shows how many were skipped
   ("const") and the figure with them counted as 0 ("as 0"). Intervals are 95% percentile
   bootstrap intervals over documents (pairs for Rank19).

The naive baseline, as described in the benchmarks' README: alignment is the content-word
precision of the summary's weakest sentence against the source; coverage is the recall of the
source's first four sentences' content words by the summary (lower-cased words, stop words
removed).

``--ablation`` instead sets each fixed (untuned) constant of the judge to one other value and
prints how far each dev figure moves, so that constants which do not pay their way show.

Usage::

    python benchmarks/offline_quality.py [--limit N] [--benchmarks DIR] [--bootstrap N]
    python benchmarks/offline_quality.py --ablation
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import math
import re
import string
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import evaltoolkit as et
from evaltoolkit.meta import agreement, find_benchmarks, load_qa_equivalence, load_summeval
from evaltoolkit.scorers._offline import judge_coverage, judge_source
from evaltoolkit.scorers._offline._questions import draw_questions
from evaltoolkit.scorers._offline._settings import SummarizationOfflineSettings
from evaltoolkit.scorers._offline._text import STOPWORDS

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo_summaries.jsonl"
MAX_QUESTIONS = 10
ALIGNMENT_GRID: dict[str, tuple[float, ...]] = {
    "claim_support": (0.85, 0.9, 0.95),
    "phrase_gap": (0, 2, 4, 6),
    "verb_gap": (2, 4, 8, 10),
}
COVERAGE_GRID: dict[str, tuple[float, ...]] = {
    "question_lead_bias": (0.25, 0.5, 1.0),
    "mention_share": (0.2, 0.4, 0.6, 0.8),
    "answer_share": (0.5, 0.6, 0.7),
}


@dataclass(frozen=True)
class Target:
    """One human label of one data set, measured on one axis of the judge."""

    dataset: str
    label: str
    axis: str  # "alignment" or "coverage"
    goal: float
    pairs: bool = False  # Rank19: pair accuracy instead of per-document Spearman

    @property
    def name(self) -> str:
        return f"{self.dataset} {self.label}"


TARGETS = (
    Target("summeval_dev", "consistency", "alignment", 0.45),
    Target("summeval_dev", "relevance", "coverage", 0.35),
    Target("realsumm_dev", "litepyramid_recall", "coverage", 0.32),
    Target("newsroom_dev", "informativeness", "coverage", 0.67),
    Target("newsroom_dev", "relevance", "coverage", 0.62),
    Target("rank19_dev", "factual", "alignment", 0.68, pairs=True),
)
DATASETS = tuple(dict.fromkeys(target.dataset for target in TARGETS))


@dataclass(frozen=True)
class Figure:
    """An agreement figure with its interval and what it skipped."""

    value: float
    low: float
    high: float
    constant: int = 0
    groups: int = 0
    as_zero: float = math.nan

    def cell(self) -> str:
        return f"{self.value:.3f} [{self.low:.2f}, {self.high:.2f}]"


# --- the naive baseline --------------------------------------------------------------------


def _naive_words(text: str) -> list[str]:
    return [word for word in re.findall(r"\w+", text.lower()) if word not in STOPWORDS]


def _naive_sentences(text: str) -> list[str]:
    return [piece for piece in re.split(r"(?<=[.!?])\s+", text) if piece.strip()]


def naive_alignment(source: str, summary: str) -> float:
    """Content-word precision of the summary's weakest sentence against the source."""
    vocabulary = set(_naive_words(source))
    shares = [
        sum(word in vocabulary for word in words) / len(words)
        for words in map(_naive_words, _naive_sentences(summary))
        if words
    ]
    return min(shares) if shares else 0.0


def naive_coverage(source: str, summary: str) -> float:
    """Recall of the source's first four sentences' content words by the summary."""
    lead = {word for sentence in _naive_sentences(source)[:4] for word in _naive_words(sentence)}
    return len(lead & set(_naive_words(summary))) / len(lead) if lead else 0.0


# --- agreement -----------------------------------------------------------------------------


def _spearman(scores: np.ndarray, labels: np.ndarray) -> float:
    def ranks(values: np.ndarray) -> np.ndarray:
        return pd.Series(values).rank(method="average").to_numpy()

    left, right = ranks(scores), ranks(labels)
    left, right = left - left.mean(), right - right.mean()
    denominator = math.sqrt(float((left**2).sum() * (right**2).sum()))
    return float((left * right).sum() / denominator) if denominator else math.nan


def _interval(values: np.ndarray, resamples: int) -> tuple[float, float]:
    if resamples <= 0 or len(values) == 0:
        return math.nan, math.nan
    generator = np.random.default_rng(0)
    drawn = generator.integers(0, len(values), size=(resamples, len(values)))
    means = values[drawn].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def per_document(frame: pd.DataFrame, scores: np.ndarray, label: str, resamples: int) -> Figure:
    """Spearman within each document, averaged (constant documents skipped, and as 0)."""
    values: list[float] = []
    with_zeros: list[float] = []
    for _, rows in frame.groupby("doc_id", sort=False).indices.items():
        rho = _spearman(scores[rows], frame[label].to_numpy(dtype=float)[rows])
        with_zeros.append(0.0 if math.isnan(rho) else rho)
        if not math.isnan(rho):
            values.append(rho)
    usable = np.array(values)
    low, high = _interval(usable, resamples)
    return Figure(
        value=float(usable.mean()) if len(usable) else math.nan,
        low=low,
        high=high,
        constant=len(with_zeros) - len(values),
        groups=len(with_zeros),
        as_zero=float(np.mean(with_zeros)) if with_zeros else math.nan,
    )


def pair_accuracy(frame: pd.DataFrame, scores: np.ndarray, resamples: int) -> Figure:
    """Share of pairs whose factual summary scores higher (ties half; ties counted)."""
    outcomes: list[float] = []
    for _, rows in frame.groupby("doc_id", sort=False).indices.items():
        factual = frame["factual"].to_numpy()[rows]
        right = scores[rows][factual].max()
        wrong = scores[rows][~factual].max()
        outcomes.append(1.0 if right > wrong else 0.5 if right == wrong else 0.0)
    values = np.array(outcomes)
    low, high = _interval(values, resamples)
    ties = int((values == 0.5).sum())
    return Figure(float(values.mean()), low, high, ties, len(values), float(values.mean()))


def measure(target: Target, frame: pd.DataFrame, scores: np.ndarray, resamples: int) -> Figure:
    if target.pairs:
        return pair_accuracy(frame, scores, resamples)
    return per_document(frame, scores, target.label, resamples)


# --- scoring -------------------------------------------------------------------------------


def load_sets(folder: Path, limit: int | None) -> dict[str, pd.DataFrame]:
    frames: dict[str, pd.DataFrame] = {}
    for dataset in DATASETS:
        frame = load_summeval(folder / f"{dataset}.jsonl", limit=limit)
        if "factual" in frame.columns:
            frame["factual"] = frame["factual"].map(lambda v: str(v).strip().lower() == "true")
        frames[dataset] = frame.reset_index(drop=True)
    return frames


def _alignment(source: str, summary: str, settings: SummarizationOfflineSettings) -> float:
    claims = judge_source(source, summary, 0, settings=settings)["claims"]
    return sum(c["supported"] for c in claims) / len(claims) if claims else 0.0


def _coverage(source: str, summary: str, settings: SummarizationOfflineSettings) -> float:
    questions = draw_questions(source, MAX_QUESTIONS, settings)
    verdicts = judge_coverage(summary, questions, settings=settings)["verdicts"]
    return sum(v["answered"] for v in verdicts) / len(questions) if questions else 0.0


AXIS_FUNCTIONS = {"alignment": _alignment, "coverage": _coverage}


def fast_axis(
    frame: pd.DataFrame, axis: str, many: Sequence[SummarizationOfflineSettings]
) -> list[np.ndarray]:
    """One axis of each item under each of several settings, from the offline functions the
    scorer calls (item by item, so that a document's analysis is shared by all settings)."""
    score = AXIS_FUNCTIONS[axis]
    values = np.empty((len(many), len(frame)))
    for item, (source, summary) in enumerate(zip(frame["input"], frame["output"], strict=True)):
        for index, settings in enumerate(many):
            values[index, item] = score(source, summary, settings)
    return list(values)


def fast_alignment(frame: pd.DataFrame, settings: SummarizationOfflineSettings) -> np.ndarray:
    """Alignment of each item (no questions drawn)."""
    return fast_axis(frame, "alignment", [settings])[0]


def fast_coverage(frame: pd.DataFrame, settings: SummarizationOfflineSettings) -> np.ndarray:
    """Coverage of each item (``max_questions=10``)."""
    return fast_axis(frame, "coverage", [settings])[0]


def scorer_takes_settings() -> bool:
    """Whether ``create_summarization_scorer`` accepts ``offline_settings`` yet."""
    return "offline_settings" in inspect.signature(et.create_summarization_scorer).parameters


def scorer_axes(
    frame: pd.DataFrame, settings: SummarizationOfflineSettings | None
) -> tuple[np.ndarray, np.ndarray, float]:
    """Both axes of each item through ``run_evals`` and the real scorer, and the seconds."""
    options: dict[str, Any] = {}
    if settings is not None:
        options["offline_settings"] = {
            spec.name: getattr(settings, spec.name) for spec in SummarizationOfflineSettings.specs()
        }
    scorer = et.create_summarization_scorer(reason="template", **options)
    started = time.perf_counter()
    result = et.run_evals(frame, scorer, progress=False)
    elapsed = time.perf_counter() - started
    rows = result.to_frame()
    return (
        rows["alignment_score"].to_numpy(dtype=float),
        rows["coverage_score"].to_numpy(dtype=float),
        elapsed,
    )


# --- the demo guard ------------------------------------------------------------------------


def demo_items() -> list[dict[str, Any]]:
    with DEMO.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def demo_alignment_ok(settings: SummarizationOfflineSettings) -> bool:
    """Faithful demo summaries keep alignment >= 0.8; planted faults lower it."""
    frame = pd.DataFrame(demo_items())
    alignment = fast_alignment(frame, settings)
    faithful = frame["fault"].isin(["none", "omission"]).to_numpy()
    return bool((alignment[faithful] >= 0.8).all() and (alignment[~faithful] < 1.0).all())


def demo_coverage_ok(settings: SummarizationOfflineSettings) -> bool:
    """Each omission's coverage is below its faithful sibling's."""
    frame = pd.DataFrame(demo_items())
    coverage = dict(zip(frame["id"], fast_coverage(frame, settings), strict=True))
    faithful = {row.doc_id: coverage[row.id] for row in frame.itertuples() if row.fault == "none"}
    return all(
        coverage[row.id] < faithful[row.doc_id]
        for row in frame.itertuples()
        if row.fault == "omission"
    )


# --- tuning --------------------------------------------------------------------------------


def grid_points(grid: Mapping[str, Sequence[float]]) -> list[dict[str, float]]:
    return [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]


@dataclass
class Tuning:
    """Every grid point's figures, and the choice with and without each data set."""

    frames: dict[str, pd.DataFrame]
    naive: dict[str, Figure]
    resamples: int
    figures: dict[tuple[str, tuple[tuple[str, float], ...]], dict[str, Figure]]
    allowed: dict[str, list[dict[str, float]]]

    def objective(
        self, axis: str, point: dict[str, float], left_out: str | None
    ) -> tuple[float, float]:
        """The smallest gain over the naive baseline across the sets, then the mean gain."""
        figures = self.figures[(axis, tuple(point.items()))]
        gains = [
            figures[t.name].value - self.naive[t.name].value
            for t in TARGETS
            if t.axis == axis and t.dataset != left_out
        ]
        return float(np.min(gains)), float(np.mean(gains))

    def choose(self, left_out: str | None) -> SummarizationOfflineSettings:
        chosen: dict[str, float] = {}
        for axis in ("alignment", "coverage"):
            best = max(self.allowed[axis], key=lambda p: self.objective(axis, p, left_out))
            chosen.update(best)
        return SummarizationOfflineSettings.from_mapping(_typed(chosen))


def _typed(values: Mapping[str, float]) -> dict[str, float | int]:
    kinds = {spec.name: spec.type for spec in SummarizationOfflineSettings.specs()}
    return {name: kinds[name](value) for name, value in values.items()}


def tune(frames: dict[str, pd.DataFrame], naive: dict[str, Figure], resamples: int) -> Tuning:
    figures: dict[tuple[str, tuple[tuple[str, float], ...]], dict[str, Figure]] = {}
    allowed: dict[str, list[dict[str, float]]] = {}
    for axis, grid, guard in (
        ("alignment", ALIGNMENT_GRID, demo_alignment_ok),
        ("coverage", COVERAGE_GRID, demo_coverage_ok),
    ):
        points = grid_points(grid)
        allowed[axis] = [p for p in points if guard(replace_settings(p))] or points
        many = [replace_settings(point) for point in allowed[axis]]
        for dataset in dict.fromkeys(t.dataset for t in TARGETS if t.axis == axis):
            frame = frames[dataset]
            for point, values in zip(allowed[axis], fast_axis(frame, axis, many), strict=True):
                per_set = figures.setdefault((axis, tuple(point.items())), {})
                for target in TARGETS:
                    if target.dataset == dataset and target.axis == axis:
                        per_set[target.name] = measure(target, frame, values, 0)
        skipped = len(points) - len(allowed[axis])
        print(
            f"  {axis}: {len(points)} grid points, {skipped} left out by the demo guard",
            file=sys.stderr,
        )
    return Tuning(frames, naive, resamples, figures, allowed)


def replace_settings(point: Mapping[str, float]) -> SummarizationOfflineSettings:
    return replace(SummarizationOfflineSettings(), **_typed(point))


# --- the report ----------------------------------------------------------------------------


def describe(settings: SummarizationOfflineSettings) -> str:
    return ", ".join(
        f"{spec.name}={getattr(settings, spec.name):g}"
        for spec in SummarizationOfflineSettings.specs()
    )


def summarization_report(folder: Path, limit: int | None, resamples: int) -> int:
    frames = load_sets(folder, limit)
    naive_scores = {
        dataset: {
            "alignment": np.array(
                [naive_alignment(s, m) for s, m in zip(f["input"], f["output"], strict=True)]
            ),
            "coverage": np.array(
                [naive_coverage(s, m) for s, m in zip(f["input"], f["output"], strict=True)]
            ),
        }
        for dataset, f in frames.items()
    }
    naive = {
        t.name: measure(t, frames[t.dataset], naive_scores[t.dataset][t.axis], resamples)
        for t in TARGETS
    }
    print("tuning (grid search; see the module docstring) ...", file=sys.stderr)
    tuning = tune(frames, naive, resamples)
    every = tuning.choose(None)
    defaults = SummarizationOfflineSettings()
    takes_settings = scorer_takes_settings()

    # The real scorer with the defaults, checked against the direct path.
    through_scorer: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    seconds: dict[str, float] = {}
    mismatches = 0
    for dataset, frame in frames.items():
        alignment, coverage, seconds[dataset] = scorer_axes(frame, None)
        through_scorer[dataset] = (alignment, coverage)
        mismatches += int((alignment != fast_alignment(frame, defaults)).sum())
        mismatches += int((coverage != fast_coverage(frame, defaults)).sum())

    def axes_for(dataset: str, settings: SummarizationOfflineSettings) -> dict[str, np.ndarray]:
        frame = frames[dataset]
        if settings == defaults:
            alignment, coverage = through_scorer[dataset]
        elif takes_settings:
            alignment, coverage, _ = scorer_axes(frame, settings)
        else:
            alignment, coverage = fast_alignment(frame, settings), fast_coverage(frame, settings)
        return {"alignment": alignment, "coverage": coverage}

    chosen = {dataset: tuning.choose(dataset) for dataset in DATASETS}
    rows = []
    for target in TARGETS:
        frame = frames[target.dataset]
        tuned_on_all = measure(
            target, frame, axes_for(target.dataset, every)[target.axis], resamples
        )
        left_out = measure(
            target, frame, axes_for(target.dataset, chosen[target.dataset])[target.axis], resamples
        )
        rows.append((target, tuned_on_all, left_out, naive[target.name]))

    print("Offline summarization judge against human labels (max_questions=10)")
    print(
        "  per-document Spearman averaged over documents (Rank19: pair accuracy, ties half); "
        "[95% bootstrap interval];"
    )
    print(
        "  const = documents skipped because human or judge scores are constant (Rank19: tied "
        "pairs); as 0 = the figure counting them as 0"
    )
    header = (
        f"  {'set, label':<34}{'axis':<10}{'all sets':<22}{'left out':<22}{'naive':<22}"
        f"{'const':<9}{'as 0':<7}{'target':<9}met"
    )
    print(header)
    met_all = True
    for target, tuned_on_all, left_out, baseline in rows:
        met = tuned_on_all.value >= target.goal and left_out.value >= target.goal
        met_all &= met
        const = f"{tuned_on_all.constant}/{tuned_on_all.groups}"
        print(
            f"  {target.name:<34}{target.axis:<10}{tuned_on_all.cell():<22}{left_out.cell():<22}"
            f"{baseline.cell():<22}{const:<9}{tuned_on_all.as_zero:<7.3f}"
            f"{'>= ' + format(target.goal, '.2f'):<9}{'yes' if met else 'no'}"
        )
    print()
    print(f"  settings tuned on all sets: {describe(every)}")
    print(f"  defaults in the code:       {describe(defaults)}")
    if every != defaults:
        print("  NOTE: the defaults differ from the all-sets choice")
    for dataset in DATASETS:
        print(f"  tuned without {dataset:<13} {describe(chosen[dataset])}")
    print(
        f"  left-out figures through: {'the scorer' if takes_settings else 'the direct path'}"
        f" (scorer and direct path differ on {mismatches} axis values with the defaults)"
    )
    print(
        "  seconds to score through run_evals: "
        + ", ".join(f"{d} {s:.1f} ({len(frames[d])} items)" for d, s in seconds.items())
    )
    print(f"  every target met: {'yes' if met_all else 'no'}")
    return 0


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


def evouna_report(path: Path, limit: int | None, resamples: int) -> None:
    """The answer-similarity judge's AUROC on EVOUNA-NQ, beside token F1 (for reference)."""
    frame = load_qa_equivalence(path, limit=limit)
    evaluation = et.meta.meta_evaluate(
        frame,
        task="answer-similarity",
        label="human_correct",
        question_col="input",
        answer_col="output",
        reference_col="ground_truth",
        n_bootstrap=0,
        progress=False,
    )
    column = evaluation.score_columns[0]
    scores = evaluation.scores.assign(
        token_f1=[
            max((token_f1(answer, gold) for gold in golden or []), default=0.0)
            for answer, golden in zip(frame["output"], frame["ground_truth"], strict=True)
        ]
    )
    table = agreement(scores, [column, "token_f1"], "human_correct", n_bootstrap=resamples)
    cells = []
    for name in (column, "token_f1"):
        row = table[(table["score"] == name) & (table["metric"] == "auroc")].iloc[0]
        cells.append(f"{row['value']:.3f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}]")
    print(
        f"EVOUNA-NQ dev AUROC (answer similarity, not tuned here): judge {cells[0]}, "
        f"token F1 {cells[1]}"
    )


# Fixed (untuned) constants of the judge, each with the one other value the ablation tries.
FIXED_CONSTANTS: tuple[tuple[str, str, str, float], ...] = (
    ("_claims", "CLAIM_MIN_CONTENT", "alignment", 3),
    ("_claims", "PARAPHRASE_CHANGED_WORDS", "alignment", 0),
    ("_claims", "NEGATION_CLAUSE_OVERLAP", "alignment", 0.5),
    ("_claims", "NEGATION_SCOPE", "alignment", 2),
    ("_claims", "NUMBER_SLOT_WORDS", "alignment", 1),
    ("_claims", "OWN_SHARE", "alignment", 0.25),
    ("_claims", "AGENT_WINDOW", "alignment", 4),
    ("_claims", "ELSEWHERE_CREDIT", "alignment", 0.0),
    ("_document", "CONTEXT_SENTENCES", "alignment", 1),
    ("_questions", "MIN_FACT_CONTENT", "coverage", 4),
    ("_questions", "MAX_FACT_WORDS", "coverage", 60),
    ("_questions", "ANSWER_WINDOW_SENTENCES", "coverage", 1),
    ("_questions", "MIN_RECURRENCE", "coverage", 1.5),
    ("_facts", "_ATTRIBUTION_CONTENT", "coverage", 3),
    ("_facts", "_SUBJECT_WORDS", "coverage", 8),
)


def ablation_report(folder: Path, limit: int | None) -> None:
    """How far each fixed constant moves the dev figures when set to another value."""
    import importlib

    frames = load_sets(folder, limit)
    defaults = SummarizationOfflineSettings()

    def figures(axis: str) -> dict[str, float]:
        found: dict[str, float] = {}
        for target in TARGETS:
            if target.axis == axis:
                frame = frames[target.dataset]
                values = fast_axis(frame, axis, [defaults])[0]
                found[target.name] = measure(target, frame, values, 0).value
        return found

    def clear_caches() -> None:
        from evaltoolkit.scorers._offline import _document, _questions

        _document.analyse_source.cache_clear()
        _questions._facts.cache_clear()
        _questions._mentions.cache_clear()

    base = {axis: figures(axis) for axis in ("alignment", "coverage")}
    print("Fixed constants, each set to one other value (change of each dev figure):")
    for module_name, name, axis, value in FIXED_CONSTANTS:
        module = importlib.import_module(f"evaltoolkit.scorers._offline.{module_name}")
        original = getattr(module, name)
        setattr(module, name, type(original)(value))
        clear_caches()
        try:
            changed = figures(axis)
        finally:
            setattr(module, name, original)
            clear_caches()
        deltas = ", ".join(
            f"{target} {changed[target] - base[axis][target]:+.3f}" for target in changed
        )
        print(f"  {module_name}.{name} {original} -> {value}: {deltas}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="rows per benchmark file")
    parser.add_argument("--benchmarks", type=Path, default=None, help="the benchmark folder")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--no-evouna", action="store_true", help="skip the EVOUNA figure")
    parser.add_argument(
        "--ablation", action="store_true", help="only vary each fixed constant and report"
    )
    args = parser.parse_args(argv)
    folder = args.benchmarks or find_benchmarks()
    if folder is None:
        print("no benchmark folder: pass --benchmarks DIR or set EVALTOOLKIT_BENCHMARKS")
        return 2
    if args.ablation:
        ablation_report(folder, args.limit)
        return 0
    status = summarization_report(folder, args.limit, args.bootstrap)
    if not args.no_evouna:
        print()
        evouna_report(folder / "evouna_nq_dev.jsonl", args.limit, args.bootstrap)
    return status


if __name__ == "__main__":
    sys.exit(main())
