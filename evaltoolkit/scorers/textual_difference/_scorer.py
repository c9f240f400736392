"""Textual difference: how far an output is from a reference text, by sequence matching.

No model is involved. With ``a`` the output and ``b`` the reference:

- ``ratio`` = 2 x LCS(a, b) / (len(a) + len(b)) over characters (rapidfuzz's Indel
  similarity); 1 when both are empty;
- ``changes`` = the word-level edit distance (insertions, deletions and substitutions of
  whitespace-separated words), at least 1 when the texts differ in whitespace alone;
- ``length_diff`` = |len(a) - len(b)| / max(len(a), len(b));
- ``confidence`` = 1 - length_diff;
- ``score`` = ratio x confidence x scale, unrounded.

The reference is the item's ground truth when it has one, else its input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from rapidfuzz.distance import LCSseq, Levenshtein

from ...records.messages import input_text, output_text
from .._base import Scorer, StepTrace, check_scale, merge_options
from .._steps import Sample, Score

__all__ = [
    "TextDifference",
    "TextualDifferenceScorer",
    "compare_texts",
    "create_textual_difference_scorer",
]


@dataclass(frozen=True, slots=True)
class TextDifference:
    """The difference metrics of two texts (see the module docstring for their definitions)."""

    ratio: float
    changes: int
    length_diff: float
    confidence: float


def compare_texts(a: str, b: str) -> TextDifference:
    """Compare two texts by character LCS, word edits and length.

    Example:
        >>> compare_texts("The cat sat.", "The cat sat.")
        TextDifference(ratio=1.0, changes=0, length_diff=0.0, confidence=1.0)
    """
    total = len(a) + len(b)
    if total == 0:
        return TextDifference(ratio=1.0, changes=0, length_diff=0.0, confidence=1.0)
    ratio = 2 * LCSseq.similarity(a, b) / total
    changes = Levenshtein.distance(a.split(), b.split())
    if changes == 0 and a != b:
        changes = 1
    length_diff = abs(len(a) - len(b)) / max(len(a), len(b))
    return TextDifference(
        ratio=ratio, changes=changes, length_diff=length_diff, confidence=1.0 - length_diff
    )


def _reference_text(item: Sample) -> tuple[str, Literal["ground_truth", "input"]]:
    if item.ground_truth is not None:
        return output_text(item.ground_truth, field="ground_truth", item_id=item.item_id), (
            "ground_truth"
        )
    return input_text(item.input, field="input", item_id=item.item_id), "input"


class TextualDifferenceScorer(Scorer):
    """Scores how close an output is to its ground truth (or input), without a model."""

    id = "textual-difference"
    description = "character LCS ratio times length confidence, with word-level changes"

    def __init__(self, *, scale: float = 1.0) -> None:
        self.scale = check_scale(scale)

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        output = output_text(item.output, field="output", item_id=item.item_id)
        reference, reference_field = _reference_text(item)
        trace.step = "analyze"
        difference = compare_texts(output, reference)
        analysis: dict[str, Any] = {**asdict(difference), "reference": reference_field}
        score = difference.ratio * difference.confidence * self.scale
        reason = (
            f"Compared with the {reference_field.replace('_', ' ')}: similarity ratio "
            f"{difference.ratio:.3f}, {difference.changes} word-level "
            f"change{'s' if difference.changes != 1 else ''}, length difference "
            f"{difference.length_diff:.1%} (confidence {difference.confidence:.3f})."
        )
        return Score(score, reason=reason, analyze_step_result=analysis, details=analysis)


def create_textual_difference_scorer(
    *, scale: float = 1.0, options: Mapping[str, Any] | None = None
) -> TextualDifferenceScorer:
    """Create the textual-difference scorer (id ``"textual-difference"``).

    Args:
        scale: Multiplier of the final score (default 1).
        options: Reference-style options dict (``{"scale": 100}``); its entries win.

    Returns:
        A scorer whose ``run(input=..., output=..., ground_truth=...)`` compares the output
        with the ground truth, or with the input when there is none.

    Example:
        >>> scorer = create_textual_difference_scorer()
        >>> result = scorer.run(input="q", output="Paris", ground_truth="Paris")
        >>> result.score, result.analyze_step_result["reference"]
        (1.0, 'ground_truth')
    """
    merged = merge_options({"scale": scale}, options, scorer="textual-difference")
    return TextualDifferenceScorer(**merged)
