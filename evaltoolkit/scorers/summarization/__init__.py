"""The summarization scorer: its steps and formula, prompts, reasons, offline judge and settings.

- ``_scorer``: :func:`create_summarization_scorer` (source judgement, coverage, reason).
- ``_prompts``: the prompt templates and reply schemas; ``_reasons``: the reason written
  without a model.
- The offline judge: ``_offline`` (:func:`judge_source`, :func:`judge_coverage`,
  :data:`OFFLINE_RULES`, the size limits), ``_claims`` and ``_claim_checks`` (claim support and
  the claim rules), ``_questions`` (questions drawn from the source and answered from the
  summary), ``_document`` and ``_facts`` (the source analysed); ``_settings``:
  :class:`SummarizationOfflineSettings`.
- ``_registration``: :data:`SUMMARIZATION_SPEC`, the scorer's entry in the registry.
"""

from ._offline import (
    MAX_SOURCE_CHARS,
    MAX_SUMMARY_CHARS,
    OFFLINE_RULES,
    check_rules,
    draw_source_questions,
    judge_claims,
    judge_coverage,
    judge_source,
)
from ._registration import SUMMARIZATION_SPEC
from ._scorer import SummarizationScorer, create_summarization_scorer, deciding_axis
from ._settings import SummarizationOfflineSettings

__all__ = [
    "MAX_SOURCE_CHARS",
    "MAX_SUMMARY_CHARS",
    "OFFLINE_RULES",
    "SUMMARIZATION_SPEC",
    "SummarizationOfflineSettings",
    "SummarizationScorer",
    "check_rules",
    "create_summarization_scorer",
    "deciding_axis",
    "draw_source_questions",
    "judge_claims",
    "judge_coverage",
    "judge_source",
]
