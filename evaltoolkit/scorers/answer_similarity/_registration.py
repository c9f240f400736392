"""The answer-similarity scorer's entry in the registry (collected by ``scorers/_builtins.py``)."""

from __future__ import annotations

from typing import Final

from .._registry import ANSWER_SIMILARITY_ID, ScorerSpec
from ._scorer import ANSWER_THRESHOLD, AnswerSimilarityScorer, create_answer_similarity_scorer

__all__ = ["ANSWER_SIMILARITY_SPEC"]


ANSWER_SIMILARITY_SPEC: Final = ScorerSpec(
    id=ANSWER_SIMILARITY_ID,
    factory=create_answer_similarity_scorer,
    task="an answer against its ground truth",
    scorer_type=AnswerSimilarityScorer,
    layout="answer-reference",
    columns={"question": "question", "answer": "candidate", "reference": "golden_answers"},
    threshold=ANSWER_THRESHOLD,
    demo=("answers",),
    baseline="token-f1",
)
