"""Williams' test: do two judges' correlations with the same human label differ?

Two judges scored the same items, so their correlations with the label are dependent: they
share the label, and the judges correlate with each other. Williams' t (Williams 1959, in the
form of Steiger 1980, "Tests for comparing elements of a correlation matrix", Psychological
Bulletin 87, eq. 7) takes that into account; Graham and Baldwin (2014) brought it to the
comparison of evaluation metrics, and WMT's metrics task uses it on system-level
correlations. scipy has no such test, so the statistic is written here from the formula and
its p-value comes from scipy's t distribution; a test checks it against the worked example
of Silver, Hittner and May (2006), as the R package cocor does.

It treats the items as independent. Summaries that share a document are not: with documents,
prefer the paired bootstrap of :meth:`~evaltoolkit.meta.JudgeComparison.paired`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import ConfigurationError

__all__ = ["WilliamsTest", "williams_test"]


@dataclass(frozen=True, slots=True)
class WilliamsTest:
    """Williams' t of two dependent correlations, its degrees of freedom and p-value.

    Attributes:
        statistic: Williams' t; positive when the first correlation is the larger.
        df: Degrees of freedom, ``n - 3``.
        p_value: The two-sided p-value from Student's t with ``df`` degrees of freedom.
    """

    statistic: float
    df: int
    p_value: float


def williams_test(r_a: float, r_b: float, r_ab: float, n: int) -> WilliamsTest:
    """Williams' test of ``r_a == r_b``, two correlations with one shared variable.

    ``t = (r_a - r_b) * sqrt((n - 1)(1 + r_ab) / (2 (n - 1) / (n - 3) |R| + rbar^2 (1 -
    r_ab)^3))``, where ``|R| = 1 - r_a^2 - r_b^2 - r_ab^2 + 2 r_a r_b r_ab`` is the
    determinant of the three variables' correlation matrix and ``rbar = (r_a + r_b) / 2``;
    ``t`` follows Student's t with ``n - 3`` degrees of freedom.

    Args:
        r_a: Judge A's correlation with the human label.
        r_b: Judge B's correlation with the same label, on the same items.
        r_ab: The correlation between judge A's and judge B's scores.
        n: The number of items (or systems) the correlations are computed over.

    Returns:
        The statistic, degrees of freedom and two-sided p-value (NaN when a correlation is
        undefined).

    Raises:
        ConfigurationError: ``n`` is below 4, or a correlation lies outside [-1, 1].

    Example:
        >>> result = williams_test(0.3, 0.4, 0.5, 100)  # Silver, Hittner and May (2006)
        >>> round(result.statistic, 4), result.df, round(result.p_value, 4)
        (-1.0767, 97, 0.2843)
    """
    from scipy import stats

    if isinstance(n, bool) or not isinstance(n, int) or n < 4:
        raise ConfigurationError(
            f"williams_test: n must be an integer of at least 4 (the test has n - 3 degrees "
            f"of freedom), got {n!r}"
        )
    values = (r_a, r_b, r_ab)
    if any(math.isnan(value) for value in values):
        return WilliamsTest(math.nan, n - 3, math.nan)
    if any(abs(value) > 1.0 for value in values):
        raise ConfigurationError(
            f"williams_test: correlations lie in [-1, 1], got {r_a!r}, {r_b!r}, {r_ab!r}"
        )
    determinant = 1.0 - r_a**2 - r_b**2 - r_ab**2 + 2.0 * r_a * r_b * r_ab
    mean = (r_a + r_b) / 2.0
    denominator = 2.0 * (n - 1) / (n - 3) * determinant + mean**2 * (1.0 - r_ab) ** 3
    if denominator <= 0.0:  # the two judges are one (r_ab = 1): nothing to test
        return WilliamsTest(0.0 if r_a == r_b else math.nan, n - 3, 1.0 if r_a == r_b else math.nan)
    statistic = (r_a - r_b) * math.sqrt((n - 1) * (1.0 + r_ab) / denominator)
    return WilliamsTest(statistic, n - 3, float(2.0 * stats.t.sf(abs(statistic), n - 3)))
