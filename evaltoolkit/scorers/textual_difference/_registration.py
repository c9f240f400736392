"""The textual-difference scorer's entry in the registry (collected by ``scorers/_builtins.py``)."""

from __future__ import annotations

from typing import Final

from .._registry import TEXTUAL_DIFFERENCE_ID, ScorerSpec
from ._scorer import TextualDifferenceScorer, create_textual_difference_scorer

__all__ = ["TEXTUAL_DIFFERENCE_SPEC"]


TEXTUAL_DIFFERENCE_SPEC: Final = ScorerSpec(
    id=TEXTUAL_DIFFERENCE_ID,
    factory=create_textual_difference_scorer,
    task="two texts compared character by character, no model",
    scorer_type=TextualDifferenceScorer,
    layout="answer-reference",
    columns={"question": None, "answer": "sentence1", "reference": "sentence2"},
    takes_judge=False,
    demo=("summaries", "answers"),
)
