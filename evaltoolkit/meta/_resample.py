"""Seeded resampling shared by the agreement, baseline, system-level and held-out figures.

A resample is drawn as counts (how often each item is drawn), so one draw serves every
statistic weighted by it; the interval is the percentile interval of the resampled figures.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]
    IndexArray = NDArray[np.intp]

__all__ = ["FEW_UNITS", "few_note", "percentile_interval", "resample_counts"]

#: A figure resting on fewer independent units than this (items, documents or systems,
#: whichever its interval resamples) says so, and a tune/test verdict on it is "cannot tell":
#: a percentile bootstrap over a handful of units collapses onto the few values there are.
FEW_UNITS = 10


def few_note(count: int, noun: str) -> str:
    """``"only 2 documents (fewer than 10): too few for a firm figure"``, or "" when enough."""
    if count >= FEW_UNITS:
        return ""
    return f"only {count} {noun} (fewer than {FEW_UNITS}): too few for a firm figure"


def resample_counts(generator: np.random.Generator, items: int, resamples: int) -> FloatArray:
    """How often each item is drawn in each resample (resamples x items)."""
    import numpy as np

    drawn = generator.integers(0, items, size=(resamples, items))
    flat = (drawn + np.arange(resamples)[:, None] * items).ravel()
    counts: FloatArray = (
        np.bincount(flat, minlength=resamples * items).reshape(resamples, items).astype(float)
    )
    return counts


def percentile_interval(
    samples: FloatArray, confidence: float, *, max_undefined: float = 1.0
) -> tuple[float, float]:
    """The percentile interval of the resampled figures that are defined.

    A resample can leave a figure undefined (a correlation over a draw of one document whose
    labels are all equal). When more than ``max_undefined`` of the resamples are undefined,
    the defined ones no longer describe the figure's spread (with two documents, half the
    draws repeat one document and the other half reproduce the estimate, so the interval
    collapses onto it): the interval is then undefined too.
    """
    import numpy as np

    finite = samples[np.isfinite(samples)]
    if finite.size == 0 or finite.size < (1.0 - max_undefined) * samples.size:
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)
