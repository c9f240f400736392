"""How well annotators agree with each other on the items they share.

:func:`label_agreement` reads a labels file (or :func:`~evaltoolkit.meta.read_labels`' frame)
and gives Krippendorff's alpha (from ``krippendorff``), Cohen's kappa per pair of annotators
(from scikit-learn), percent agreement, with bootstrap intervals over items, and the items on
which they disagree most.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ._labels import (
    _key,
    _labels_frame,
    _level_of,
    _matrix,
    _numeric_codes,
    _one_label,
)
from .stats.resampling import index_bootstrap_interval

if TYPE_CHECKING:
    import pandas as pd

    from .stats.resampling import FloatArray

__all__ = ["LabelAgreement", "label_agreement"]


def _alpha(codes: FloatArray, domain: FloatArray, level: str) -> float:
    """Krippendorff's alpha of items x raters codes; NaN when undefined."""
    import krippendorff
    import numpy as np

    paired = codes[np.isfinite(codes).sum(axis=1) >= 2]
    if len(paired) == 0 or len(np.unique(paired[np.isfinite(paired)])) < 2 or len(domain) < 2:
        return math.nan
    return float(
        krippendorff.alpha(
            reliability_data=paired.T,
            value_domain=domain,
            level_of_measurement=level,  # type: ignore[arg-type]
        )
    )


def _percent_agreement(codes: FloatArray) -> float:
    """The share of pairs of annotators, over items they share, who gave the same value."""
    import numpy as np

    agreeing = pairs = 0
    for row in codes:
        present = row[np.isfinite(row)]
        for first, second in itertools.combinations(present.tolist(), 2):
            pairs += 1
            agreeing += first == second
    return agreeing / pairs if pairs else math.nan


def _kappa_weights(level: str) -> str | None:
    return "quadratic" if level in ("ordinal", "interval", "ratio") else None


def _kappa_point(first: FloatArray, second: FloatArray, level: str) -> float:
    from .stats.reliability import cohen_kappa

    weights = _kappa_weights(level)
    try:
        return cohen_kappa(list(first), list(second), weights=weights)  # type: ignore[arg-type]
    except ConfigurationError:
        return math.nan


@dataclass(slots=True)
class LabelAgreement:
    """How well annotators agree with each other on the items they share.

    Attributes:
        label: The label measured.
        level: Its level of measurement (nominal, ordinal, interval, ratio).
        annotators: The annotators, in the order they appear.
        table: One row per figure: ``metric, value, ci_low, ci_high, items, annotators``
            (alpha at the level; Cohen's kappa for each pair of annotators, quadratic-weighted
            on a numeric scale; percent agreement).
        disagreements: The items labelled by two or more annotators, largest disagreement
            first: ``item_id``, one column per annotator, ``spread`` (largest minus smallest
            value, or the number of distinct values for categories) and ``notes``.
    """

    label: str
    level: str
    annotators: list[str]
    table: pd.DataFrame
    disagreements: pd.DataFrame

    def value(self, metric: str) -> float:
        """The value of one metric (``alpha_ordinal``, ``percent_agreement``, ...)."""
        rows = self.table[self.table["metric"] == metric]
        return float(rows["value"].iloc[0]) if len(rows) else math.nan

    def __repr__(self) -> str:
        alpha = self.table.iloc[0]
        return (
            f"LabelAgreement({self.label!r}: {alpha['metric']} {alpha['value']:.3f} "
            f"[{alpha['ci_low']:.3f}, {alpha['ci_high']:.3f}] over {alpha['items']} items "
            f"shared by {len(self.annotators)} annotators; percent agreement "
            f"{self.value('percent_agreement'):.3f})"
        )


