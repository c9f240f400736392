"""Agreement between automatic scores and human labels, with bootstrap confidence intervals.

Every statistic is computed from per-item resample counts (how often each item was drawn), so
the point estimate (every count 1) and all bootstrap resamples go through the same vectorised
code: a matrix of counts, one row per resample, replaces one loop iteration per resample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._loaders import _describe_columns, _error
from .stats.chance import BASELINE, baseline_rows, categorical_rows
from .stats.resampling import draw_indices, few_note, percentile_interval, resample_counts
from .stats.system import SYSTEM_LEVEL, system_rows

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]
    BoolArray = NDArray[np.bool_]
    IndexArray = NDArray[np.intp]

RESULT_COLUMNS = (
    "score",
    "label",
    "metric",
    "level",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "skipped",
    "groups",
    "threshold",
    "note",
)
CORRELATION_METRICS = ("spearman", "kendall", "pearson")
BINARY_METRICS = ("auroc", "accuracy", "f1", "best_accuracy", "best_f1")

# Above this many items the O(n^2) pair matrix for Kendall's tau costs more than scipy's
# O(n log n) per-resample computation (measured crossover, about 2000 items).
_KENDALL_PAIR_MATRIX_MAX_ITEMS = 2000
# Bounds the memory of one chunk of resamples (cells of the resamples x items count matrix).
_RESAMPLE_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class _Estimate:
    metric: str
    value: float
    ci_low: float
    ci_high: float
    threshold: float = math.nan


class _DistinctValues:
    """The distinct values of one variable, for counting resampled items per value."""

    def __init__(self, values: FloatArray) -> None:
        import numpy as np

        self.unique, self.inverse = np.unique(values, return_inverse=True)
        self.order = np.argsort(self.inverse, kind="stable")
        sorted_inverse = self.inverse[self.order]
        self.starts = np.flatnonzero(np.r_[True, sorted_inverse[1:] != sorted_inverse[:-1]])

    def per_value(self, counts: FloatArray) -> FloatArray:
        """Sums item counts per distinct value (resamples x distinct values)."""
        import numpy as np

        summed: FloatArray = np.add.reduceat(counts[:, self.order], self.starts, axis=1)
        return summed

    def midranks(self, per_value: FloatArray) -> FloatArray:
        """Rank of every item within each resample, tied values sharing their mean rank."""
        import numpy as np

        rank_of_value = np.cumsum(per_value, axis=1) - (per_value - 1.0) / 2.0
        ranks: FloatArray = rank_of_value[:, self.inverse]
        return ranks


def _weighted_pearson(
    first: FloatArray, second: FloatArray, counts: FloatArray, varying: BoolArray
) -> FloatArray:
    """Pearson correlation per resample; ``first`` and ``second`` are items or resamples x items."""
    import numpy as np

    total = counts.sum(axis=1, keepdims=True)
    first_centred = first - (counts * first).sum(axis=1, keepdims=True) / total
    second_centred = second - (counts * second).sum(axis=1, keepdims=True) / total
    covariance = (counts * first_centred * second_centred).sum(axis=1)
    variance_product = (counts * first_centred**2).sum(axis=1) * (counts * second_centred**2).sum(
        axis=1
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        correlation = covariance / np.sqrt(variance_product)
    result: FloatArray = np.where(varying, np.clip(correlation, -1.0, 1.0), np.nan)
    return result


def _safe_ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        ratio: FloatArray = np.where(denominator > 0, numerator / denominator, np.nan)
    return ratio


class _ResampleStatistics:
    """Computes every metric for a batch of resamples given as per-item counts."""

    def __init__(
        self,
        scores: FloatArray,
        labels: FloatArray,
        *,
        binary: bool,
        threshold: float | None,
    ) -> None:
        import numpy as np

        self.scores = scores
        self.labels = labels
        self.binary = binary
        self.threshold = threshold
        self.score_values = _DistinctValues(scores)
        self.label_values = _DistinctValues(labels)
        self.pair_signs: FloatArray | None = None
        if len(scores) <= _KENDALL_PAIR_MATRIX_MAX_ITEMS:
            self.pair_signs = np.sign(scores[:, None] - scores[None, :]) * np.sign(
                labels[:, None] - labels[None, :]
            )
        self.positive = labels == 1.0

    def compute(self, counts: FloatArray) -> tuple[dict[str, FloatArray], IndexArray]:
        """Returns each metric per resample and the index of the best threshold per resample.

        The best threshold index counts distinct score values from the lowest; one past the
        last means every item is predicted negative.
        """
        score_per_value = self.score_values.per_value(counts)
        label_per_value = self.label_values.per_value(counts)
        varying = ((score_per_value > 0).sum(axis=1) > 1) & ((label_per_value > 0).sum(axis=1) > 1)
        score_ranks = self.score_values.midranks(score_per_value)
        label_ranks = self.label_values.midranks(label_per_value)
        results = {
            "spearman": _weighted_pearson(score_ranks, label_ranks, counts, varying),
            "kendall": self._kendall(counts, score_per_value, label_per_value, varying),
            "pearson": _weighted_pearson(self.scores, self.labels, counts, varying),
        }
        import numpy as np

        best_index: IndexArray = np.zeros(len(counts), dtype=np.intp)
        if self.binary:
            results["auroc"] = self._auroc(counts, score_ranks)
            if self.threshold is not None:
                results["accuracy"], results["f1"] = self._at_threshold(counts, self.threshold)
            best_accuracy, best_f1, best_index = self._best_threshold(counts, score_per_value)
            results["best_accuracy"], results["best_f1"] = best_accuracy, best_f1
        return results, best_index

    def _kendall(
        self,
        counts: FloatArray,
        score_per_value: FloatArray,
        label_per_value: FloatArray,
        varying: BoolArray,
    ) -> FloatArray:
        """Kendall's tau-b; copies of one item in a resample are tied pairs on both variables."""
        import numpy as np

        total = counts.sum(axis=1)
        all_pairs = total * (total - 1.0) / 2.0
        score_ties = (score_per_value * (score_per_value - 1.0) / 2.0).sum(axis=1)
        label_ties = (label_per_value * (label_per_value - 1.0) / 2.0).sum(axis=1)
        if self.pair_signs is not None:
            concordant_minus_discordant = 0.5 * np.einsum(
                "ri,ri->r", counts @ self.pair_signs, counts
            )
            tau = _safe_ratio(
                concordant_minus_discordant,
                np.sqrt((all_pairs - score_ties) * (all_pairs - label_ties)),
            )
        else:
            from scipy import stats

            tau = np.full(len(counts), np.nan)
            items = np.arange(len(self.scores))
            for row in np.flatnonzero(varying):
                drawn = np.repeat(items, counts[row].astype(np.intp))
                tau[row] = stats.kendalltau(self.scores[drawn], self.labels[drawn]).statistic
        result: FloatArray = np.where(varying, np.clip(tau, -1.0, 1.0), np.nan)
        return result

    def _auroc(self, counts: FloatArray, score_ranks: FloatArray) -> FloatArray:
        """Mann-Whitney AUROC from mid-ranks: a tie between the classes counts one half."""
        positive_count = (counts * self.positive).sum(axis=1)
        negative_count = counts.sum(axis=1) - positive_count
        positive_rank_sum = (counts * score_ranks * self.positive).sum(axis=1)
        return _safe_ratio(
            positive_rank_sum - positive_count * (positive_count + 1.0) / 2.0,
            positive_count * negative_count,
        )

    def _at_threshold(self, counts: FloatArray, threshold: float) -> tuple[FloatArray, FloatArray]:
        predicted = self.scores >= threshold
        true_positive = (counts * (predicted & self.positive)).sum(axis=1)
        false_positive = (counts * (predicted & ~self.positive)).sum(axis=1)
        false_negative = (counts * (~predicted & self.positive)).sum(axis=1)
        total = counts.sum(axis=1)
        accuracy = (total - false_positive - false_negative) / total
        f1 = _safe_ratio(2.0 * true_positive, 2.0 * true_positive + false_positive + false_negative)
        return accuracy, f1

    def _best_threshold(
        self, counts: FloatArray, score_per_value: FloatArray
    ) -> tuple[FloatArray, FloatArray, IndexArray]:
        """Accuracy and F1 at the accuracy-maximising threshold (the lowest among ties)."""
        import numpy as np

        positive_per_value = self.score_values.per_value(counts * self.positive)
        negative_per_value = score_per_value - positive_per_value
        no_items = np.zeros((len(counts), 1))
        # Threshold k predicts positive for the distinct values k and above.
        true_positive = np.hstack(
            [np.cumsum(positive_per_value[:, ::-1], axis=1)[:, ::-1], no_items]
        )
        predicted_positive = np.hstack(
            [np.cumsum(score_per_value[:, ::-1], axis=1)[:, ::-1], no_items]
        )
        true_negative = np.hstack([no_items, np.cumsum(negative_per_value, axis=1)])
        total = counts.sum(axis=1, keepdims=True)
        accuracy = (true_positive + true_negative) / total
        best_index: IndexArray = np.argmax(accuracy, axis=1)
        rows = np.arange(len(counts))
        best_true_positive = true_positive[rows, best_index]
        false_positive = predicted_positive[rows, best_index] - best_true_positive
        false_negative = positive_per_value.sum(axis=1) - best_true_positive
        f1 = _safe_ratio(
            2.0 * best_true_positive, 2.0 * best_true_positive + false_positive + false_negative
        )
        return accuracy[rows, best_index], f1, best_index

    def threshold_value(self, best_index: int) -> float:
        """The score threshold of a best-threshold index (inf: predict every item negative)."""
        if best_index >= len(self.score_values.unique):
            return math.inf
        return float(self.score_values.unique[best_index])


