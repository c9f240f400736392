"""The answer-similarity scorer: its steps and formula, prompts, reason, offline judge and settings.

- ``_scorer``: :func:`create_answer_similarity_scorer` (extract, analyze, reason).
- ``_prompts``: the prompt templates and reply schemas; ``_reasons``: the reason written
  without a model.
- The offline judge: ``_offline`` (:func:`extract_units`, :func:`analyze_units`), with
  ``_answer_text`` (units normalised), ``_answer_words`` and ``_answer_index`` (the output's
  words indexed for matching); ``_settings``: :class:`AnswerSimilarityOfflineSettings`.
- ``_registration``: :data:`ANSWER_SIMILARITY_SPEC`, the scorer's entry in the registry.
"""

from ._offline import analyze_units, extract_units
from ._registration import ANSWER_SIMILARITY_SPEC
from ._scorer import (
    ANSWER_THRESHOLD,
    AnswerSimilarityScorer,
    SimilarityWeights,
    create_answer_similarity_scorer,
)
from ._settings import AnswerSimilarityOfflineSettings

__all__ = [
    "ANSWER_SIMILARITY_SPEC",
    "ANSWER_THRESHOLD",
    "AnswerSimilarityOfflineSettings",
    "AnswerSimilarityScorer",
    "SimilarityWeights",
    "analyze_units",
    "create_answer_similarity_scorer",
    "extract_units",
]
