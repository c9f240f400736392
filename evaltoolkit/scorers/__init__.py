"""The scorers: one module per scorer, each a factory returning a :class:`Scorer`.

A judged scorer is a list of :class:`Step` objects (prompt, reply schema, offline answer) plus
a score function and a reason; the built-in summarization and answer-similarity scorers are
declared that way, with their offline answers beside them (``_offline``), and
:func:`create_judged_scorer` builds your own. Scorers build prompts and compute scores; they
reach models only through the judge layer and never import litellm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ConfigurationError
from ..judge import judge_option_names
from ._answer_similarity import (
    ANSWER_THRESHOLD,
    AnswerSimilarityScorer,
    SimilarityWeights,
    create_answer_similarity_scorer,
)
from ._base import Scorer
from ._judged import DEFAULT_SYSTEM_PROMPT, JudgedScorer, create_judged_scorer
from ._offline import (
    OFFLINE_RULES,
    AnswerSimilarityOfflineSettings,
    OfflineRule,
    SummarizationOfflineSettings,
)
from ._prompts import PromptSet, PromptTemplate
from ._steps import Sample, Score, Step, StepContext, format_value
from ._summarization import SummarizationScorer, create_summarization_scorer
from ._textual_difference import (
    TextDifference,
    TextualDifferenceScorer,
    compare_texts,
    create_textual_difference_scorer,
)

__all__ = [
    "ANSWER_THRESHOLD",
    "DEFAULT_SYSTEM_PROMPT",
    "OFFLINE_RULES",
    "SCORER_NAMES",
    "AnswerSimilarityOfflineSettings",
    "AnswerSimilarityScorer",
    "JudgedScorer",
    "OfflineRule",
    "PromptSet",
    "PromptTemplate",
    "Sample",
    "Score",
    "Scorer",
    "SimilarityWeights",
    "Step",
    "StepContext",
    "SummarizationOfflineSettings",
    "SummarizationScorer",
    "TextDifference",
    "TextualDifferenceScorer",
    "compare_texts",
    "create_answer_similarity_scorer",
    "create_judged_scorer",
    "create_scorer",
    "create_summarization_scorer",
    "create_textual_difference_scorer",
    "format_value",
]

_FACTORIES: dict[str, Callable[..., Scorer]] = {
    "summarization": create_summarization_scorer,
    "answer-similarity": create_answer_similarity_scorer,
    "textual-difference": create_textual_difference_scorer,
}
#: The scorer ids :func:`create_scorer` knows.
SCORER_NAMES = tuple(_FACTORIES)

# The command line gives its judge options to every scorer; these take no judge.
_MODEL_FREE = {"textual-difference"}


def create_scorer(name: str, **options: Any) -> Scorer:
    """Create a scorer by its id, as the command line does.

    Args:
        name: ``"summarization"``, ``"answer-similarity"`` or ``"textual-difference"``.
        **options: Passed to the scorer's factory; ``model=None`` entries are dropped.

    Example:
        >>> create_scorer("textual-difference").id
        'textual-difference'
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigurationError(
            f"unknown scorer {name!r}; choose one of {', '.join(SCORER_NAMES)}"
        )
    options = {key: value for key, value in options.items() if value is not None}
    if name in _MODEL_FREE:
        for key in list(options):
            if key in judge_option_names():
                del options[key]
    return factory(**options)
