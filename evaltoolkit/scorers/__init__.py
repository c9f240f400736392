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

from typing import Any

from ..judge import judge_option_names
from . import _builtins  # noqa: F401  (registers the built-in scorers in their order)
from ._base import Scorer
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
from ._judged import DEFAULT_SYSTEM_PROMPT, JudgedScorer, PlannedCall, create_judged_scorer
from ._offline_settings import OfflineRule
from ._prompts import PromptSet, PromptTemplate
from ._registry import (
    ANSWER_SIMILARITY_ID,
    BASELINE_IDS,
    SUMMARIZATION_ID,
    TEXTUAL_DIFFERENCE_ID,
    MetaLayout,
    ScorerSpec,
    find_scorer_spec,
    register_scorer,
    scorer_ids,
    scorer_spec,
    scorer_spec_of,
    scorer_specs,
    unregister_scorer,
)
from ._steps import Sample, Score, Step, StepContext, format_value
from .answer_similarity import (
    ANSWER_THRESHOLD,
    AnswerSimilarityOfflineSettings,
    AnswerSimilarityScorer,
    SimilarityWeights,
    create_answer_similarity_scorer,
)
from .summarization import (
    OFFLINE_RULES,
    SummarizationOfflineSettings,
    SummarizationScorer,
    create_summarization_scorer,
    deciding_axis,
)
from .textual_difference import (
    TextDifference,
    TextualDifferenceScorer,
    compare_texts,
    create_textual_difference_scorer,
)

__all__ = [
    "ANSWER_SIMILARITY_ID",
    "ANSWER_THRESHOLD",
    "BASELINE_IDS",
    "DEFAULT_SYSTEM_PROMPT",
    "OFFLINE_RULES",
    "SUMMARIZATION_ID",
    "TEXTUAL_DIFFERENCE_ID",
    "AnswerSimilarityOfflineSettings",
    "AnswerSimilarityScorer",
    "JudgedScorer",
    "MetaLayout",
    "NaiveOverlapScorer",
    "OfflineRule",
    "PlannedCall",
    "PromptSet",
    "PromptTemplate",
    "RougeScorer",
    "Sample",
    "Score",
    "Scorer",
    "ScorerSpec",
    "SimilarityWeights",
    "Step",
    "StepContext",
    "SummarizationOfflineSettings",
    "SummarizationScorer",
    "SummaryLengthScorer",
    "TextDifference",
    "TextualDifferenceScorer",
    "TokenF1Scorer",
    "compare_texts",
    "create_answer_similarity_scorer",
    "create_judged_scorer",
    "create_naive_overlap_scorer",
    "create_rouge_scorer",
    "create_scorer",
    "create_summarization_scorer",
    "create_summary_length_scorer",
    "create_textual_difference_scorer",
    "create_token_f1_scorer",
    "deciding_axis",
    "find_scorer_spec",
    "format_value",
    "register_scorer",
    "scorer_ids",
    "scorer_spec",
    "scorer_spec_of",
    "scorer_specs",
    "unregister_scorer",
]


def create_scorer(name: str, **options: Any) -> Scorer:
    """Create a scorer by its id, as the command line does.

    Args:
        name: The id of a registered scorer (see :func:`scorer_ids`).
        **options: Passed to the scorer's factory; ``model=None`` entries are dropped.

    Raises:
        ConfigurationError: No scorer is registered under ``name``.

    Example:
        >>> create_scorer(TEXTUAL_DIFFERENCE_ID).id == TEXTUAL_DIFFERENCE_ID
        True
    """
    spec = scorer_spec(name)
    options = {key: value for key, value in options.items() if value is not None}
    if not spec.takes_judge:
        for key in list(options):
            if key in judge_option_names():
                del options[key]
    return spec.factory(**options)
