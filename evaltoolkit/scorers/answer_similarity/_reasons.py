"""The answer-similarity reason written from verdicts without a model.

The reason step's offline function answers with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._language import quoted

__all__ = ["answer_similarity_reason"]


def answer_similarity_reason(
    *,
    score: float,
    matches: Sequence[Mapping[str, Any]],
    contradictions: Sequence[Mapping[str, Any]],
    extra_info: Sequence[str],
) -> str:
    """Explain an answer-similarity score with what matched, what is missing and what is wrong.

    Example:
        >>> answer_similarity_reason(score=1.0, contradictions=[], extra_info=[],
        ...     matches=[{"ground_truth_unit": "Paris", "match_type": "exact"}])
        'The score is 1: 1 of 1 ground-truth units matched exactly.'
    """
    by_type: dict[str, list[str]] = {"exact": [], "semantic": [], "partial": [], "missing": []}
    for match in matches:
        by_type.setdefault(str(match.get("match_type")), []).append(
            str(match.get("ground_truth_unit"))
        )
    total = len(matches)
    parts = [
        f"{len(by_type[kind])} of {total} ground-truth units matched {label}"
        for kind, label in (
            ("exact", "exactly"),
            ("semantic", "in meaning"),
            ("partial", "in part"),
        )
        if by_type[kind]
    ]
    if by_type["missing"]:
        parts.append(f"missing from the answer: {quoted(by_type['missing'])}")
    if contradictions:
        parts.append(
            "contradicting the ground truth: "
            + quoted([str(item.get("output_unit")) for item in contradictions])
        )
    if extra_info:
        parts.append(f"extra information not in the ground truth: {quoted(list(extra_info))}")
    if not parts:
        parts.append("no ground-truth unit to compare with")
    return f"The score is {score:.3g}: " + "; ".join(parts) + "."
