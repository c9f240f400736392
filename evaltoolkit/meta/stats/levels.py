"""Paired figures at the per-document and the system level: a change, or two judges.

Two sets of scores of the same items (before and after an edit, or two judges) are compared
on their agreement with one human label, on the same resamples, so that the interval is that
of a paired difference:

- **per group** (per document): each document's correlation (scipy's Spearman, Kendall or
  Pearson) for each set, the mean over documents, and the mean of the per-document
  differences; the interval resamples documents. A document with fewer than
  :data:`MIN_GROUP_SIZE` items or with equal labels throughout has no figure and is left out;
  a document where a set's scores are all equal ranks none of its summaries, and counts 0 for
  that set (so that an edit cannot gain by making a document's scores constant);
- **system**: each system's mean score against its mean label, correlated over systems; the
  interval is the boot-both interval (see :mod:`.system`), the same draws for both sets.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .resampling import draw_indices, percentile_interval
from .system import MIN_SYSTEMS, SystemTable, boot_both_draws, picked, system_correlations

if TYPE_CHECKING:
    import numpy as np

    from .resampling import FloatArray, IndexArray

__all__ = ["MIN_GROUP_SIZE", "GroupFigures", "group_figures", "paired_per_group", "paired_system"]

#: Fewest items a group needs for a correlation within it (as in ``agreement``).
MIN_GROUP_SIZE = 3
_CHUNK_CELLS = 2_000_000


def _correlate(statistic: str, first: FloatArray, second: FloatArray) -> float:
    from scipy import stats

    if statistic == "spearman":
        return float(stats.spearmanr(first, second).statistic)
    if statistic == "kendall":
        return float(stats.kendalltau(first, second).statistic)
    return float(stats.pearsonr(first, second).statistic)


@dataclass(frozen=True)
class GroupFigures:
    """Per usable group: each set's correlation (0 where its scores are constant)."""

    values: list[FloatArray]  # one array per set of scores, aligned with the usable groups
    constant: list[int]  # per set: the usable groups whose scores are all equal
    groups: int  # usable groups
    items: int  # their items
    left_out: int  # groups with too few items or equal labels


def group_figures(
    score_sets: list[FloatArray], labels: FloatArray, group_codes: IndexArray, statistic: str
) -> GroupFigures:
    """Each usable group's correlation with the labels, for every set of scores."""
    import numpy as np

    values: list[list[float]] = [[] for _ in score_sets]
    constant = [0 for _ in score_sets]
    used = items = left_out = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant inputs are handled below
        for code in np.unique(group_codes):
            members = group_codes == code
            group_labels = labels[members]
            if members.sum() < MIN_GROUP_SIZE or np.unique(group_labels).size < 2:
                left_out += 1
                continue
            used += 1
            items += int(members.sum())
            for index, scores in enumerate(score_sets):
                group_scores = scores[members]
                if np.unique(group_scores).size < 2:
                    constant[index] += 1
                    values[index].append(0.0)
                else:
                    values[index].append(_correlate(statistic, group_scores, group_labels))
    return GroupFigures(
        [np.asarray(v, dtype=float) for v in values], constant, used, items, left_out
    )


def paired_per_group(
    before: FloatArray,
    after: FloatArray,
    labels: FloatArray,
    group_codes: IndexArray,
    *,
    statistic: str,
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> dict[str, Any]:
    """Mean per-group correlation before and after, and the change with a paired interval.

    Returns ``before``, ``after``, ``change``, their intervals (``change_ci_low``, ...),
    ``n`` (items of the usable groups), ``groups`` (usable groups), ``constant_before`` and
    ``constant_after`` (usable groups whose scores are all equal) and ``left_out``.
    """
    import numpy as np

    figures = group_figures([before, after], labels, group_codes, statistic)
    old, new = figures.values
    row: dict[str, Any] = {
        "before": float(old.mean()) if figures.groups else math.nan,
        "after": float(new.mean()) if figures.groups else math.nan,
        "n": figures.items,
        "groups": float(figures.groups),
        "constant_before": figures.constant[0],
        "constant_after": figures.constant[1],
        "left_out": figures.left_out,
    }
    row["change"] = row["after"] - row["before"]
    for which in ("change", "before", "after"):
        row[f"{which}_ci_low"], row[f"{which}_ci_high"] = math.nan, math.nan
    if n_bootstrap and figures.groups > 1:
        generator = np.random.default_rng(seed_sequence)
        drawn = draw_indices(generator, figures.groups, n_bootstrap)
        resampled = {
            "before": old[drawn].mean(axis=1),
            "after": new[drawn].mean(axis=1),
            "change": (new - old)[drawn].mean(axis=1),
        }
        for which, samples in resampled.items():
            row[f"{which}_ci_low"], row[f"{which}_ci_high"] = percentile_interval(
                samples, confidence
            )
    return row


def paired_system(
    before: FloatArray,
    after: FloatArray,
    labels: FloatArray,
    systems: IndexArray,
    units: IndexArray,
    *,
    statistic: str,
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> dict[str, Any]:
    """System-level correlation before and after, and the change, on boot-both resamples.

    ``systems`` and ``units`` (documents, else items) are codes 0..k-1 per item.
    """
    import numpy as np

    old = SystemTable.of(before, labels, systems, units)
    new = SystemTable.of(after, labels, systems, units)
    ones = np.ones((1, old.units))
    row: dict[str, Any] = {
        "before": float(system_correlations(*old.means(ones))[statistic][0]),
        "after": float(system_correlations(*new.means(ones))[statistic][0]),
        "n": len(labels),
        "groups": float(old.systems),
    }
    if old.systems < MIN_SYSTEMS:
        row["before"] = row["after"] = math.nan
    row["change"] = row["after"] - row["before"]
    for which in ("change", "before", "after"):
        row[f"{which}_ci_low"], row[f"{which}_ci_high"] = math.nan, math.nan
    if n_bootstrap and old.systems >= MIN_SYSTEMS:
        generator = np.random.default_rng(seed_sequence)
        drawn: dict[str, list[FloatArray]] = {"before": [], "after": [], "change": []}
        chunk = max(1, min(n_bootstrap, _CHUNK_CELLS // old.units))
        for start in range(0, n_bootstrap, chunk):
            weights, picks = boot_both_draws(
                generator, old.units, old.systems, min(chunk, n_bootstrap - start)
            )
            values = {}
            for which, table in (("before", old), ("after", new)):
                score_means, label_means = table.means(weights)
                values[which] = system_correlations(
                    picked(score_means, picks), picked(label_means, picks)
                )[statistic]
            drawn["before"].append(values["before"])
            drawn["after"].append(values["after"])
            drawn["change"].append(values["after"] - values["before"])
        for which, samples in drawn.items():
            row[f"{which}_ci_low"], row[f"{which}_ci_high"] = percentile_interval(
                np.concatenate(samples), confidence
            )
    return row
