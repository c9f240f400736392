"""The judge measured against the annotators, in the units they agree with each other.

:func:`judge_vs_humans` puts the judge's agreement with the annotators beside theirs with
each other (:func:`~evaltoolkit.meta.label_agreement`), in the same units.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ._annotator_agreement import _alpha
from ._human_labels import human_labels, judge_on_scale
from ._labels import (
    _key,
    _labels_frame,
    _level_of,
    _matrix,
    _numeric_codes,
    _one_label,
)
from .stats.resampling import FEW_UNITS, index_bootstrap_interval

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


__all__ = ["HumanComparison", "judge_vs_humans"]


@dataclass(slots=True)
class HumanComparison:
    """The judge's agreement with the annotators beside theirs with each other.

    Both figures are the mean Krippendorff's alpha over pairs of raters at the label's level:
    each (judge, annotator) pair, and each pair of annotators, on the items both rated.

    Attributes:
        label: The label.
        level: Its level of measurement.
        judge: ``(value, ci_low, ci_high)`` of the judge against the annotators.
        humans: ``(value, ci_low, ci_high)`` of the annotators with each other.
        items: Items with a judge score and at least one human label.
        annotators: The annotators.
        pairs: One row per pair of raters: ``pair``, ``kind`` (judge-human, human-human),
            ``alpha``, ``items``.
        gaps: One row per item: ``item_id``, ``judge`` (on the label's scale), ``human``
            (resolved), ``gap`` (judge minus human; for categories 1 where they differ).
    """

    label: str
    level: str
    judge: tuple[float, float, float]
    humans: tuple[float, float, float]
    items: int
    annotators: list[str]
    pairs: pd.DataFrame = field(repr=False)
    gaps: pd.DataFrame = field(repr=False)

    @property
    def verdict(self) -> str:
        """The comparison in words: too few items (fewer than 10), intervals that overlap, or
        the judge's agreement below or above the annotators'."""
        judge, humans = self.judge[0], self.humans[0]
        if math.isnan(judge) or math.isnan(humans):
            return "not enough shared items to compare"
        if self.items < FEW_UNITS:
            return (
                f"{self.items} items (fewer than {FEW_UNITS}) are too few to tell the judge's "
                "agreement from the annotators'"
            )
        low, high = self.judge[1], self.judge[2]
        human_low, human_high = self.humans[1], self.humans[2]
        if abs(judge - humans) < 0.05:
            return (
                "the judge agrees with the annotators about as well as they agree with each other"
            )
        if max(low, human_low) <= min(high, human_high):
            return (
                "the two intervals overlap: these items cannot tell the judge's agreement from "
                "the annotators'"
            )
        side = "below" if judge < humans else "above"
        return (
            f"the judge agrees with the annotators {abs(judge - humans):.2f} {side} their "
            "agreement with each other"
        )

    def __str__(self) -> str:
        def part(figure: tuple[float, float, float]) -> str:
            value, low, high = figure
            interval = "" if math.isnan(low) else f" [{low:.2f}, {high:.2f}]"
            return f"{value:.2f}{interval}"

        return (
            f"{self.label}: judge vs annotators alpha_{self.level} {part(self.judge)}, "
            f"annotators vs each other {part(self.humans)} ({self.items} items, "
            f"{len(self.annotators)} annotators): {self.verdict}"
        )

    def __repr__(self) -> str:
        return f"HumanComparison({self})"


def _judge_frame(scores: Any, score: str | None) -> tuple[list[Any], list[float]]:
    import pandas as pd

    if not isinstance(scores, pd.DataFrame):
        from ..records._internal import as_eval_result

        result = as_eval_result(scores)
        ids, values = [], []
        for item in result.items:
            names = list(item.scorer_results)
            name = score if score in names else (names[0] if names else None)
            if name is None:
                continue
            ids.append(item.item_id)
            values.append(item.scorer_results[name].score)
        return ids, values
    column = score or "score"
    if column not in scores.columns:
        raise ConfigurationError(
            f"no score column {column!r} in the scores; its columns are "
            f"{', '.join(map(str, scores.columns))}. Name it with score="
        )
    id_column = next((c for c in ("item_id", "id") if c in scores.columns), None)
    ids = list(scores[id_column]) if id_column else list(range(len(scores)))
    return ids, [float(v) for v in scores[column]]


def judge_vs_humans(
    scores: Any,
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    label: str | None = None,
    score: str | None = None,
    judge_range: tuple[float, float] = (0.0, 1.0),
    threshold: float = 0.5,
    level: str | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> HumanComparison:
    """How well the judge agrees with the annotators, beside how well they agree with each other.

    The judge's scores become verdicts on the label's scale (:func:`judge_on_scale`); then the
    mean Krippendorff's alpha over (judge, annotator) pairs is set beside the mean over pairs
    of annotators, each with a percentile bootstrap interval resampling items.

    Args:
        scores: A frame with ``item_id`` and a score column (``MetaEvaluation.scores``), or an
            EvalResult / saved results.
        labels: A labels file, or the frame of :func:`read_labels`.
        label: Which label, when the labels hold several.
        score: The score column (default ``score``), or the scorer id of a result.
        judge_range: The judge's score range, mapped onto a numeric label scale.
        threshold: The pass mark for a pass/fail label.
        level: Overrides the recorded level of measurement.
        n_bootstrap: Bootstrap resamples (0: no intervals).
        confidence: The intervals' confidence level.
        seed: Seed of the resampling.

    Example:
        >>> import pandas as pd
        >>> labels = pd.DataFrame({"item_id": [1, 2, 3, 1, 2, 3], "label": "ok",
        ...                        "annotator": ["ann"] * 3 + ["bob"] * 3,
        ...                        "value": [1, 3, 5, 1, 3, 4], "level": "ordinal",
        ...                        "scale": [(1, 2, 3, 4, 5)] * 6})
        >>> scores = pd.DataFrame({"item_id": [1, 2, 3], "score": [0.0, 0.5, 1.0]})
        >>> comparison = judge_vs_humans(scores, labels, n_bootstrap=0)
        >>> comparison.gaps["item_id"].tolist(), comparison.gaps["gap"].tolist()
        ([3, 1, 2], [0.5, 0.0, 0.0])
    """
    import numpy as np
    import pandas as pd

    rows, label = _one_label(_labels_frame(labels), label)
    level = _level_of(rows, level)
    annotators = list(dict.fromkeys(rows["annotator"].astype(str)))
    recorded = [s for s in rows.get("scale", []) if isinstance(s, tuple | list)]
    scale = tuple(recorded[-1]) if recorded else tuple(sorted(set(rows["value"]), key=str))
    ids, values = _judge_frame(scores, score)
    verdicts = dict(
        zip(
            map(_key, ids),
            judge_on_scale(values, scale, judge_range=judge_range, threshold=threshold),
            strict=True,
        )
    )
    matrix = _matrix(rows.assign(annotator=rows["annotator"].astype(str)))[annotators]
    matrix = matrix[[key in verdicts for key in matrix.index]]
    judge_column = "\x00judge"
    matrix[judge_column] = [verdicts[key] for key in matrix.index]
    codes, domain = _numeric_codes(matrix, level)
    judge_index = codes.shape[1] - 1
    pair_list = list(itertools.combinations(range(codes.shape[1]), 2))

    def mean_alpha(drawn: np.ndarray[Any, Any], with_judge: bool) -> float:
        found = [
            _alpha(codes[drawn][:, [a, b]], domain, level)
            for a, b in pair_list
            if (judge_index in (a, b)) == with_judge
        ]
        finite = [value for value in found if not math.isnan(value)]
        return float(np.mean(finite)) if finite else math.nan

    every = np.arange(len(codes))

    def figure(with_judge: bool) -> tuple[float, float, float]:
        low, high = index_bootstrap_interval(
            lambda drawn: mean_alpha(drawn, with_judge),
            len(codes),
            n_resamples=n_bootstrap,
            confidence=confidence,
            seed=seed,
        )
        return mean_alpha(every, with_judge), low, high

    names = [*annotators, "judge"]
    pairs = pd.DataFrame(
        [
            {
                "pair": f"{names[a]}, {names[b]}",
                "kind": "judge-human" if judge_index in (a, b) else "human-human",
                "alpha": _alpha(codes[:, [a, b]], domain, level),
                "items": int((np.isfinite(codes[:, a]) & np.isfinite(codes[:, b])).sum()),
            }
            for a, b in pair_list
        ]
    )
    resolved = human_labels(rows, label=label, level=level) if len(rows) else None
    human_of = (
        {}
        if resolved is None
        else dict(zip(map(_key, resolved["item_id"]), resolved[label], strict=True))
    )
    gap_rows = []
    for key, item_id in zip(map(_key, ids), ids, strict=True):
        if key not in human_of:
            continue
        judge, human = verdicts[key], human_of[key]
        if judge is None or human is None:
            gap = math.nan
        elif level == "nominal":
            gap = float(judge != human)
        else:
            gap = float(judge) - float(human)
        gap_rows.append({"item_id": item_id, "judge": judge, "human": human, "gap": gap})
    gaps = pd.DataFrame(gap_rows, columns=["item_id", "judge", "human", "gap"])
    order = gaps["gap"].abs().sort_values(ascending=False, kind="stable").index
    return HumanComparison(
        label=label,
        level=level,
        judge=figure(True),
        humans=figure(False),
        items=int((np.isfinite(codes[:, :judge_index]).sum(axis=1) >= 1).sum()),
        annotators=annotators,
        pairs=pairs,
        gaps=gaps.loc[order].reset_index(drop=True),
    )
