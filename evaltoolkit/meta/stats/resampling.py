"""The one resampling module: every bootstrap interval and resampled test in meta draws here.

Two documented methods, both percentile bootstraps from a seeded numpy ``Generator``:

- :func:`draw_indices` (and :func:`resample_counts`, the same draws counted per unit): the
  units (items, documents, systems) drawn with replacement, one row per resample. One draw
  serves every statistic weighted by it (the agreement, baseline, system-level, held-out,
  label and repeatability figures through :func:`index_bootstrap_interval`, and the
  document-level interval of :func:`group_mean_interval`);
  the interval is :func:`percentile_interval` of the resampled figures.
- :func:`mean_interval`: :func:`scipy.stats.bootstrap` (``method="percentile"``) of a mean,
  for one sample of independent values (the paired item differences of ``compare_runs``, the
  majority baseline's hits). scipy draws the same index rows from the generator, but it
  computes its own percentiles, so the two methods are kept apart: merging them would move
  the published figures by floating-point amounts, and each caller keeps the method its
  figures were measured with.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]
    IndexArray = NDArray[np.intp]

__all__ = [
    "FEW_UNITS",
    "draw_indices",
    "few_note",
    "group_mean_interval",
    "index_bootstrap_interval",
    "mean_interval",
    "percentile_interval",
    "resample_counts",
]

#: A figure resting on fewer independent units than this (items, documents or systems,
#: whichever its interval resamples) says so, and a tune/test verdict on it is "cannot tell":
#: a percentile bootstrap over a handful of units collapses onto the few values there are.
FEW_UNITS = 10


def few_note(count: int, noun: str) -> str:
    """``"only 2 documents (fewer than 10): too few for a firm figure"``, or "" when enough."""
    if count >= FEW_UNITS:
        return ""
    return f"only {count} {noun} (fewer than {FEW_UNITS}): too few for a firm figure"


def draw_indices(generator: np.random.Generator, units: int, resamples: int) -> IndexArray:
    """The units drawn with replacement in each resample (resamples x units, row by row).

    Drawing ``k`` resamples at once gives the same rows as ``k`` draws of one resample each
    from the same generator, so callers may draw in chunks without changing a figure.
    """
    drawn: IndexArray = generator.integers(0, units, size=(resamples, units))
    return drawn


def resample_counts(generator: np.random.Generator, items: int, resamples: int) -> FloatArray:
    """How often each item is drawn in each resample (resamples x items)."""
    import numpy as np

    drawn = draw_indices(generator, items, resamples)
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


def index_bootstrap_interval(
    statistic: Callable[[IndexArray], float],
    units: int,
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over resamples of ``units`` units.

    ``statistic`` takes the drawn units' indices (:func:`draw_indices`, from
    ``numpy.random.default_rng(seed)``); the interval is :func:`percentile_interval` of its
    values. No resamples, or fewer than two units, give no interval (NaN, NaN).
    """
    import numpy as np

    if not n_resamples or units < 2:
        return math.nan, math.nan
    drawn = draw_indices(np.random.default_rng(seed), units, n_resamples)
    samples = np.array([statistic(indices) for indices in drawn], dtype=float)
    return percentile_interval(samples, confidence)


def mean_interval(
    values: FloatArray,
    *,
    n_resamples: int,
    confidence: float,
    rng: np.random.Generator,
    batch: int | None = None,
) -> tuple[float, float]:
    """scipy's percentile bootstrap interval of the mean of ``values`` (independent values).

    Equal values throughout give a degenerate, exact interval (scipy's warning about it is
    silenced).
    """
    import warnings

    import numpy as np
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interval = stats.bootstrap(
            (values,),
            np.mean,
            n_resamples=n_resamples,
            batch=batch,
            confidence_level=confidence,
            method="percentile",
            rng=rng,
        ).confidence_interval
    return float(interval.low), float(interval.high)


def group_mean_interval(
    values: FloatArray,
    codes: IndexArray,
    groups: int,
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
    chunk: int,
) -> tuple[float, float]:
    """Percentile interval of the mean of ``values`` over resamples of whole groups.

    ``codes`` gives each value's group (0 to ``groups`` - 1). Each resample draws as many
    groups as there are (:func:`draw_indices`, from ``numpy.random.default_rng(seed)``, in
    chunks of ``chunk`` resamples); its mean is the mean over the drawn groups' values.
    """
    import numpy as np

    sums = np.bincount(codes, weights=values, minlength=groups)
    sizes = np.bincount(codes, minlength=groups).astype(float)
    generator = np.random.default_rng(seed)
    means: list[FloatArray] = []
    for start in range(0, n_resamples, chunk):
        drawn = draw_indices(generator, groups, min(chunk, n_resamples - start))
        means.append(sums[drawn].sum(axis=1) / sizes[drawn].sum(axis=1))
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(np.concatenate(means), [tail, 1.0 - tail])
    return float(low), float(high)
