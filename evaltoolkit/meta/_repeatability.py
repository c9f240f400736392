"""How much a judge's verdicts move when it is asked again: ``repeatability``.

A model judge at a temperature above 0, or a provider that ignores ``seed``, answers a rerun
differently. Scoring every item several times says how much: per item the spread of its
scores over the repeats, and over the run the test-retest agreement (Krippendorff's alpha at
the interval level, the repeats as raters, from the ``krippendorff`` package) with a
bootstrap interval over items, and the median item spread. A difference between two judges
or two systems smaller than the judge's own wobble is not a difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._internal.sync import blocking
from ..judge._internal import OFFLINE_MODEL, scoring_repeat
from ..records import EvalResult
from ..runner import arun_evals
from ..runner._internal import DEFAULT_CONCURRENCY
from ..scorers import Scorer
from ._paired import _score_columns, _value
from .stats.reliability import krippendorff_alpha
from .stats.resampling import percentile_interval, resample_counts

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Repeatability", "arepeatability", "repeatability"]

ITEM_COLUMNS = (
    "item_id",
    "score",
    "mean",
    "std",
    "range",
    "disagreement",
    "repeats",
    "failed",
)
SUMMARY_COLUMNS = ("score", "alpha", "ci_low", "ci_high", "median_std", "median_range", "items")


@dataclass(slots=True)
class Repeatability:
    """What :func:`repeatability` measured.

    Attributes:
        items: One row per item and score column: ``mean``, ``std`` (population standard
            deviation over the repeats), ``range`` (max - min), ``disagreement`` (the share
            of repeats whose verdict differs from the item's most common verdict),
            ``repeats`` (repeats that scored it) and ``failed`` (repeats that failed on it).
        summary: One row per score column: ``alpha`` (Krippendorff's alpha, interval
            level, repeats as raters) with ``ci_low`` and ``ci_high``, ``median_std`` and
            ``median_range`` over items, and ``items``.
        repeats: How many times each item was scored (1 for a deterministic judge).
        deterministic: The judge gives the same verdict every time (the offline judge, or a
            scorer without a model), so it was scored once and alpha is 1.
        results: The run of each repeat.
        note: One sentence on how the figures were made.
    """

    items: pd.DataFrame
    summary: pd.DataFrame
    repeats: int
    deterministic: bool
    results: list[EvalResult] = field(default_factory=list, repr=False)
    note: str = ""


def _verdicts(values: list[float], threshold: float | None) -> list[Any]:
    if threshold is None:
        return values
    return [value >= threshold for value in values]


def _disagreement(verdicts: list[Any]) -> float:
    if not verdicts:
        return math.nan
    most_common = max(verdicts.count(verdict) for verdict in verdicts)
    return 1.0 - most_common / len(verdicts)


def _alpha_with_interval(
    matrix: list[list[float]], *, n_bootstrap: int, confidence: float, seed: int
) -> tuple[float, float, float]:
    """Alpha of repeats x items, and a percentile interval over resampled items."""
    import numpy as np

    values = np.asarray(matrix, dtype=float)  # repeats x items
    alpha = krippendorff_alpha(values.tolist(), level="interval")
    if not n_bootstrap or math.isnan(alpha) or values.shape[1] < 2:
        return alpha, math.nan, math.nan
    generator = np.random.default_rng(seed)
    drawn_alphas = []
    items = np.arange(values.shape[1])
    for counts in resample_counts(generator, values.shape[1], n_bootstrap):
        drawn = np.repeat(items, counts.astype(np.intp))
        drawn_alphas.append(krippendorff_alpha(values[:, drawn].tolist(), level="interval"))
    low, high = percentile_interval(np.asarray(drawn_alphas, dtype=float), confidence)
    return alpha, low, high


async def arepeatability(
    scorer: Scorer,
    data: Any,
    *,
    repeats: int = 5,
    threshold: float | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    **run_options: Any,
) -> Repeatability:
    """Score every item ``repeats`` times and measure how much the judge's verdicts move.

    Each repeat is a full run whose judge requests carry the repeat index: the cache keeps
    repeat 3 as repeat 3 (a rerun of the same call costs nothing), and a judge with a
    ``seed`` sends ``seed + repeat`` so providers that honour seeds draw distinct samples.
    A judge at temperature 0 without such a provider may well answer the same every time;
    that is what this measures.

    The offline judge (and a scorer with no model) is deterministic: it is scored once,
    and the summary reports alpha 1 and no spread, saying so in ``note``.

    Args:
        scorer: The scorer whose judge is measured.
        data: The items, as for :func:`~evaltoolkit.run_evals`.
        repeats: How many times to score each item (at least 2).
        threshold: Verdicts are ``score >= threshold`` for the disagreement share; None
            takes each score value as a verdict.
        n_bootstrap: Resamples of items for alpha's interval (0: none).
        confidence: Coverage of the interval.
        seed: Seed of the bootstrap.
        concurrency: Items in flight.
        progress: Show a progress bar per repeat.
        **run_options: Passed to :func:`~evaltoolkit.arun_evals` (``id_col``, ...).

    Returns:
        A :class:`Repeatability` with the per-item table and the summary.

    Raises:
        ConfigurationError: ``repeats`` is below 2, or a run option is invalid.

    :func:`repeatability` is its blocking twin (the example uses it).

    Example:
        >>> import evaltoolkit as et
        >>> items = [{"id": 1, "input": "q", "output": "Paris", "ground_truth": "Paris"}]
        >>> measured = et.repeatability(et.create_textual_difference_scorer(), items,
        ...                             progress=False)
        >>> measured.deterministic, float(measured.summary["alpha"].iloc[0])
        (True, 1.0)
    """
    import pandas as pd

    from ..errors import ConfigurationError

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 2:
        raise ConfigurationError(
            f"repeatability: repeats must be an integer of at least 2 (a spread needs two "
            f"scorings), got {repeats!r}"
        )
    if run_options.get("client") is not None:
        raise ConfigurationError(
            "repeatability: score the repeats in this process (no client=): the repeat index "
            "travels with the task and does not reach Dask workers"
        )
    deterministic = scorer.judge_model in (None, OFFLINE_MODEL)
    runs: list[EvalResult] = []
    for index in range(1 if deterministic else repeats):
        with scoring_repeat(index):
            runs.append(
                await arun_evals(
                    data, scorer, concurrency=concurrency, progress=progress, **run_options
                )
            )
    first = runs[0]
    columns = _score_columns(list(first), scorer.id)
    item_rows: list[dict[str, Any]] = []
    summary_rows: list[dict[str, Any]] = []
    for column in columns:
        matrix = [
            [_value(run[position], scorer.id, column) for position in range(len(first))]
            for run in runs
        ]
        spreads, ranges = [], []
        for position, item in enumerate(first):
            values = [row[position] for row in matrix if not math.isnan(row[position])]
            failed = len(runs) - len(values)
            if deterministic and values:
                spread, span, disagreement = 0.0, 0.0, 0.0
            elif values:
                series = pd.Series(values, dtype=float)
                spread = float(series.std(ddof=0))
                span = float(series.max() - series.min())
                disagreement = _disagreement(_verdicts(values, threshold))
            else:
                spread, span, disagreement = math.nan, math.nan, math.nan
            if values:
                spreads.append(spread)
                ranges.append(span)
            item_rows.append(
                {
                    "item_id": item.item_id,
                    "score": column,
                    "mean": float(sum(values) / len(values)) if values else math.nan,
                    "std": spread,
                    "range": span,
                    "disagreement": disagreement,
                    "repeats": len(values),
                    "failed": failed,
                }
            )
        if deterministic:
            alpha, low, high = 1.0, 1.0, 1.0
        else:
            alpha, low, high = _alpha_with_interval(
                matrix, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed
            )
        summary_rows.append(
            {
                "score": column,
                "alpha": alpha,
                "ci_low": low,
                "ci_high": high,
                "median_std": _median(spreads),
                "median_range": _median(ranges),
                "items": len(spreads),
            }
        )
    note = (
        f"The judge ({scorer.judge_model or 'no model'}) is deterministic: scored once, "
        "alpha 1 by construction."
        if deterministic
        else f"Scored {repeats} times; alpha is Krippendorff's (interval level, repeats as "
        f"raters) with a {confidence:.0%} bootstrap interval over items."
    )
    return Repeatability(
        items=pd.DataFrame(item_rows, columns=list(ITEM_COLUMNS)),
        summary=pd.DataFrame(summary_rows, columns=list(SUMMARY_COLUMNS)),
        repeats=len(runs),
        deterministic=deterministic,
        results=runs,
        note=note,
    )


repeatability = blocking(arepeatability)
"""The blocking twin of :func:`arepeatability`: same arguments, same result (its docstring)."""


def _median(values: Sequence[float]) -> float:
    import statistics

    return float(statistics.median(values)) if values else math.nan
