"""The agreement rows beyond correlations: kappa and alpha for labels with few values, and the
baseline every agreement figure should be read against.

Labels with few distinct values (1-5 ratings, pass/fail, categories) are agreed with, not
just ranked: a judge whose verdicts sit on the label's scale (or a boolean label with a
score threshold) gets Cohen's kappa and Krippendorff's alpha from :mod:`.reliability`, and
the exact-match accuracy.

The baseline rows say what no judgement at all would score: a majority-label predictor for
accuracy and kappa (kappa 0 by construction), and for correlations and AUROC a random score,
whose value is 0 (AUROC 0.5) and whose interval is the middle of the statistic over
``n_bootstrap`` random pairings of the labels with random scores
(:func:`scipy.stats.permutation_test`'s null distribution; at most 200 for Kendall's tau,
which scipy computes one pairing at a time).
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

from ...errors import ConfigurationError
from .reliability import (
    KappaWeights,
    Level,
    evenly_spaced,
    kappa_from_table,
    kappa_of_codes,
)
from .resampling import mean_interval, percentile_interval, resample_counts

if TYPE_CHECKING:
    import numpy as np

    from .resampling import FloatArray

__all__ = ["FEW_VALUES", "baseline_rows", "categorical_rows", "is_few_valued"]

#: Labels with at most this many distinct values get kappa, alpha and the majority baseline.
FEW_VALUES = 10
BASELINE = "baseline"
# scipy's Kendall's tau is not vectorised: each random pairing costs a full computation
# (about 1 ms for 300 items), so its baseline interval uses at most this many pairings.
KENDALL_BASELINE_RESAMPLES = 200


def is_few_valued(labels: FloatArray) -> bool:
    """Whether the labels take few distinct values (ratings, pass/fail, categories)."""
    import numpy as np

    distinct = np.unique(labels[np.isfinite(labels)])
    return 2 <= len(distinct) <= FEW_VALUES


def _kind(labels: FloatArray, binary: bool) -> tuple[KappaWeights, Level]:
    import numpy as np

    if binary or len(np.unique(labels)) == 2:
        return None, "nominal"
    return "quadratic", "ordinal"


def _row(
    metric: str, value: float, low: float, high: float, n: int, note: str = ""
) -> dict[str, Any]:
    return {"metric": metric, "value": value, "ci_low": low, "ci_high": high, "n": n} | (
        {"note": note} if note else {}
    )


def _values(values: list[float]) -> str:
    return ", ".join(f"{value:g}" for value in values)


def kappa_note(domain: FloatArray, weights: KappaWeights) -> str:
    """The label values a kappa is computed on, as scikit-learn's ``labels=`` would take them."""
    values = domain.tolist()
    if weights is None:
        return f"on the values {_values(values)}"
    try:
        scale = evenly_spaced(values)
    except ConfigurationError:
        return f"on the values {_values(values)} (not evenly spaced: weighed by value)"
    return (
        f"{weights} weights on the values {_values(scale)} (scikit-learn's "
        f"labels=[{_values(scale)}]: an unused value still counts as a step)"
    )


def _interval(samples: FloatArray, confidence: float) -> tuple[float, float]:

    return percentile_interval(samples, confidence)


def _library_kappa(
    verdicts: FloatArray,
    labels: FloatArray,
    domain: FloatArray,
    weights: KappaWeights,
    from_table: float,
) -> float:
    """The point estimate from scikit-learn; the table formula only off an evenly spaced scale."""
    try:
        scale = domain.tolist() if weights is None else evenly_spaced(domain.tolist())
    except ConfigurationError:
        return from_table
    return kappa_of_codes(verdicts, labels, scale, weights)


