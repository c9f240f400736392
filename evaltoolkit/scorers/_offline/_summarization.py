"""Offline answers to the summarization steps: claim support, source questions, coverage.

Step 1 (:func:`judge_source`) sees the source and the summary: the summary's claims, each
judged against its best evidence in the source (:mod:`._claims`), and closed questions about
the source's most central facts (:mod:`._questions`).

Step 2 (:func:`judge_coverage`) never sees the source: each question is answered from the
summary alone (:mod:`._questions`).
"""

from __future__ import annotations

from typing import Any

from ._claims import judge_claim, split_claims
from ._questions import answer_questions, draw_questions
from ._settings import SummarizationOfflineSettings


def judge_source(
    source: str,
    summary: str,
    max_questions: int,
    *,
    settings: SummarizationOfflineSettings | None = None,
) -> dict[str, Any]:
    """Judge a summary's claims against its source and draw questions from the source.

    Args:
        source: The source document.
        summary: The summary to judge.
        max_questions: The most questions to draw from the source.

    Returns:
        ``{"claims": [{"claim", "supported", "reason"}, ...], "questions": [str, ...]}``.
    """
    claims = [judge_claim(claim, source, settings) for claim in split_claims(summary)]
    return {"claims": claims, "questions": draw_questions(source, max_questions, settings)}


def judge_coverage(
    summary: str,
    questions: list[str],
    *,
    settings: SummarizationOfflineSettings | None = None,
) -> dict[str, Any]:
    """Decide from the summary alone whether it answers each question "yes".

    Args:
        summary: The summary text.
        questions: Closed questions whose text carries the fact asked about.

    Returns:
        ``{"verdicts": [{"question", "answered", "reason"}, ...]}``, one per question in order.
    """
    return {"verdicts": answer_questions(summary, questions, settings)}
