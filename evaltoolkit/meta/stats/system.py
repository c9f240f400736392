"""System-level agreement: each system's mean judge score against its mean human label.

The summarization literature reports this figure first (SummEval, REALSumm): a metric is
used to rank systems, so what matters most is whether it ranks them as humans do. Each
system's scores and labels are averaged over the items they both cover, and the averages are
correlated over systems (scipy's Spearman, Kendall and Pearson).

The interval is the **boot-both** interval of Deutsch, Dror and Roth (2021, "A Statistical
Analysis of Summarization Evaluation Metrics Using Resampling Methods", TACL 9): each
resample draws documents (the ``group``, else items) with replacement and, independently,
systems with replacement, recomputes the system means over the drawn documents and correlates
them over the drawn systems. It says how far the figure depends both on which documents were
judged and on which systems were compared; resampling documents alone understates the second.
A seeded numpy Generator draws both, since scipy's bootstrap cannot resample groups.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .resampling import draw_indices, percentile_interval, resample_counts

if TYPE_CHECKING:
    import numpy as np

    from .resampling import FloatArray, IndexArray

__all__ = ["SYSTEM_LEVEL", "SystemTable", "boot_both_draws", "system_correlations", "system_rows"]

SYSTEM_LEVEL = "system"
METRICS = ("spearman", "kendall", "pearson")
#: Fewest systems a system-level correlation is computed over.
MIN_SYSTEMS = 3
# Bounds the memory of one batch of resamples (cells of the resamples x documents matrix).
_CHUNK_CELLS = 2_000_000


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


def system_correlations(scores: FloatArray, labels: FloatArray) -> dict[str, FloatArray]:
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


@dataclass(frozen=True)
class SystemTable:
    """Per document (unit) and system: the sum of scores, of labels, and the item count."""

    score_sums: FloatArray
    label_sums: FloatArray
    counts: FloatArray

    @classmethod
    def of(
        cls, scores: FloatArray, labels: FloatArray, systems: IndexArray, units: IndexArray
    ) -> SystemTable:
        """Sum ``scores`` and ``labels`` by unit and system (codes 0..k-1 per item)."""
        import numpy as np

        unit_count, system_count = int(units.max()) + 1, int(systems.max()) + 1
        flat = units * system_count + systems
        size = unit_count * system_count
        shape = (unit_count, system_count)
        return cls(
            np.bincount(flat, weights=scores, minlength=size).astype(float).reshape(shape),
            np.bincount(flat, weights=labels, minlength=size).astype(float).reshape(shape),
            np.bincount(flat, minlength=size).astype(float).reshape(shape),
        )

    @property
    def units(self) -> int:
        return int(self.counts.shape[0])

    @property
    def systems(self) -> int:
        return int(self.counts.shape[1])

    def means(self, weights: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Each system's mean score and mean label with units weighted (resamples x systems)."""
        import numpy as np

        items = weights @ self.counts
        with np.errstate(divide="ignore", invalid="ignore"):
            return (weights @ self.score_sums) / items, (weights @ self.label_sums) / items


def boot_both_draws(
    generator: np.random.Generator, units: int, systems: int, resamples: int
) -> tuple[FloatArray, IndexArray]:
    """One batch of boot-both draws: how often each unit is drawn, and the drawn systems."""
    weights = resample_counts(generator, units, resamples)
    picks = draw_indices(generator, systems, resamples)
    return weights, picks


def picked(values: FloatArray, picks: IndexArray) -> FloatArray:
    """The drawn systems' columns of each resample's row (a system drawn twice counts twice)."""
    import numpy as np

    chosen: FloatArray = np.take_along_axis(values, picks, axis=1)
    return chosen


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
    """Spearman, Kendall and Pearson over systems' means, with the boot-both interval.

    ``systems`` and ``groups`` are codes (0..k-1) per item; items already filtered to those
    with a score and a label.
    """
    import numpy as np

    system_count = int(systems.max()) + 1 if len(systems) else 0
    if system_count < MIN_SYSTEMS:
        return [
            {"metric": m, "value": math.nan, "ci_low": math.nan, "ci_high": math.nan}
            | {"n": len(scores), "groups": float(system_count)}
            for m in METRICS
        ]
    units = groups if groups is not None else np.arange(len(scores))
    table = SystemTable.of(scores, labels, systems, units)
    point = system_correlations(*table.means(np.ones((1, table.units))))
    drawn: dict[str, list[FloatArray]] = {metric: [] for metric in METRICS}
    if n_bootstrap:
        generator = np.random.default_rng(seed_sequence)
        chunk = max(1, min(n_bootstrap, _CHUNK_CELLS // table.units))
        for start in range(0, n_bootstrap, chunk):
            weights, picks = boot_both_draws(
                generator, table.units, table.systems, min(chunk, n_bootstrap - start)
            )
            score_means, label_means = table.means(weights)
            correlations = system_correlations(
                picked(score_means, picks), picked(label_means, picks)
            )
            for metric, values in correlations.items():
                drawn[metric].append(values)
    rows = []
    for metric in METRICS:
        value = float(point[metric][0])
        low, high = math.nan, math.nan
        if n_bootstrap and math.isfinite(value):
            low, high = percentile_interval(np.concatenate(drawn[metric]), confidence)
        rows.append(
            {"metric": metric, "value": value, "ci_low": low, "ci_high": high}
            | {"n": len(scores), "groups": float(system_count)}
        )
    return rows
