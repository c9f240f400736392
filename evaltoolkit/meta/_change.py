"""What a change to a judge did: scores before and after, and agreement with labels.

Prompt tuning (and offline-setting tuning) is a comparison of two runs of the same items:
:func:`compare_scores` lines their scores up item by item, the biggest changes first, and
:func:`agreement_change` says how agreement with the human labels moved. The PromptTuner
shows these tables; they work without widgets too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..records import EvalResult
from ._held_out import change_table

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
    fields: Sequence[str] = (),
) -> pd.DataFrame:
    """Line up two runs of the same items: each item's score before and after, and the change.

    Args:
        before: The run with the judge as it was.
        after: The run of the same items with the judge changed.
        scorer: The scorer id to compare (default: each run's first scorer).
        label: A field of the items holding a human label, added as a column.
        fields: Other item fields to add as columns (a group such as ``doc_id``, for
            :func:`agreement_change`).

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
    for name in fields:
        check_label_name(name, who="compare_scores", noun="field")
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
    for name in [*([label] if label is not None else []), *fields]:
        frame[name] = [item.fields.get(name) for item in after]
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
    group: str | None = None,
    split: str | Mapping[Any, str] | pd.Series | None = None,
    metrics: Sequence[str] = AGREEMENT_METRICS,
    n_bootstrap: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """How agreement with the human labels moved between the before and after scores.

    The change gets a paired bootstrap interval: each resample draws items (or, with
    ``group``, whole groups) once and measures before and after on that same draw. With
    ``split`` (see :func:`~evaltoolkit.meta.tune_test_split`) every part gets its own rows,
    and the test rows a verdict on what the tune part showed: ``confirmed on test`` (the
    test interval of the change excludes 0 on the side of the tune change), ``worse on
    test`` (agreement fell on test: its interval lies below 0) or ``not confirmed``.

    Args:
        comparison: A table from :func:`compare_scores` with the ``label`` column (and the
            group and split columns it names).
        label: The label column (numbers or booleans).
        group: A column whose groups are resampled whole (e.g. ``doc_id``).
        split: The part of each item: a column of ``comparison``, or the Series from
            :func:`~evaltoolkit.meta.tune_test_split` (or any mapping) from item id to
            ``"tune"`` / ``"test"``.
        metrics: The pooled metrics to report, where they apply to the label.
        n_bootstrap: Bootstrap resamples for the intervals (0: none).
        confidence: Coverage of the intervals.
        seed: Seed of the bootstrap.

    Returns:
        One row per part and metric: ``part`` (``"all"`` without a split), ``metric``,
        ``before``, ``after``, ``change``, ``change_ci_low``, ``change_ci_high``, the
        intervals of before and after (``before_ci_low`` ... ``after_ci_high``), ``n`` (the
        items with a score in both runs and a label), ``groups`` (NaN without ``group``) and
        ``verdict`` (on test rows when the split has a tune and a test part; else None).

    Raises:
        ConfigurationError: A named column is missing, or an item has no part.

    Example:
        >>> import pandas as pd
        >>> table = pd.DataFrame({"before": [0.1, 0.2, 0.9], "after": [0.9, 0.2, 0.1],
        ...                       "human": [1.0, 2.0, 3.0]})
        >>> agreement_change(table, "human", metrics=["spearman"], n_bootstrap=0)[
        ...     ["metric", "before", "after"]].to_dict(orient="records")
        [{'metric': 'spearman', 'before': 1.0, 'after': -1.0}]
    """
    return change_table(
        comparison,
        label,
        group=group,
        split=split,
        metrics=metrics,
        n_bootstrap=n_bootstrap,
        confidence=confidence,
        seed=seed,
    )
