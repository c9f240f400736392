"""Wilcoxon's signed-rank test of paired differences, over items or over groups' means (scipy)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .resampling import FloatArray

__all__ = ["group_wilcoxon_p", "wilcoxon_p"]


def wilcoxon_p(differences: FloatArray) -> float:
    """Two-sided Wilcoxon signed-rank p-value (Pratt's handling of zero differences)."""
    import numpy as np
    from scipy import stats

    if len(differences) == 0:
        return math.nan
    if not differences.any():
        return 1.0  # no pair differs: no evidence of a difference (scipy gives NaN here)
    with warnings.catch_warnings():
        # Few pairs or many ties: scipy warns that its approximation is rough; p stays valid.
        warnings.simplefilter("ignore")
        # With ties or zeros scipy would fall back on a permutation test (slow, and
        # exhaustive for small samples); the normal approximation with its tie correction
        # is the textbook handling.
        magnitudes = np.abs(differences)
        tied = len(np.unique(magnitudes)) < len(magnitudes) or not magnitudes.all()
        method = "approx" if tied else "auto"
        return float(stats.wilcoxon(differences, zero_method="pratt", method=method).pvalue)


def group_wilcoxon_p(differences: FloatArray, groups: Sequence[Any]) -> tuple[float, int]:
    """Two-sided Wilcoxon signed-rank p-value over the groups' mean differences.

    scipy's ``method="auto"``: its exact distribution for up to 50 groups (a permutation
    distribution where mean differences tie or are zero), the normal approximation beyond.
    Returns the p-value and the number of groups.
    """
    import numpy as np
    import pandas as pd
    from scipy import stats

    if len(differences) == 0:
        return math.nan, 0
    means = (
        pd.Series(differences)
        .groupby(pd.Series(list(groups), dtype=object).to_numpy(), sort=False)
        .mean()
        .to_numpy(dtype=float)
    )
    if not np.any(means):
        return 1.0, len(means)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few groups: scipy warns that p cannot be small
        return float(stats.wilcoxon(means, zero_method="pratt").pvalue), len(means)
