"""The baselines' entries in the registry: no judgement, the floor a judge must beat."""

from __future__ import annotations

from typing import Final

from ._baselines import (
    NaiveOverlapScorer,
    RougeScorer,
    SummaryLengthScorer,
    TokenF1Scorer,
    create_naive_overlap_scorer,
    create_rouge_scorer,
    create_summary_length_scorer,
    create_token_f1_scorer,
)
from ._registry import ScorerSpec

__all__ = ["BASELINE_SPECS"]

_SUMMARY_COLUMNS: Final = {"source": "source", "summary": "summary"}


#: In the order of ``BASELINE_IDS``.
BASELINE_SPECS: Final = (
    ScorerSpec(
        id="naive-overlap",
        factory=create_naive_overlap_scorer,
        task="baseline: a summary's content-word overlap with its source",
        scorer_type=NaiveOverlapScorer,
        layout="source-summary",
        columns=_SUMMARY_COLUMNS,
        meta_scores=(
            ("alignment", "alignment_score"),
            ("coverage", "coverage_score"),
            ("score", "score"),
        ),
        group="doc_id",
        takes_judge=False,
    ),
    ScorerSpec(
        id="summary-length",
        factory=create_summary_length_scorer,
        task="baseline: a summary's length in words",
        scorer_type=SummaryLengthScorer,
        layout="source-summary",
        columns=_SUMMARY_COLUMNS,
        meta_scores=(("score", "score"),),
        group="doc_id",
        takes_judge=False,
    ),
    ScorerSpec(
        id="rouge",
        factory=create_rouge_scorer,
        task="baseline: ROUGE-1/2/L against the ground truth, else the source",
        scorer_type=RougeScorer,
        layout="source-summary",
        columns=_SUMMARY_COLUMNS,
        meta_scores=(
            ("rouge1", "rouge1_score"),
            ("rouge2", "rouge2_score"),
            ("rougeL", "rougeL_score"),
            ("score", "score"),
        ),
        group="doc_id",
        takes_judge=False,
    ),
    ScorerSpec(
        id="token-f1",
        factory=create_token_f1_scorer,
        task="baseline: an answer's token F1 against its ground truth",
        scorer_type=TokenF1Scorer,
        layout="answer-reference",
        columns={"question": "question", "answer": "candidate", "reference": "golden_answers"},
        takes_judge=False,
    ),
)