def label_agreement(
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    label: str | None = None,
    level: str | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> LabelAgreement:
    """Agreement between annotators: Krippendorff's alpha, Cohen's kappa, percent agreement.

    Alpha (``krippendorff``) at the label's level (as recorded by the Annotator: ordinal for
    a numeric range, nominal for pass/fail and categories; ``level=`` overrides), over every
    annotator; Cohen's kappa (scikit-learn) for each pair of annotators on the items both
    labelled, quadratic-weighted unless nominal; percent agreement over pairs of annotators.
    Each with a percentile bootstrap interval, resampling items.

    Args:
        labels: A labels file, or the frame of :func:`read_labels`.
        label: Which label, when the labels hold several.
        level: ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.
        n_bootstrap: Bootstrap resamples (0: no intervals).
        confidence: The intervals' confidence level.
        seed: Seed of the resampling.

    Raises:
        ConfigurationError: No such label, several labels without ``label=``, fewer than two
            annotators, or an unknown level.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"item_id": [1, 2, 3, 1, 2, 3], "label": "ok",
        ...                       "annotator": ["ann"] * 3 + ["bob"] * 3,
        ...                       "value": [1, 2, 3, 1, 2, 2], "level": "ordinal"})
        >>> result = label_agreement(frame, n_bootstrap=0)
        >>> round(result.value("percent_agreement"), 3)
        0.667
    """
    import numpy as np
    import pandas as pd

    rows, label = _one_label(_labels_frame(labels), label)
    level = _level_of(rows, level)
    annotators = list(dict.fromkeys(rows["annotator"].astype(str)))
    if len(annotators) < 2:
        raise ConfigurationError(
            f"agreement on {label!r} needs two or more annotators; the labels hold "
            f"{', '.join(annotators) or 'none'}"
        )
    matrix = _matrix(rows.assign(annotator=rows["annotator"].astype(str)))[annotators]
    codes, domain = _numeric_codes(matrix, level)
    shared = np.isfinite(codes).sum(axis=1) >= 2

    def row(
        metric: str, statistic: Any, items: int, who: str, point: float | None = None
    ) -> dict[str, Any]:
        low, high = index_bootstrap_interval(
            statistic, len(codes), n_resamples=n_bootstrap, confidence=confidence, seed=seed
        )
        value = statistic(np.arange(len(codes))) if point is None else point
        return {
            "metric": metric,
            "value": value,
            "ci_low": low,
            "ci_high": high,
            "items": items,
            "annotators": who,
        }

    every = ", ".join(annotators)
    table = [
        row(
            f"alpha_{level}",
            lambda drawn: _alpha(codes[drawn], domain, level),
            int(shared.sum()),
            every,
        )
    ]
    weights = _kappa_weights(level)
    kappa_name = "kappa" if weights is None else f"kappa_{weights}"
    for first, second in itertools.combinations(range(len(annotators)), 2):
        both = np.isfinite(codes[:, first]) & np.isfinite(codes[:, second])
        if both.sum() < 2:
            continue
        table.append(
            row(
                kappa_name,
                lambda drawn, a=first, b=second: _kappa_drawn(codes[drawn], a, b, domain, level),
                int(both.sum()),
                f"{annotators[first]}, {annotators[second]}",
                # The point estimate is scikit-learn's; the resamples use the same formula.
                point=_kappa_point(codes[both, first], codes[both, second], level),
            )
        )
    table.append(
        row(
            "percent_agreement",
            lambda drawn: _percent_agreement(codes[drawn]),
            int(shared.sum()),
            every,
        )
    )
    return LabelAgreement(
        label=label,
        level=level,
        annotators=annotators,
        table=pd.DataFrame(table),
        disagreements=_disagreements(rows, matrix, codes, level),
    )


def _kappa_drawn(
    drawn: FloatArray, first: int, second: int, domain: FloatArray, level: str
) -> float:
    import numpy as np

    from .stats.reliability import evenly_spaced, kappa_from_table

    both = np.isfinite(drawn[:, first]) & np.isfinite(drawn[:, second])
    a, b = drawn[both, first], drawn[both, second]
    weights = _kappa_weights(level)
    if weights is None:
        scale = domain
    else:
        try:
            scale = np.array(evenly_spaced(domain.tolist()))
        except ConfigurationError:
            return math.nan
    size = len(scale)
    codes_a, codes_b = np.searchsorted(scale, a), np.searchsorted(scale, b)
    table = np.bincount(codes_a * size + codes_b, minlength=size * size).astype(float)
    return kappa_from_table(table.reshape(size, size), scale, weights)  # type: ignore[arg-type]


def _disagreements(
    rows: pd.DataFrame, matrix: pd.DataFrame, codes: FloatArray, level: str
) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    notes: dict[str, list[str]] = {}
    ids: dict[str, Any] = {}
    for record in rows.to_dict(orient="records"):
        key = _key(record["item_id"])
        ids.setdefault(key, record["item_id"])
        note = record.get("note")
        if isinstance(note, str) and note.strip():
            notes.setdefault(key, []).append(f"{record['annotator']}: {note.strip()}")
    frame = matrix.copy()
    spreads = []
    for row in codes:
        present = row[np.isfinite(row)]
        if len(present) < 2:
            spreads.append(math.nan)
        elif level == "nominal":
            spreads.append(float(len(np.unique(present)) - 1))
        else:
            spreads.append(float(present.max() - present.min()))
    frame["spread"] = spreads
    frame["notes"] = ["; ".join(notes.get(key, [])) for key in frame.index]
    frame.insert(0, "item_id", [ids[key] for key in frame.index])
    frame = frame[frame["spread"].notna()].sort_values("spread", ascending=False, kind="stable")
    frame.columns.name = None
    return pd.DataFrame(frame).reset_index(drop=True)