def _pooled_estimates(
    scores: FloatArray,
    labels: FloatArray,
    *,
    binary: bool,
    threshold: float | None,
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> list[_Estimate]:
    import numpy as np

    metrics = list(CORRELATION_METRICS)
    if binary:
        metrics += ["auroc"] + (["accuracy", "f1"] if threshold is not None else [])
        metrics += ["best_accuracy", "best_f1"]
    items = len(scores)
    if items == 0:
        return [_Estimate(metric, math.nan, math.nan, math.nan) for metric in metrics]
    statistics = _ResampleStatistics(scores, labels, binary=binary, threshold=threshold)
    point, best_index = statistics.compute(np.ones((1, items)))
    best_threshold = statistics.threshold_value(int(best_index[0]))

    samples: dict[str, list[FloatArray]] = {metric: [] for metric in metrics}
    generator = np.random.default_rng(seed_sequence)
    chunk = max(1, min(n_bootstrap, _RESAMPLE_CHUNK_CELLS // items))
    for start in range(0, n_bootstrap, chunk):
        resampled, _ = statistics.compute(
            resample_counts(generator, items, min(chunk, n_bootstrap - start))
        )
        for metric in metrics:
            samples[metric].append(resampled[metric])

    estimates = []
    for metric in metrics:
        value = float(point[metric][0])
        low, high = math.nan, math.nan
        if n_bootstrap > 0 and math.isfinite(value):
            low, high = percentile_interval(np.concatenate(samples[metric]), confidence)
        metric_threshold = math.nan
        if metric in ("accuracy", "f1") and threshold is not None:
            metric_threshold = float(threshold)
        elif metric in ("best_accuracy", "best_f1"):
            metric_threshold = best_threshold
        estimates.append(_Estimate(metric, value, low, high, metric_threshold))
    return estimates


@dataclass(frozen=True)
class _GroupEstimate:
    estimate: _Estimate
    items: int
    groups: int


def _per_group_estimates(
    scores: FloatArray,
    labels: FloatArray,
    group_codes: IndexArray,
    *,
    min_group_size: int,
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> list[_GroupEstimate]:
    """Correlations within each group, averaged over groups; the bootstrap resamples groups."""
    import numpy as np

    in_group = group_codes >= 0
    scores, labels, group_codes = scores[in_group], labels[in_group], group_codes[in_group]
    order = np.argsort(group_codes, kind="stable")
    boundaries = np.flatnonzero(np.diff(group_codes[order])) + 1
    per_group: dict[str, list[float]] = {metric: [] for metric in CORRELATION_METRICS}
    sizes: list[int] = []
    for members in np.split(order, boundaries) if len(order) else []:
        if len(members) < min_group_size:
            continue
        statistics = _ResampleStatistics(
            scores[members], labels[members], binary=False, threshold=None
        )
        values, _ = statistics.compute(np.ones((1, len(members))))
        for metric in CORRELATION_METRICS:
            per_group[metric].append(float(values[metric][0]))
        sizes.append(len(members))

    results = []
    for metric in CORRELATION_METRICS:
        values_by_group = np.array(per_group[metric], dtype=float)
        usable = np.isfinite(values_by_group)
        values_by_group = values_by_group[usable]
        items_used = int(np.array(sizes, dtype=np.intp)[usable].sum()) if sizes else 0
        groups_used = len(values_by_group)
        if groups_used == 0:
            estimate = _Estimate(metric, math.nan, math.nan, math.nan)
        else:
            low, high = math.nan, math.nan
            if n_bootstrap > 0:
                generator = np.random.default_rng(seed_sequence)
                drawn = draw_indices(generator, groups_used, n_bootstrap)
                low, high = percentile_interval(values_by_group[drawn].mean(axis=1), confidence)
            estimate = _Estimate(metric, float(values_by_group.mean()), low, high)
        results.append(_GroupEstimate(estimate, items_used, groups_used))
    return results


def _numeric_values(df: pd.DataFrame, column: str, argument: str) -> FloatArray:
    """The column as floats (booleans as 0/1, missing as NaN), or an error naming it."""
    import numpy as np
    import pandas as pd

    series = df[column]
    if series.dtype == object:
        series = series.map(lambda value: float(value) if isinstance(value, bool) else value)
    try:
        numeric = pd.to_numeric(series, errors="raise")
        values: FloatArray = np.asarray(
            numeric.to_numpy(dtype="float64", na_value=np.nan), dtype=np.float64
        )
    except (TypeError, ValueError) as exc:
        bad = next(
            (value for value in series if _not_a_number(value)),
            None,
        )
        raise _error(
            f"column {column!r} ({argument}) must hold numbers or booleans, but it holds "
            f"{bad!r}. Convert it first, e.g. df[{column!r}].map({{...}}) or pd.to_numeric."
        ) from exc
    return values


def _not_a_number(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return True
    return False


def _is_binary_label(series: pd.Series, values: FloatArray) -> bool:
    """True for boolean labels: a bool dtype, or exactly the two values 0 and 1."""
    import numpy as np
    import pandas as pd

    if pd.api.types.is_bool_dtype(series.dtype):
        return True
    present = series.dropna()
    if series.dtype == object and len(present) and all(isinstance(v, bool) for v in present):
        return True
    distinct = set(np.unique(values[np.isfinite(values)]).tolist())
    return distinct == {0.0, 1.0}


def _check_arguments(
    df: pd.DataFrame,
    score_columns: list[str],
    label: str,
    group: str | None,
    threshold: float | None,
    n_bootstrap: int,
    confidence: float,
    min_group_size: int,
) -> None:
    if not score_columns:
        raise _error("score must name at least one column.")
    named = dict.fromkeys(score_columns, "score")
    named[label] = "label"
    if group is not None:
        named[group] = "group"
    for column, argument in named.items():
        if column not in df.columns:
            raise _error(
                f"column {column!r} (from {argument}) is not in the DataFrame; the columns "
                f"present are: {_describe_columns(df.columns)}. Pass {argument}= with one of "
                "them."
            )
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
        raise _error(
            f"n_bootstrap must be a non-negative integer (0 skips the intervals), got "
            f"{n_bootstrap!r}."
        )
    if not 0.0 < confidence < 1.0:
        raise _error(
            f"confidence must lie strictly between 0 and 1 (e.g. 0.95), got {confidence!r}."
        )
    if (
        isinstance(min_group_size, bool)
        or not isinstance(min_group_size, int)
        or (min_group_size < 2)
    ):
        raise _error(
            f"min_group_size must be an integer of at least 2 (a correlation needs two items), "
            f"got {min_group_size!r}."
        )
    if threshold is not None and not (
        isinstance(threshold, (int, float)) and math.isfinite(threshold)
    ):
        raise _error(f"threshold must be a finite number or None, got {threshold!r}.")


def agreement(
    df: pd.DataFrame,
    score: str | Sequence[str],
    label: str,
    *,
    group: str | None = None,
    threshold: float | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    min_group_size: int = 3,
    system: str | None = None,
) -> pd.DataFrame:
    """Measures how far automatic scores agree with human labels.

    For each score column: Spearman, Kendall (tau-b) and Pearson correlations with the label
    over all items (``level="pooled"``) and, when ``group`` is given, within each group and
    then averaged over groups (``level="per_group"``, the summary-level correlation of the
    summarization literature). A group is left out of the average when it has fewer than
    ``min_group_size`` usable items or its scores or labels are constant; ``groups`` counts
    the groups used and ``n`` their items.

    For boolean labels (a bool dtype, or exactly the values 0 and 1) it also reports AUROC
    (the Mann-Whitney statistic: a tie between a positive and a negative counts one half),
    accuracy and F1 at ``threshold`` (a score at or above it predicts positive), and accuracy
    and F1 at the threshold that maximises accuracy (``best_accuracy``, ``best_f1``; the
    lowest such score value, or inf when predicting every item negative is best). The
    chosen threshold is in the ``threshold`` column. Its interval re-chooses the threshold
    in every resample.

    For labels with few distinct values (at most 10: 1-5 ratings, pass/fail) and a judge
    whose verdicts sit on the label's scale (every score is one of the label's values, or
    ``score >= threshold`` for a boolean label with a threshold): Cohen's kappa
    (``kappa_quadratic`` for ordinal labels with more than two values, else ``kappa``),
    Krippendorff's alpha (``alpha_ordinal`` or ``alpha_nominal``) and ``exact_accuracy``
    (see :func:`cohen_kappa` and :func:`krippendorff_alpha`).

    The table ends with a baseline block (``score`` and ``level`` ``"baseline"``): what a
    random score gives for each correlation (0) and AUROC (0.5), with the interval of the
    statistic over random pairings of the labels with random scores
    (:func:`scipy.stats.permutation_test`), and for labels with few values what always
    answering the majority label gives: its accuracy (with a bootstrap interval) and kappa
    (0). A figure whose interval overlaps the baseline's says little.

    Intervals are percentile bootstrap intervals: items are resampled for pooled metrics and
    groups for the per-group average, from a numpy Generator seeded with ``seed``, so results
    are deterministic. Resamples in which a correlation is undefined (constant scores or
    labels) are left out of its interval. Items whose score or label is missing (or
    infinite) are skipped and counted in ``skipped``; items with a missing group value count
    for the pooled rows only.

    Args:
        df: One row per item.
        score: The score column, or a list of them (one block of rows each).
        label: The human label column (numbers, or booleans).
        group: Column grouping the items (e.g. ``"doc_id"``) for per-group correlations.
        threshold: Score threshold for ``accuracy`` and ``f1``; None skips those rows.
        n_bootstrap: Number of bootstrap resamples; 0 leaves the intervals NaN.
        confidence: Coverage of the intervals.
        seed: Seed of the bootstrap.
        min_group_size: Fewest usable items a group needs to count in the per-group average.
        system: Column naming the system that produced each item (e.g. ``"system_id"``):
            adds the system-level correlations (``level="system"``: each system's mean
            score against its mean label, correlated over systems, ``groups`` counting the
            systems), their boot-both interval resampling the ``group`` (documents, else items)
            and the systems together (Deutsch, Dror and Roth 2021).

    Returns:
        A DataFrame with the columns ``score``, ``label``, ``metric``, ``level``, ``value``,
        ``ci_low``, ``ci_high``, ``n`` (items used), ``skipped`` (items skipped as missing),
        ``groups`` (groups used, or systems for ``level="system"``; NaN for pooled rows),
        ``threshold`` (for threshold metrics; NaN otherwise) and ``note``: a figure on fewer
        than 10 items, groups or systems (whichever its interval resamples) says so there,
        and a kappa row names the label values it weighs disagreements on. ``level`` is
        ``pooled``, ``per_group``, ``system`` or ``baseline``.

    Raises:
        ConfigurationError: A named column is missing or not numeric, or an option is out of
            range.

    Example:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"judge": [0.1, 0.4, 0.35, 0.8], "human": [1, 2, 3, 4]})
        >>> table = agreement(df, "judge", "human", n_bootstrap=200)
        >>> judged = table[table["score"] == "judge"].set_index("metric")
        >>> round(float(judged.loc["spearman", "value"]), 3)
        0.8
    """
    import numpy as np
    import pandas as pd

    score_columns = [score] if isinstance(score, str) else list(dict.fromkeys(score))
    _check_arguments(
        df, score_columns, label, group, threshold, n_bootstrap, confidence, min_group_size
    )
    labels = _numeric_values(df, label, "label")
    binary = _is_binary_label(df[label], labels)
    group_codes: IndexArray | None = None
    if group is not None:
        group_codes = np.asarray(pd.factorize(df[group], use_na_sentinel=True)[0], dtype=np.intp)
    # Spawned children depend on their position only: the first two stay what they were.
    system_codes: IndexArray | None = None
    if system is not None:
        if system not in df.columns:
            raise _error(
                f"column {system!r} (from system) is not in the DataFrame; the columns present "
                f"are: {_describe_columns(df.columns)}. Pass system= with one of them."
            )
        system_codes = np.asarray(pd.factorize(df[system], use_na_sentinel=True)[0], np.intp)
    item_seed, group_seed, categorical_seed, baseline_seed, system_seed = np.random.SeedSequence(
        seed
    ).spawn(5)

    rows: list[dict[str, Any]] = []
    for column in score_columns:
        scores = _numeric_values(df, column, "score")
        usable = np.isfinite(scores) & np.isfinite(labels)
        skipped = int((~usable).sum())
        common = {"score": column, "label": label, "skipped": skipped}
        pooled = _pooled_estimates(
            scores[usable],
            labels[usable],
            binary=binary,
            threshold=threshold,
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            seed_sequence=item_seed,
        )
        per_group: list[_GroupEstimate] = []
        if group_codes is not None:
            per_group = _per_group_estimates(
                scores[usable],
                labels[usable],
                group_codes[usable],
                min_group_size=min_group_size,
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed_sequence=group_seed,
            )
        pooled_rows = [
            {**common, **_row(estimate, "pooled", int(usable.sum()), math.nan)}
            for estimate in pooled
        ]
        correlation_count = len(CORRELATION_METRICS)
        rows += pooled_rows[:correlation_count]
        rows += [
            {**common, **_row(entry.estimate, "per_group", entry.items, float(entry.groups))}
            for entry in per_group
        ]
        if system_codes is not None:
            in_system = usable & (system_codes >= 0)
            rows += [
                {**common, "level": SYSTEM_LEVEL, "threshold": math.nan, **row}
                for row in system_rows(
                    scores[in_system],
                    labels[in_system],
                    _recoded(system_codes[in_system]),
                    None if group_codes is None else _recoded(group_codes[in_system]),
                    n_bootstrap=n_bootstrap,
                    confidence=confidence,
                    seed_sequence=system_seed,
                )
            ]
        rows += pooled_rows[correlation_count:]
        verdict_threshold = float(threshold) if binary and threshold is not None else math.nan
        rows += [
            {**common, "level": "pooled", "groups": math.nan, "threshold": verdict_threshold, **row}
            for row in categorical_rows(
                scores[usable],
                labels[usable],
                binary=binary,
                threshold=threshold,
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed_sequence=categorical_seed,
            )
        ]
    rows += [
        {"score": BASELINE, "label": label, "level": BASELINE, "skipped": 0, **row}
        | {"groups": math.nan, "threshold": math.nan}
        for row in baseline_rows(
            labels,
            binary=binary,
            metrics=list(CORRELATION_METRICS) + (["auroc"] if binary else []),
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            seed_sequence=baseline_seed,
        )
    ]
    for row in rows:
        row["note"] = _note(row, group)
    result = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
    return result.astype(
        {
            "value": "float64",
            "ci_low": "float64",
            "ci_high": "float64",
            "n": "int64",
            "skipped": "int64",
            "groups": "float64",
            "threshold": "float64",
        }
    )


def _note(row: dict[str, Any], group: str | None) -> str:
    """Why to read a row with care: too few units for it, and the values a kappa weighs."""
    level = row["level"]
    if level == "per_group":
        few = few_note(int(row["groups"]), f"{group} groups")
    elif level == SYSTEM_LEVEL:
        few = few_note(int(row["groups"]), "systems")
    else:
        few = few_note(int(row["n"]), "items")
    return "; ".join(part for part in (row.get("note", ""), few) if part)


def _recoded(codes: IndexArray) -> IndexArray:
    """Codes renumbered 0..k-1 over the values present (a group with a missing value is -1)."""
    import numpy as np

    present: IndexArray = np.unique(codes, return_inverse=True)[1].astype(np.intp)
    return present


def _row(estimate: _Estimate, level: str, items: int, groups: float) -> dict[str, Any]:
    return {
        "metric": estimate.metric,
        "level": level,
        "value": estimate.value,
        "ci_low": estimate.ci_low,
        "ci_high": estimate.ci_high,
        "n": items,
        "groups": groups,
        "threshold": estimate.threshold,
    }
