"""What a change to a judge did: scores before and after, and agreement with labels.

Prompt tuning (and offline-setting tuning) is a comparison of two runs of the same items:
:func:`compare_scores` lines their scores up item by item, the biggest changes first, and
:func:`agreement_change` says how agreement with the human labels moved. The PromptTuner
shows these tables; they work without widgets too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..records import EvalResult
from ._agreement import agreement

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AGREEMENT_METRICS", "agreement_change", "compare_scores"]

#: The pooled agreement metrics :func:`agreement_change` reports, where they apply.
AGREEMENT_METRICS = ("spearman", "kendall", "pearson", "auroc")


# The columns compare_scores makes: a label field may not share a name with one.
COMPARISON_COLUMNS = ("item_id", "before", "after", "change")


def check_label_name(label: str, *, who: str, noun: str) -> None:
    """Refuse a label field whose name a column of the comparison would take."""
    if label in COMPARISON_COLUMNS:
        raise ConfigurationError(
            f"{who}: the {noun} {label!r} has the name of a column of the before/after "
            f"comparison ({', '.join(COMPARISON_COLUMNS)}); rename the field"
        )


def _scores(result: EvalResult, scorer: str | None) -> tuple[str, list[float]]:
    if not result.scorer_ids:
        raise ConfigurationError("compare_scores: a run has no scorer")
    chosen = scorer or result.scorer_ids[0]
    return chosen, [score.score for score in result.results(chosen)]


def compare_scores(
    before: EvalResult,
    after: EvalResult,
    *,
    scorer: str | None = None,
    label: str | None = None,
) -> pd.DataFrame:
    """Line up two runs of the same items: each item's score before and after, and the change.

    Args:
        before: The run with the judge as it was.
        after: The run of the same items with the judge changed.
        scorer: The scorer id to compare (default: each run's first scorer).
        label: A field of the items holding a human label, added as a column.

    Returns:
        Columns ``item_id``, ``before``, ``after``, ``change`` (and ``label``), the biggest
        changes first; items that failed in either run (NaN change) last.

    Raises:
        ConfigurationError: The runs hold different items.

    Example:
        >>> import evaltoolkit as et
        >>> items = [{"id": "a", "input": "q", "output": "Paris", "ground_truth": "Paris"},
        ...          {"id": "b", "input": "q", "output": "Lyon", "ground_truth": "Paris"}]
        >>> before = et.run_evals(items, et.create_textual_difference_scorer(), progress=False)
        >>> after = et.run_evals(items, et.create_textual_difference_scorer(scale=2),
        ...                      progress=False)
        >>> compare_scores(before, after)[["item_id", "change"]].to_dict(orient="records")
        [{'item_id': 'a', 'change': 1.0}, {'item_id': 'b', 'change': 0.0}]
    """
    import pandas as pd

    if label is not None:
        check_label_name(label, who="compare_scores", noun="label field")
    ids = [item.item_id for item in before]
    if ids != [item.item_id for item in after]:
        raise ConfigurationError("compare_scores: the two runs must hold the same items in order")
    _, old = _scores(before, scorer)
    _, new = _scores(after, scorer)
    frame = pd.DataFrame(
        {
            "item_id": ids,
            "before": old,
            "after": new,
            "change": [b - a for a, b in zip(old, new, strict=True)],
        }
    )
    if label is not None:
        frame[label] = [item.fields.get(label) for item in after]
    magnitude = [abs(value) for value in frame["change"]]
    order = sorted(
        range(len(frame)),
        key=lambda row: (math.isnan(magnitude[row]), -_or_zero(magnitude[row]), row),
    )
    return frame.iloc[order].reset_index(drop=True)


def _or_zero(value: float) -> float:
    return 0.0 if math.isnan(value) else value


def agreement_change(
    comparison: pd.DataFrame,
    label: str,
    *,
    metrics: Sequence[str] = AGREEMENT_METRICS,
    n_bootstrap: int = 200,
    seed: int = 0,
) -> pd.DataFrame:
    """How agreement with the human labels moved between the before and after scores.

    Args:
        comparison: A table from :func:`compare_scores` with the ``label`` column.
        label: The label column (numbers or booleans).
        metrics: The pooled metrics to report, where they apply to the label.
        n_bootstrap: Bootstrap resamples for the intervals (0: none).
        seed: Seed of the bootstrap.

    Returns:
        One row per metric: ``metric``, ``before``, ``after``, ``change``, the intervals
        (``before_ci_low`` ... ``after_ci_high``) and ``n``, the items with a score in both
        runs and a label.

    Example:
        >>> import pandas as pd
        >>> table = pd.DataFrame({"before": [0.1, 0.2, 0.9], "after": [0.9, 0.2, 0.1],
        ...                       "human": [1.0, 2.0, 3.0]})
        >>> agreement_change(table, "human", metrics=["spearman"], n_bootstrap=0)[
        ...     ["metric", "before", "after"]].to_dict(orient="records")
        [{'metric': 'spearman', 'before': 1.0, 'after': -1.0}]
    """
    import pandas as pd

    if label not in comparison.columns:
        raise ConfigurationError(f"agreement_change: the comparison has no column {label!r}")
    table = agreement(comparison, ["before", "after"], label, n_bootstrap=n_bootstrap, seed=seed)
    pooled = {
        (str(record["metric"]), str(record["score"])): record
        for record in table.to_dict(orient="records")
        if record["level"] == "pooled"
    }
    rows: list[dict[str, Any]] = []
    for metric in metrics:
        old, new = pooled.get((metric, "before")), pooled.get((metric, "after"))
        if old is None or new is None:
            continue
        rows.append(
            {
                "metric": metric,
                "before": float(old["value"]),
                "after": float(new["value"]),
                "change": float(new["value"]) - float(old["value"]),
                "before_ci_low": float(old["ci_low"]),
                "before_ci_high": float(old["ci_high"]),
                "after_ci_low": float(new["ci_low"]),
                "after_ci_high": float(new["ci_high"]),
                "n": int(new["n"]),
            }
        )
    return pd.DataFrame(rows)
