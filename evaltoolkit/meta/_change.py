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

from .._internal.deprecation import renamed_keywords
from ..errors import ConfigurationError
from ..records import EvalResult
from ._held_out import LEVELS, VERDICTS, change_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AGREEMENT_METRICS", "LEVELS", "VERDICTS", "agreement_change", "compare_scores"]

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


def _scores(result: EvalResult, scorer: str | None, score: str) -> tuple[str, list[float]]:
    if not result.scorer_ids:
        raise ConfigurationError("compare_scores: a run has no scorer")
    chosen = scorer or result.scorer_ids[0]
    results = result.results(chosen)
    if score == "score":
        return chosen, [value.score for value in results]
    key = f"{score}_score"
    if not any(key in value.details for value in results):
        raise ConfigurationError(
            f"compare_scores: the {chosen!r} results have no {score!r} axis (no {key!r} "
            "detail); use score='score' or one of the scorer's axes"
        )
    return chosen, [_axis_value(value, key) for value in results]


def _axis_value(result: Any, key: str) -> float:
    value = result.details.get(key)
    if result.failed or isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)


@renamed_keywords(before="a", after="b")
def compare_scores(
    a: EvalResult,
    b: EvalResult,
    *,
    scorer: str | None = None,
    score: str = "score",
    label: str | None = None,
    fields: Sequence[str] = (),
) -> pd.DataFrame:
    """Line up two runs of the same items: each item's score before and after, and the change.

    Args:
        a: The run with the judge as it was.
        b: The run of the same items with the judge changed.
        scorer: The scorer id to compare (default: each run's first scorer).
        score: ``"score"`` (the final score) or an axis of the scorer (summarization:
            ``"alignment"``, ``"coverage"``: the ``<axis>_score`` detail).
        label: A field of the items holding a human label, added as a column.
        fields: Other item fields to add as columns (a group such as ``doc_id``, for
            :func:`agreement_change`).

    Returns:
        Columns ``item_id``, ``before`` (the score in ``a``), ``after`` (in ``b``),
        ``change`` (``b - a``; and ``label``), the biggest changes first; items that failed
        in either run (NaN change) last.

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
    ids = [item.item_id for item in a]
    if ids != [item.item_id for item in b]:
        raise ConfigurationError("compare_scores: the two runs must hold the same items in order")
    _, old = _scores(a, scorer, score)
    _, new = _scores(b, scorer, score)
    frame = pd.DataFrame(
        {
            "item_id": ids,
            "before": old,
            "after": new,
            "change": [after - before for before, after in zip(old, new, strict=True)],
        }
    )
    for name in [*([label] if label is not None else []), *fields]:
        frame[name] = [item.fields.get(name) for item in b]
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
    level: str | None = None,
    system: str | None = None,
    metrics: Sequence[str] = AGREEMENT_METRICS,
    n_bootstrap: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """How agreement with the human labels moved between the before and after scores.

    The change is read at one ``level`` (the ``level`` column says which):

    - ``"per_group"`` (the default with ``group``, for numeric labels): the correlation
      within each document, averaged over documents, as the summarization literature reports
      it. Documents with fewer than 3 items or equal labels are left out; a document whose
      scores are all equal ranks none of its items and counts 0 (an edit cannot gain by
      making scores constant; the ``note`` says how many). The interval resamples documents.
    - ``"pooled"`` (the default without ``group``, and for boolean labels, which add AUROC):
      one correlation over all the items; the interval resamples items, or whole groups.
    - ``"system"``: each system's mean score against its mean label (``system`` names the
      column), correlated over systems; the boot-both interval resamples documents and
      systems together (Deutsch, Dror and Roth 2021).

    Every interval is paired: each resample draws once and measures before and after on
    that same draw. With ``split`` (see :func:`~evaltoolkit.meta.tune_test_split`) every
    part gets its own rows, and the test rows a verdict on the test part alone (the tune
    part is what the edit was chosen on): ``better on test`` (the test interval of the
    change lies above 0), ``worse on test`` (below 0), ``cannot tell`` (it includes 0, there
    is none, or the test part has fewer than 10 documents, or items without groups), or
    ``lost all discrimination on test`` (after the edit every test document gives all its
    items one score, which it did not before). Only ``better on test`` is a reason to keep
    an edit (:data:`VERDICTS` lists them).

    Args:
        comparison: A table from :func:`compare_scores` with the ``label`` column (and the
            group, system and split columns it names).
        label: The label column (numbers or booleans).
        group: The column naming each item's document (e.g. ``doc_id``): per-document
            figures, and whole documents resampled.
        split: The part of each item: a column of ``comparison``, or the Series from
            :func:`~evaltoolkit.meta.tune_test_split` (or any mapping) from item id to
            ``"tune"`` / ``"test"``.
        level: ``"per_group"``, ``"pooled"`` or ``"system"`` (see above).
        system: The column naming each item's system, for ``level="system"``.
        metrics: The metrics to report, where they apply to the label and level.
        n_bootstrap: Bootstrap resamples for the intervals (0: none).
        confidence: Coverage of the intervals.
        seed: Seed of the bootstrap.

    Returns:
        One row per part and metric: ``part`` (``"all"`` without a split), ``level``,
        ``metric``, ``before``, ``after``, ``change``, ``change_ci_low``,
        ``change_ci_high``, the intervals of before and after (``before_ci_low`` ...
        ``after_ci_high``), ``n`` (the items used), ``groups`` (documents used; systems at
        the system level; NaN for pooled figures without ``group``), ``verdict`` (on test
        rows when the split has a tune and a test part; else None) and ``note`` (fewer than
        10 documents, items or systems; documents scored alike; else "").

    Raises:
        ConfigurationError: A named column is missing, an item has no part, or the level
            needs a column that is not named.

    Example:
        >>> import pandas as pd
        >>> table = pd.DataFrame({"before": [0.1, 0.2, 0.9], "after": [0.9, 0.2, 0.1],
        ...                       "human": [1.0, 2.0, 3.0]})
        >>> agreement_change(table, "human", metrics=["spearman"], n_bootstrap=0)[
        ...     ["level", "metric", "before", "after"]].to_dict(orient="records")
        [{'level': 'pooled', 'metric': 'spearman', 'before': 1.0, 'after': -1.0}]
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
        level=level,
        system=system,
    )
