"""The scorers layer's helpers for the other layers: not public, and free to change.

The registry's lookups and id constants (read by the command line, meta, the widgets and the
plots), the summarization scorer's deciding axis, the planned calls of the runner's estimate,
and the classes behind the factories. Any module of evaltoolkit may import
``evaltoolkit.scorers._internal`` (the layering test allows it); users import from
:mod:`evaltoolkit.scorers`.
"""

from __future__ import annotations

from ._baselines import NaiveOverlapScorer, RougeScorer, SummaryLengthScorer, TokenF1Scorer
from ._judged import DEFAULT_SYSTEM_PROMPT, PlannedCall
from ._prompts import PromptSet, PromptTemplate
from ._registry import (
    ANSWER_SIMILARITY_ID,
    BASELINE_IDS,
    SUMMARIZATION_ID,
    TEXTUAL_DIFFERENCE_ID,
    find_scorer_spec,
    scorer_spec,
    scorer_spec_of,
    scorer_specs,
)
from ._steps import format_value
from .answer_similarity import ANSWER_THRESHOLD, AnswerSimilarityScorer, SimilarityWeights
from .summarization import SummarizationScorer, deciding_axis
from .textual_difference import TextDifference, TextualDifferenceScorer, compare_texts

__all__ = [
    "ANSWER_SIMILARITY_ID",
    "ANSWER_THRESHOLD",
    "BASELINE_IDS",
    "DEFAULT_SYSTEM_PROMPT",
    "SUMMARIZATION_ID",
    "TEXTUAL_DIFFERENCE_ID",
    "AnswerSimilarityScorer",
    "NaiveOverlapScorer",
    "PlannedCall",
    "PromptSet",
    "PromptTemplate",
    "RougeScorer",
    "SimilarityWeights",
    "SummarizationScorer",
    "SummaryLengthScorer",
    "TextDifference",
    "TextualDifferenceScorer",
    "TokenF1Scorer",
    "compare_texts",
    "deciding_axis",
    "find_scorer_spec",
    "format_value",
    "scorer_spec",
    "scorer_spec_of",
    "scorer_specs",
]
