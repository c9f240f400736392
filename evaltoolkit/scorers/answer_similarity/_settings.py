"""The thresholds of the offline answer-similarity judge, named, typed, documented and checked."""

from __future__ import annotations

from dataclasses import dataclass

from .._offline_settings import OfflineSettings, setting

__all__ = ["AnswerSimilarityOfflineSettings"]


@dataclass(frozen=True)
class AnswerSimilarityOfflineSettings(OfflineSettings):
    """Thresholds of the offline answer-similarity judge (how ``analyze_units`` matches).

    A ground-truth unit is matched ``semantic`` when its numbers are all in an output unit and
    that unit holds ``semantic_coverage`` of its weighted content or is ``semantic_fuzz``
    similar to it in characters; ``partial`` when it holds ``partial_coverage``, or is
    ``partial_fuzz`` similar with its numbers; else ``missing``. An output unit that matches
    nothing is extra information unless ``restatement_share`` of it is in the question or the
    ground truth. Every value is checked against its range on construction.

    Example:
        >>> AnswerSimilarityOfflineSettings(semantic_fuzz=95).semantic_fuzz
        95.0
        >>> AnswerSimilarityOfflineSettings.from_mapping({"partial_coverage": 0.4})
        ... # doctest: +ELLIPSIS
        AnswerSimilarityOfflineSettings(semantic_coverage=0.8, partial_coverage=0.4, ...)
    """

    semantic_coverage: float = setting(
        0.8, 0.5, 1.0, "Share of a ground-truth unit's weighted content for a semantic match."
    )
    partial_coverage: float = setting(
        0.5, 0.1, 1.0, "Share of a ground-truth unit's weighted content for a partial match."
    )
    semantic_fuzz: float = setting(
        88.0, 50.0, 100.0, "Character similarity (0-100) of the texts for a semantic match."
    )
    partial_fuzz: float = setting(
        72.0,
        30.0,
        100.0,
        "Character similarity (0-100) for a partial match; a name at least this similar to "
        "the ground truth's is no contradiction.",
    )
    restatement_share: float = setting(
        0.6,
        0.0,
        1.0,
        "Share of an output unit's content already in the question or the ground truth for it "
        "to be a restatement, not extra information.",
    )
