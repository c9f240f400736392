"""The textual-difference scorer (no model): ``_scorer``, and ``_registration`` with
:data:`TEXTUAL_DIFFERENCE_SPEC`, its entry in the registry."""

from ._registration import TEXTUAL_DIFFERENCE_SPEC
from ._scorer import (
    TextDifference,
    TextualDifferenceScorer,
    compare_texts,
    create_textual_difference_scorer,
)

__all__ = [
    "TEXTUAL_DIFFERENCE_SPEC",
    "TextDifference",
    "TextualDifferenceScorer",
    "compare_texts",
    "create_textual_difference_scorer",
]
