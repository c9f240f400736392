"""The scorers: one module per scorer, each a factory returning a :class:`Scorer`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ConfigurationError
from ._answer_similarity import (
    ANSWER_THRESHOLD,
    AnswerSimilarityScorer,
    SimilarityWeights,
    create_answer_similarity_scorer,
)
from ._base import Scorer
from ._judged import JudgedScorer
from ._prompts import PromptSet, PromptTemplate
from ._summarization import SummarizationScorer, create_summarization_scorer
from ._textual_difference import (
    TextDifference,
    TextualDifferenceScorer,
    compare_texts,
    create_textual_difference_scorer,
)

__all__ = [
    "ANSWER_THRESHOLD",
    "SCORER_NAMES",
    "AnswerSimilarityScorer",
    "JudgedScorer",
    "PromptSet",
    "PromptTemplate",
    "Scorer",
    "SimilarityWeights",
    "SummarizationScorer",
    "TextDifference",
    "TextualDifferenceScorer",
    "compare_texts",
    "create_answer_similarity_scorer",
    "create_scorer",
    "create_summarization_scorer",
    "create_textual_difference_scorer",
]

_FACTORIES: dict[str, Callable[..., Scorer]] = {
    "summarization": create_summarization_scorer,
    "answer-similarity": create_answer_similarity_scorer,
    "textual-difference": create_textual_difference_scorer,
}
#: The scorer ids :func:`create_scorer` knows.
SCORER_NAMES = tuple(_FACTORIES)

# Scorers that take no model reject model options rather than silently ignoring them.
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
            if key in {"model", "api_base", "cache", "concurrency"}:
                del options[key]
    return factory(**options)
