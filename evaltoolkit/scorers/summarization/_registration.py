"""The summarization scorer's entry in the registry (collected by ``scorers/_builtins.py``)."""

from __future__ import annotations

from typing import Final

from .._registry import SUMMARIZATION_ID, ScorerSpec
from ._scorer import SummarizationScorer, create_summarization_scorer

__all__ = ["SUMMARIZATION_SPEC"]


SUMMARIZATION_SPEC: Final = ScorerSpec(
    id=SUMMARIZATION_ID,
    factory=create_summarization_scorer,
    task="a summary's alignment with and coverage of its source",
    scorer_type=SummarizationScorer,
    layout="source-summary",
    columns={"source": "source", "summary": "summary"},
    meta_scores=(
        ("alignment", "alignment_score"),
        ("coverage", "coverage_score"),
        ("score", "score"),
    ),
    group="doc_id",
    meta_options={"reason": "template"},
    demo=("summaries",),
    baseline="naive-overlap",
)
