"""Chance-corrected agreement between two ratings of the same items: kappa and alpha.

:func:`krippendorff_alpha` is the ``krippendorff`` package's alpha (any number of raters,
missing ratings allowed, at the nominal, ordinal, interval or ratio level).
:func:`cohen_kappa` is Cohen's kappa of two raters, unweighted or with linear or quadratic
weights, is scikit-learn's :func:`~sklearn.metrics.cohen_kappa_score` (imported when first
used: scikit-learn takes a moment to import).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from ...errors import ConfigurationError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]

__all__ = [
    "KappaWeights",
    "Level",
    "cohen_kappa",
    "evenly_spaced",
    "kappa_from_table",
    "kappa_of_codes",
    "krippendorff_alpha",
]

#: The level of measurement of a rating, as Krippendorff's alpha takes it.
Level = Literal["nominal", "ordinal", "interval", "ratio"]
#: Cohen's kappa weights: None (unweighted), ``"linear"`` or ``"quadratic"``.
KappaWeights = Literal["linear", "quadratic"] | None

LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN and pandas' missing values
    except (TypeError, ValueError):
        return False


def _as_codes(ratings: list[list[Any]], level: Level) -> tuple[FloatArray, list[Any]]:
    """Ratings as floats (missing as NaN): numbers as they are, categories as their codes."""
    import numpy as np

    present = [value for row in ratings for value in row if not _is_missing(value)]
    numeric = all(
        isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
        for value in present
    )
    if numeric:
        values = np.array(
            [[math.nan if _is_missing(v) else float(v) for v in row] for row in ratings],
            dtype=float,
        )
        return values, sorted(set(values[np.isfinite(values)].tolist()))
    if level != "nominal":
        raise ConfigurationError(
            f"krippendorff_alpha: level={level!r} needs numeric ratings, but they hold "
            f"categories such as {next(v for v in present if isinstance(v, str | bool))!r}; "
            "use level='nominal' for categories, or map them to numbers first"
        )
    categories = sorted(set(map(str, present)))
    code = {category: float(index) for index, category in enumerate(categories)}
    values = np.array(
        [[math.nan if _is_missing(v) else code[str(v)] for v in row] for row in ratings],
        dtype=float,
    )
    return values, categories


def _rater_rows(ratings: pd.DataFrame | Sequence[Sequence[Any]]) -> list[list[Any]]:
    import pandas as pd

    if isinstance(ratings, pd.DataFrame):
        return [list(ratings[column]) for column in ratings.columns]
    return [list(row) for row in ratings]


def krippendorff_alpha(
    ratings: pd.DataFrame | Sequence[Sequence[Any]],
    *,
    level: Level = "interval",
) -> float:
    """Krippendorff's alpha of several raters, from the ``krippendorff`` package.

    Alpha is 1 for perfect agreement, 0 for agreement at chance level, and below 0 for
    systematic disagreement. Missing ratings (None, NaN) are allowed; units rated by fewer
    than two raters do not count.

    Args:
        ratings: A DataFrame with one row per unit (item) and one column per rater, or a
            nested sequence with one row per rater and one column per unit (the layout of
            ``krippendorff.alpha``). Numbers, or categories (text) at the nominal level.
        level: ``"nominal"`` (categories, pass/fail), ``"ordinal"`` (ranks such as 1-5
            ratings), ``"interval"`` or ``"ratio"``.

    Returns:
        Alpha; NaN when fewer than two distinct values were given (alpha is undefined).

    Raises:
        ConfigurationError: An unknown level, fewer than two raters, or categories at a level
            that needs numbers.

    Example:
        >>> import pandas as pd
        >>> ratings = pd.DataFrame({"ann": [1, 2, 3, 3], "bob": [1, 2, 3, 4]})
        >>> round(krippendorff_alpha(ratings, level="interval"), 3)
        0.889
    """
    import krippendorff
    import numpy as np

    if level not in LEVELS:
        raise ConfigurationError(
            f"krippendorff_alpha: unknown level {level!r}; choose one of {', '.join(LEVELS)}"
        )
    rows = _rater_rows(ratings)
    if len(rows) < 2:
        raise ConfigurationError(
            f"krippendorff_alpha: agreement needs at least 2 raters, got {len(rows)}; pass one "
            "column per rater (DataFrame) or one row per rater (nested list)"
        )
    values, domain = _as_codes(rows, level)
    if len(domain) < 2:
        return math.nan
    domain_values = np.arange(len(domain), dtype=float) if not _numeric(domain) else domain
    return float(
        krippendorff.alpha(
            reliability_data=values, value_domain=domain_values, level_of_measurement=level
        )
    )


def _numeric(domain: list[Any]) -> bool:
    return all(isinstance(value, float) for value in domain)


def evenly_spaced(values: list[float]) -> list[float]:
    """The evenly spaced scale through ``values`` (1, 2, 4 gives 1, 2, 3, 4).

    scikit-learn weighs a disagreement by the distance between the positions of two values in
    its ``labels``; on an evenly spaced scale that is the distance between the values
    themselves, so a value no rater used still counts as a step.
    """
    import numpy as np

    if len(values) < 2:
        return values
    ordered = np.array(sorted(values), dtype=float)
    step = float(np.min(np.diff(ordered)))
    positions = (ordered - ordered[0]) / step
    if not np.allclose(positions, np.round(positions), atol=1e-6) or positions[-1] > _MAX_STEPS:
        raise ConfigurationError(
            "cohen_kappa: weighted kappa needs ratings on an evenly spaced scale (such as 1-5, "
            f"or halves), got the values {ordered.tolist()[:12]}; use weights=None, or "
            "krippendorff_alpha(level='interval') for values in between"
        )
    scale: list[float] = (ordered[0] + step * np.arange(round(positions[-1]) + 1)).tolist()
    return scale


#: The most steps an evenly spaced scale for weighted kappa may have.
_MAX_STEPS = 1000


def kappa_of_codes(
    first: FloatArray,
    second: FloatArray,
    scale: list[float],
    weights: KappaWeights,
    sample_weight: FloatArray | None = None,
) -> float:
    """scikit-learn's Cohen's kappa of two coded ratings on ``scale`` (NaN when undefined).

    ``scale`` lists every value a rating may take, in order; with weights it must be evenly
    spaced (see :func:`evenly_spaced`). ``sample_weight`` counts each item (bootstrap draws).
    """
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    if len(first) == 0 or (sample_weight is not None and not sample_weight.any()):
        return math.nan
    # scikit-learn takes class labels, not fractions (0.25 reads as a continuous target):
    # hand it each value's position on the scale, which keeps every distance in proportion.
    points = np.asarray(scale, dtype=float)

    def positions(values: FloatArray) -> np.ndarray[Any, Any]:
        nearest: np.ndarray[Any, Any] = np.abs(
            np.asarray(values, dtype=float)[:, None] - points[None, :]
        ).argmin(axis=1)
        return nearest

    return float(
        cohen_kappa_score(
            positions(first),
            positions(second),
            labels=np.arange(len(points)),
            weights=weights,
            sample_weight=sample_weight,
            replace_undefined_by=math.nan,
        )
    )


def _disagreement_weights(values: FloatArray, weights: KappaWeights) -> FloatArray:
    import numpy as np

    distance = values[:, None] - values[None, :]
    if weights is None:
        matrix: FloatArray = (distance != 0).astype(float)
    elif weights == "linear":
        matrix = np.abs(distance)
    else:
        matrix = distance**2
    return matrix


def kappa_from_table(table: FloatArray, values: FloatArray, weights: KappaWeights) -> float:
    """Cohen's kappa of a square contingency table whose rows and columns are ``values``.

    Only for bootstrap resamples, where scikit-learn's input checks (about 1 ms a call)
    would cost seconds per interval: the same formula over a table of counts, which the
    tests check against :func:`sklearn.metrics.cohen_kappa_score` on weighted draws.
    """
    import numpy as np

    total = table.sum()
    if total == 0:
        return math.nan
    observed = table / total
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    disagreement = _disagreement_weights(values, weights)
    chance = float((disagreement * expected).sum())
    if chance == 0.0:
        return math.nan
    return 1.0 - float((disagreement * observed).sum()) / chance


def cohen_kappa(
    first: Sequence[Any] | pd.Series,
    second: Sequence[Any] | pd.Series,
    *,
    weights: KappaWeights = None,
    labels: Sequence[float] | None = None,
) -> float:
    """Cohen's kappa of two raters over the same items, from scikit-learn.

    :func:`sklearn.metrics.cohen_kappa_score`: ``1 - sum(w * observed) / sum(w * expected)``
    over the two raters' contingency table, where ``expected`` is the product of the two
    raters' marginal shares and ``w`` the disagreement weight of a pair of values: 1 for any
    two different values (unweighted), their distance (``"linear"``) or its square
    (``"quadratic"``, the usual choice for ordinal ratings such as 1-5). Weighted kappa
    measures distances on the values themselves: the scale handed to scikit-learn as its
    ``labels`` is the evenly spaced one through the values given (1, 2, 4, 5 give
    ``labels=[1, 2, 3, 4, 5]``), so a value neither rater used still counts as a step.
    scikit-learn's own default (the values used, as positions) reads 1, 2, 4, 5 as four
    equal steps and gives a different figure; pass ``labels`` to choose the scale.

    Args:
        first: One rater's ratings (numbers, or categories for unweighted kappa).
        second: The other rater's ratings of the same items, in the same order.
        weights: None, ``"linear"`` or ``"quadratic"``.
        labels: The values a rating may take, in order (scikit-learn's ``labels``): the
            result is then ``cohen_kappa_score(first, second, labels=labels,
            weights=weights)``. Default: for weighted kappa the evenly spaced scale through
            the values given, else the values given.

    Returns:
        Kappa; items missing a rating from either rater are left out. NaN when no item is
        left, or when both raters gave one and the same value throughout.

    Raises:
        ConfigurationError: The two sequences differ in length, weights are unknown, or
            weighted kappa is asked for categories that are not numbers, or for numbers
            that lie on no evenly spaced scale, or a rating is not one of ``labels``.

    Example:
        >>> round(cohen_kappa(["yes", "yes", "no", "no"], ["yes", "no", "no", "no"]), 3)
        0.5
        >>> round(cohen_kappa([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], weights="quadratic"), 3)
        0.9
    """
    if weights not in (None, "linear", "quadratic"):
        raise ConfigurationError(
            f"cohen_kappa: unknown weights {weights!r}; use None, 'linear' or 'quadratic'"
        )
    first_values, second_values = list(first), list(second)
    if len(first_values) != len(second_values):
        raise ConfigurationError(
            f"cohen_kappa: the two raters rated different numbers of items "
            f"({len(first_values)} and {len(second_values)}); pass one rating per item from each"
        )
    pairs = [
        (a, b)
        for a, b in zip(first_values, second_values, strict=True)
        if not (_is_missing(a) or _is_missing(b))
    ]
    if not pairs:
        return math.nan
    codes, categories = _as_codes([[a for a, _ in pairs], [b for _, b in pairs]], "nominal")
    if weights is not None and not _numeric(categories):
        raise ConfigurationError(
            f"cohen_kappa: weights={weights!r} need numeric ratings; categories have no "
            "distance, so use weights=None"
        )
    if labels is not None:
        scale = sorted(float(value) for value in labels)
        if not _numeric(categories) or not set(categories) <= set(scale):
            unknown = sorted(set(map(str, categories)) - set(map(str, scale)))
            raise ConfigurationError(
                f"cohen_kappa: ratings {unknown[:5]} are not among labels={list(labels)!r}; "
                "give every value a rating may take"
            )
    elif _numeric(categories):  # numbers stay themselves (their distances weigh)
        scale = categories if weights is None else evenly_spaced(categories)
    else:
        scale = [float(code) for code in range(len(categories))]
    return kappa_of_codes(codes[0], codes[1], scale, weights)