def categorical_rows(
    scores: FloatArray,
    labels: FloatArray,
    *,
    binary: bool,
    threshold: float | None,
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> list[dict[str, Any]]:
    """Kappa, alpha and exact accuracy of judge verdicts on the label's own scale.

    The verdicts are ``score >= threshold`` for a boolean label with a threshold, else the
    scores themselves when every score is one of the label's values; otherwise the judge is
    not on the label's scale and no rows come back. Ordinal labels (numbers with more than
    two values) get quadratic-weighted kappa and ordinal alpha; two values get unweighted
    kappa and nominal alpha. Items are resampled for the intervals.
    """
    import krippendorff
    import numpy as np

    if len(labels) == 0 or not is_few_valued(labels):
        return []
    label_values = np.unique(labels)
    if binary and threshold is not None:
        verdicts = (scores >= threshold).astype(float)
        weights: KappaWeights
        level: Level
        weights, level = None, "nominal"
    elif np.isin(scores, label_values).all():
        verdicts = scores
        weights, level = _kind(labels, binary)
    else:
        return []
    domain = np.union1d(label_values, np.unique(verdicts))
    size = len(domain)
    pair_codes = np.searchsorted(domain, verdicts) * size + np.searchsorted(domain, labels)

    def kappa_of(counts: FloatArray) -> float:
        table = np.bincount(pair_codes, weights=counts, minlength=size * size).astype(float)
        return kappa_from_table(table.reshape(size, size), domain, weights)

    # One row per item: how many of the two raters (judge, human) gave each value.
    value_counts = np.zeros((len(labels), size))
    np.add.at(value_counts, (np.arange(len(labels)), np.searchsorted(domain, verdicts)), 1.0)
    np.add.at(value_counts, (np.arange(len(labels)), np.searchsorted(domain, labels)), 1.0)

    def alpha_of(drawn: np.ndarray[Any, Any]) -> float:
        counts = value_counts[drawn]
        if np.count_nonzero(counts.sum(axis=0)) < 2:
            return math.nan  # a single value throughout: alpha is undefined
        return float(
            krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level)
        )

    items = len(labels)
    every = np.arange(items)
    kappa_name = "kappa" if weights is None else f"kappa_{weights}"
    point = {
        kappa_name: _library_kappa(verdicts, labels, domain, weights, kappa_of(np.ones(items))),
        f"alpha_{level}": alpha_of(every),
    }
    if threshold is None or not binary:  # with a threshold, the accuracy row says it already
        point["exact_accuracy"] = float(np.mean(verdicts == labels))
    drawn_values: dict[str, list[float]] = {name: [] for name in point}
    if n_bootstrap:
        generator = np.random.default_rng(seed_sequence)
        for counts in resample_counts(generator, items, n_bootstrap):
            drawn = np.repeat(every, counts.astype(np.intp))
            drawn_values[kappa_name].append(kappa_of(counts))
            drawn_values[f"alpha_{level}"].append(alpha_of(drawn))
            if "exact_accuracy" in point:
                hits = verdicts[drawn] == labels[drawn]
                drawn_values["exact_accuracy"].append(float(np.mean(hits)))
    rows = []
    for name, value in point.items():
        low, high = math.nan, math.nan
        if n_bootstrap and math.isfinite(value):
            low, high = _interval(np.asarray(drawn_values[name], dtype=float), confidence)
        note = kappa_note(domain, weights) if name == kappa_name else ""
        rows.append(_row(name, value, low, high, items, note))
    return rows


def _correlation_statistic(metric: str) -> Any:
    from scipy import stats

    def pearson(x: FloatArray, y: FloatArray, axis: int = -1) -> Any:
        return stats.pearsonr(x, y, axis=axis).statistic

    def kendall(x: FloatArray, y: FloatArray) -> Any:
        return stats.kendalltau(x, y).statistic

    def auroc(x: FloatArray, y: FloatArray, axis: int = -1) -> Any:
        # x: the 0/1 labels; y: the scores. Mann-Whitney U of the positives over n1 * n0.
        positives = (x == 1.0).sum(axis=axis)
        negatives = x.shape[axis] - positives
        ranks = stats.rankdata(y, axis=axis)
        rank_sum = (ranks * (x == 1.0)).sum(axis=axis)
        return (rank_sum - positives * (positives + 1) / 2.0) / (positives * negatives)

    # Spearman's rho is Pearson's r of the ranks: baseline_rows pairs ranks for it.
    return {"spearman": pearson, "pearson": pearson, "kendall": kendall, "auroc": auroc}[metric]


def baseline_rows(
    labels: FloatArray,
    *,
    binary: bool,
    metrics: list[str],
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> list[dict[str, Any]]:
    """What no judgement would score, one row per metric (see the module docstring)."""
    import numpy as np
    from scipy import stats

    labels = labels[np.isfinite(labels)]
    items = len(labels)
    if items == 0:
        return []
    generator = np.random.default_rng(seed_sequence)
    random_scores = generator.random(items)
    rows = []
    for metric in metrics:
        expected = 0.5 if metric == "auroc" else 0.0
        low, high = math.nan, math.nan
        if n_bootstrap and len(np.unique(labels)) > 1:
            pair = (labels, random_scores)
            if metric == "spearman":  # ranks once, not once per pairing
                pair = (stats.rankdata(labels), stats.rankdata(random_scores))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                null = stats.permutation_test(
                    pair,
                    _correlation_statistic(metric),
                    permutation_type="pairings",
                    n_resamples=(
                        min(n_bootstrap, KENDALL_BASELINE_RESAMPLES)
                        if metric == "kendall"
                        else n_bootstrap
                    ),
                    vectorized=metric != "kendall",
                    rng=generator,
                ).null_distribution
            low, high = _interval(np.asarray(null, dtype=float), confidence)
        rows.append(_row(metric, expected, low, high, items))
    if binary or is_few_valued(labels):
        values, counts = np.unique(labels, return_counts=True)
        majority = values[np.argmax(counts)]
        hits = (labels == majority).astype(float)
        low, high = math.nan, math.nan
        if n_bootstrap:
            low, high = mean_interval(
                hits, n_resamples=n_bootstrap, confidence=confidence, rng=generator
            )
        name = "accuracy" if binary else "exact_accuracy"
        rows.append(_row(name, float(hits.mean()), low, high, items))
        # A constant predictor agrees exactly as often as chance predicts: kappa 0 always.
        rows.append(
            _row("kappa", 0.0, *((0.0, 0.0) if n_bootstrap else (math.nan, math.nan)), items)
        )
    return rows
