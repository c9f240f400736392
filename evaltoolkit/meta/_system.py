"""System-level agreement: each system's mean judge score against its mean human label.

The summarization literature reports this figure first (SummEval, REALSumm): a metric is
used to rank systems, so what matters most is whether it ranks them as humans do. Each
system's scores and labels are averaged over the items they both cover, and the averages are
correlated over systems (scipy's Spearman, Kendall and Pearson). The interval resamples
documents (the ``group``, else items), the same documents for every system, and recomputes
the system means: it says how far the figure depends on which documents were judged. A
seeded numpy Generator draws the documents, since scipy's bootstrap cannot resample groups.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

from ._resample import percentile_interval, resample_counts

if TYPE_CHECKING:
    import numpy as np

    from ._resample import FloatArray, IndexArray

__all__ = ["SYSTEM_LEVEL", "system_rows"]

SYSTEM_LEVEL = "system"
_METRICS = ("spearman", "kendall", "pearson")


def resampled_kendall_tau_b(first: FloatArray, second: FloatArray) -> FloatArray:
    """Kendall's tau-b of each row pair at once (resamples x systems; NaN where a row is
    constant): scipy's :func:`~scipy.stats.kendalltau` takes one pair of rows a call, about
    0.5 ms each, which a thousand resamples of every agreement table cannot afford. The same
    definition (concordant minus discordant pairs over the root of the untied pairs' product),
    checked against scipy on tied and untied rows in a test; the point estimate is scipy's.
    """
    import numpy as np

    upper = np.triu_indices(first.shape[1], k=1)
    signs_first = np.sign(first[:, :, None] - first[:, None, :])[:, upper[0], upper[1]]
    signs_second = np.sign(second[:, :, None] - second[:, None, :])[:, upper[0], upper[1]]
    net = (signs_first * signs_second).sum(axis=1)
    untied = np.count_nonzero(signs_first, axis=1) * np.count_nonzero(signs_second, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau: FloatArray = np.where(untied > 0, net / np.sqrt(untied), np.nan)
    return tau


def _correlations(scores: FloatArray, labels: FloatArray) -> dict[str, FloatArray]:
    """Each correlation per row of resamples x systems (NaN where undefined)."""
    import numpy as np
    from scipy import stats

    results: dict[str, FloatArray] = {}
    finite = np.isfinite(scores).all(axis=1) & np.isfinite(labels).all(axis=1)
    usable = [bool(flag) for flag in np.atleast_1d(finite)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant rows: NaN, which the interval skips
        results["pearson"] = np.asarray(stats.pearsonr(scores, labels, axis=1).statistic)
        results["spearman"] = np.asarray(
            stats.pearsonr(
                stats.rankdata(scores, axis=1), stats.rankdata(labels, axis=1), axis=1
            ).statistic
        )
        if len(scores) == 1:
            results["kendall"] = np.array(
                [stats.kendalltau(scores[0], labels[0]).statistic if usable[0] else math.nan]
            )
        else:
            results["kendall"] = resampled_kendall_tau_b(scores, labels)
    for metric in results:
        results[metric] = np.where(finite, results[metric], np.nan)
    return results


def system_rows(
    scores: FloatArray,
    labels: FloatArray,
    systems: IndexArray,
    groups: IndexArray | None,
    *,
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> list[dict[str, Any]]:
    """Spearman, Kendall and Pearson over systems' means, with a document bootstrap.

    ``systems`` and ``groups`` are codes (0..k-1) per item; items already filtered to those
    with a score and a label.
    """
    import numpy as np

    system_count = int(systems.max()) + 1 if len(systems) else 0
    if system_count < 3:
        return [
            {"metric": m, "value": math.nan, "ci_low": math.nan, "ci_high": math.nan}
            | {"n": len(scores), "groups": float(system_count)}
            for m in _METRICS
        ]
    units = groups if groups is not None else np.arange(len(scores))
    unit_count = int(units.max()) + 1
    # Per unit and system: the sum of scores, of labels, and the number of items.
    shape = (unit_count, system_count)
    flat = units * system_count + systems
    score_sums = np.bincount(flat, weights=scores, minlength=unit_count * system_count)
    label_sums = np.bincount(flat, weights=labels, minlength=unit_count * system_count)
    counts = np.bincount(flat, minlength=unit_count * system_count).astype(float)
    score_sums, label_sums, counts = (
        score_sums.reshape(shape),
        label_sums.reshape(shape),
        counts.reshape(shape),
    )

    def means(weights: FloatArray) -> tuple[FloatArray, FloatArray]:
        items = weights @ counts
        with np.errstate(divide="ignore", invalid="ignore"):
            return (weights @ score_sums) / items, (weights @ label_sums) / items

    point = _correlations(*means(np.ones((1, unit_count))))
    drawn: dict[str, list[FloatArray]] = {metric: [] for metric in _METRICS}
    if n_bootstrap:
        generator = np.random.default_rng(seed_sequence)
        chunk = max(1, min(n_bootstrap, 2_000_000 // unit_count))
        for start in range(0, n_bootstrap, chunk):
            weights = resample_counts(generator, unit_count, min(chunk, n_bootstrap - start))
            for metric, values in _correlations(*means(weights)).items():
                drawn[metric].append(values)
    rows = []
    for metric in _METRICS:
        value = float(point[metric][0])
        low, high = math.nan, math.nan
        if n_bootstrap and math.isfinite(value):
            low, high = percentile_interval(np.concatenate(drawn[metric]), confidence)
        rows.append(
            {"metric": metric, "value": value, "ci_low": low, "ci_high": high}
            | {"n": len(scores), "groups": float(system_count)}
        )
    return rows
