"""The summarization reason written from verdicts without a model.

The reason step's offline function answers with it, and a summarization scorer created
with ``reason="template"`` uses it to skip the reason call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._language import quoted

__all__ = ["summarization_reason"]


def summarization_reason(
    *,
    score: float,
    alignment_score: float,
    coverage_score: float,
    decided_by: str,
    claims: Sequence[Mapping[str, Any]],
    coverage: Sequence[Mapping[str, Any]],
) -> str:
    """Explain a summarization score: the deciding axis, what lay behind it, both axis scores.

    Args:
        score: The final score (already scaled).
        alignment_score: Supported claims over claims.
        coverage_score: Answered questions over questions.
        decided_by: ``"alignment"``, ``"coverage"`` or ``"tie"``.
        claims: The claim verdicts (``claim``, ``supported``, ``reason``).
        coverage: The coverage verdicts (``question``, ``answered``, ``reason``), one per
            question that counted.

    Example:
        >>> summarization_reason(score=0.5, alignment_score=0.5, coverage_score=1.0,
        ...     decided_by="alignment",
        ...     claims=[{"claim": "A", "supported": True}, {"claim": "B", "supported": False}],
        ...     coverage=[{"question": "Q?", "answered": True}])[:47]
        'The score is 0.5, decided by alignment (0.50): '
    """
    unsupported = [str(claim["claim"]) for claim in claims if not claim.get("supported")]
    unanswered = [str(verdict["question"]) for verdict in coverage if not verdict.get("answered")]
    axes = f"alignment {alignment_score:.2f}, coverage {coverage_score:.2f}"
    if not claims:
        return f"The score is 0: the summary makes no claim that could be judged ({axes})."
    if not coverage:
        return f"The score is 0: no question could be drawn from the source ({axes})."
    alignment_note = (
        f"{len(unsupported)} of {len(claims)} claims are not supported by the source: "
        f"{quoted(unsupported)}"
        if unsupported
        else f"all {len(claims)} claims are supported by the source"
    )
    coverage_note = (
        f"the summary leaves {len(unanswered)} of {len(coverage)} questions about the source "
        f"unanswered: {quoted(unanswered)}"
        if unanswered
        else f"the summary answers all {len(coverage)} questions about the source"
    )
    if decided_by == "alignment":
        return (
            f"The score is {score:.3g}, decided by alignment ({alignment_score:.2f}): "
            f"{alignment_note}. Coverage is {coverage_score:.2f}: {coverage_note}."
        )
    if decided_by == "coverage":
        return (
            f"The score is {score:.3g}, decided by coverage ({coverage_score:.2f}): "
            f"{coverage_note}. Alignment is {alignment_score:.2f}: {alignment_note}."
        )
    return (
        f"The score is {score:.3g}; alignment and coverage tie ({axes}): "
        f"{alignment_note}, and {coverage_note}."
    )
