"""The scorers: one folder per scorer, each a factory returning a :class:`Scorer`.

A judged scorer is a list of :class:`Step` objects (prompt, reply schema, offline answer) plus
a score function and a reason; the built-in summarization and answer-similarity scorers are
declared that way, each in its own folder (``summarization/``, ``answer_similarity/``,
``textual_difference/``) with its prompts, reasons, offline answers, settings and registry
entry, and the text tools they share in ``_language/``; :func:`create_judged_scorer` builds
your own. The registry (:func:`register_scorer`, :class:`ScorerSpec`) declares each scorer once
for the command line, meta-evaluation, the widgets and the plots. Scorers build prompts and
compute scores; they reach models only through the judge layer and never import litellm. The
baselines (``naive-overlap``, ``summary-length``, ``rouge``, ``token-f1``) are registered
scorers too, with no judge: the floor a judge must beat.
"""

from __future__ import annotations

from .._internal import deprecation as _deprecation
from . import _builtins  # noqa: F401  (registers the built-in scorers in their order)
from ._base import Scorer
from ._baselines import (
    create_naive_overlap_scorer,
    create_rouge_scorer,
    create_summary_length_scorer,
    create_token_f1_scorer,
)
from ._create import create_scorer
from ._judged import JudgedScorer, create_judged_scorer
from ._offline_settings import OfflineRule
from ._registry import MetaLayout, ScorerSpec, register_scorer, scorer_ids, unregister_scorer
from ._steps import Sample, Score, Step, StepContext
from .answer_similarity import AnswerSimilarityOfflineSettings, create_answer_similarity_scorer
from .summarization import OFFLINE_RULES, SummarizationOfflineSettings, create_summarization_scorer
from .textual_difference import create_textual_difference_scorer

__all__ = [
    "OFFLINE_RULES",
    "AnswerSimilarityOfflineSettings",
    "JudgedScorer",
    "MetaLayout",
    "OfflineRule",
    "Sample",
    "Score",
    "Scorer",
    "ScorerSpec",
    "Step",
    "StepContext",
    "SummarizationOfflineSettings",
    "create_answer_similarity_scorer",
    "create_judged_scorer",
    "create_naive_overlap_scorer",
    "create_rouge_scorer",
    "create_scorer",
    "create_summarization_scorer",
    "create_summary_length_scorer",
    "create_textual_difference_scorer",
    "create_token_f1_scorer",
    "register_scorer",
    "scorer_ids",
    "unregister_scorer",
]

_INTERNAL = _deprecation.Delisted("evaltoolkit.scorers._internal")

# Public in 0.1: handed on with a DeprecationWarning for one release.
__getattr__ = _deprecation.delisted_names(
    __name__,
    {
        "ANSWER_THRESHOLD": _deprecation.Delisted("evaltoolkit.meta"),
        **dict.fromkeys(
            (
                "ANSWER_SIMILARITY_ID",
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
            ),
            _INTERNAL,
        ),
    },
)
