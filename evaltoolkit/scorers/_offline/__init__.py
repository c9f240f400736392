"""The offline judge: answers the scorers' judge steps from the texts alone.

No model, no network, no randomness: the same input always gives the same output. Each
function answers one structured step an LLM judge would answer, in the same shape.

- :func:`judge_source` (summarization step 1): the summary's atomic claims, each judged
  supported or not against its best source evidence (the reason quotes it), and closed
  questions about the source's central facts and key phrases.
- :func:`judge_coverage` (summarization step 2): whether the summary alone answers each
  question "yes" (the reason quotes where). It never sees the source.
- :func:`draw_source_questions` and :func:`judge_claims`: step 1 split in two for
  ``questions="per_source"``, the questions drawn from the source alone.
- :class:`SummarizationOfflineSettings`: the summarization judge's six tuned settings, which
  both functions take as ``settings=``, and the rules switched off (``disabled_rules``); texts
  over ``MAX_SOURCE_CHARS`` / ``MAX_SUMMARY_CHARS`` raise
  :class:`~evaltoolkit.errors.InputError`.
- :data:`OFFLINE_RULES`: the named rules of the claim and question verdicts (each verdict's
  ``rule`` field names one), an :class:`OfflineRule` each.
- :func:`extract_units` and :func:`analyze_units` (answer similarity): the semantic units of an
  output and a ground truth, and how each ground-truth unit is matched (exact, semantic,
  partial, missing), with contradictions and extra information; the matching thresholds
  are :class:`AnswerSimilarityOfflineSettings` (``settings=`` of :func:`analyze_units`).
"""

from ._answers import analyze_units, extract_units
from ._settings import (
    AnswerSimilarityOfflineSettings,
    OfflineRule,
    SettingSpec,
    SummarizationOfflineSettings,
)
from ._summarization import (
    MAX_SOURCE_CHARS,
    MAX_SUMMARY_CHARS,
    OFFLINE_RULES,
    check_rules,
    draw_source_questions,
    judge_claims,
    judge_coverage,
    judge_source,
)

__all__ = [
    "MAX_SOURCE_CHARS",
    "MAX_SUMMARY_CHARS",
    "OFFLINE_RULES",
    "AnswerSimilarityOfflineSettings",
    "OfflineRule",
    "SettingSpec",
    "SummarizationOfflineSettings",
    "analyze_units",
    "check_rules",
    "draw_source_questions",
    "extract_units",
    "judge_claims",
    "judge_coverage",
    "judge_source",
]
