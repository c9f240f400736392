"""Tune on one part of the labelled items, confirm on the other.

A change to a judge (an edited prompt, an offline setting) tuned against some labelled items
looks better on those items than it is. :func:`tune_test_split` splits the items once, by
group, into a tune part and a test part; :func:`paired_change` measures the change in
agreement on each part with a paired bootstrap interval (the same resampled items or groups
for before and after) and says whether the test part confirms what the tune part showed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._datasets import load_items
from ..errors import ConfigurationError
from ._agreement import _ResampleStatistics
from ._resample import percentile_interval, resample_counts

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ._resample import FloatArray, IndexArray

__all__ = ["CONFIRMED", "NOT_CONFIRMED", "WORSE", "paired_change", "tune_test_split"]

TUNE, TEST = "tune", "test"
CONFIRMED = "confirmed on test"
NOT_CONFIRMED = "not confirmed"
WORSE = "worse on test"
MIN_GROUPS_PER_PART = 2
DEFAULT_GROUP = "doc_id"


def _group_key(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) else repr(value)


def _test_groups(count: int, test_share: float) -> int:
    return round(test_share * count)


def _groups_needed(test_share: float) -> int:
    count = 2 * MIN_GROUPS_PER_PART
    while min(_test_groups(count, test_share), count - _test_groups(count, test_share)) < 2:
        count += 1
    return count


def tune_test_split(
    data: Sequence[Mapping[str, Any]] | pd.DataFrame | str | os.PathLike[str],
    *,
    test_share: float = 0.5,
    seed: int = 0,
    group: str | None = None,
) -> pd.Series:
    """Split labelled items once into a tune part and a test part, whole groups at a time.

    Groups (documents, for summarization) are shuffled with a numpy Generator seeded with
    ``seed`` and ``round(test_share * groups)`` of them go to the test part, so one group
    never sits on both sides: several summaries of one document are too alike for a test
    on one of them to be a test at all. Without a group field every item is its own group.

    Args:
        data: The items (a list of mappings, a DataFrame or a data file), as given to
            :func:`~evaltoolkit.run_evals`.
        test_share: The share of groups in the test part, strictly between 0 and 1.
        seed: Seed of the shuffle; the same seed gives the same split.
        group: The field whose values are kept together; default ``doc_id`` when the items
            have it, else none.

    Returns:
        ``"tune"`` or ``"test"`` for every item, in data order, indexed by item id (the
        ``id`` or ``item_id`` field, else the position), named ``split``. Its values line
        up with a DataFrame's rows: ``df["split"] = parts.to_numpy()``.

    Raises:
        ConfigurationError: ``test_share`` is out of range, an item lacks the group field,
            ids repeat, or a part would hold fewer than 2 groups (the message says how many
            groups are needed).

    Example:
        >>> items = [{"id": i, "input": "q", "doc_id": i // 2} for i in range(8)]
        >>> parts = tune_test_split(items, seed=1)
        >>> sorted(parts.value_counts().items())
        [('test', 4), ('tune', 4)]
        >>> all(parts[2 * d] == parts[2 * d + 1] for d in range(4))
        True
    """
    import numpy as np
    import pandas as pd

    if not (isinstance(test_share, int | float) and 0.0 < test_share < 1.0):
        raise ConfigurationError(
            f"tune_test_split: test_share must lie strictly between 0 and 1 (e.g. 0.5), got "
            f"{test_share!r}"
        )
    items = load_items(data)
    ids = [item.item_id for item in items]
    if len(set(map(_group_key, ids))) != len(ids):
        keys_seen = [_group_key(item_id) for item_id in ids]
        repeated = [
            item_id for item_id, key in zip(ids, keys_seen, strict=True) if keys_seen.count(key) > 1
        ]
        raise ConfigurationError(
            f"tune_test_split: {len(repeated)} item id(s) repeat (e.g. {repeated[0]!r}); the "
            "split is keyed by item id, so give every item its own id"
        )
    if group is None and items and all(DEFAULT_GROUP in item.fields for item in items):
        group = DEFAULT_GROUP
    if group is None:
        keys = [("item", _group_key(item_id)) for item_id in ids]
        described = "items"
    else:
        lacking = [item.item_id for item in items if _missing(item.fields.get(group))]
        if lacking:
            raise ConfigurationError(
                f"tune_test_split: {len(lacking)} item(s) have no {group!r} field (e.g. "
                f"{lacking[0]!r}); give every item one, or name another field with group="
            )
        keys = [("group", _group_key(item.fields[group])) for item in items]
        described = f"groups of {group!r}"
    distinct = list(dict.fromkeys(keys))
    test_count = _test_groups(len(distinct), test_share)
    if min(test_count, len(distinct) - test_count) < MIN_GROUPS_PER_PART:
        needed = _groups_needed(test_share)
        raise ConfigurationError(
            f"tune_test_split: {len(distinct)} {described} cannot make a tune part and a test "
            f"part of at least {MIN_GROUPS_PER_PART} each at test_share={test_share}; it "
            f"needs at least {needed}. Label more items (or documents), or change test_share"
        )
    order = np.random.default_rng(seed).permutation(len(distinct))
    in_test = {distinct[int(position)] for position in order[:test_count]}
    parts = [TEST if key in in_test else TUNE for key in keys]
    return pd.Series(parts, index=pd.Index(ids, name="item_id"), name="split", dtype=object)


#: The most resamples that may leave a figure undefined before its interval is undefined too
#: (and a verdict on it ``not confirmed``): a part of too few documents says so, rather than
#: showing an interval collapsed onto its estimate.
MAX_UNDEFINED_RESAMPLES = 0.05


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _counts_for(
    generator: np.random.Generator,
    group_codes: IndexArray | None,
    items: int,
    resamples: int,
) -> FloatArray:
    """Resample counts per item: of items, or of whole groups (each item counts its group's)."""
    if group_codes is None:
        return resample_counts(generator, items, resamples)
    groups = int(group_codes.max()) + 1
    group_counts = resample_counts(generator, groups, resamples)
    counts: FloatArray = group_counts[:, group_codes]
    return counts


def paired_change(
    before: FloatArray,
    after: FloatArray,
    labels: FloatArray,
    *,
    binary: bool,
    metrics: Sequence[str],
    group_codes: IndexArray | None,
    n_bootstrap: int,
    confidence: float,
    seed_sequence: np.random.SeedSequence,
) -> list[dict[str, Any]]:
    """Each metric before and after, and the change with a paired bootstrap interval.

    Every resample draws items (or whole groups) once and scores before and after on the
    same draw, so the interval of the change is that of a paired difference.
    """
    import numpy as np

    items = len(labels)
    computed = [m for m in metrics if m in ("spearman", "kendall", "pearson") or binary]
    if items == 0:
        return []
    old = _ResampleStatistics(before, labels, binary=binary, threshold=None)
    new = _ResampleStatistics(after, labels, binary=binary, threshold=None)
    ones = np.ones((1, items))
    point_old, _ = old.compute(ones)
    point_new, _ = new.compute(ones)
    samples: dict[str, list[FloatArray]] = {
        f"{m}/{which}": [] for m in computed for which in ("before", "after", "change")
    }
    generator = np.random.default_rng(seed_sequence)
    chunk = max(1, min(n_bootstrap, 2_000_000 // items)) if n_bootstrap else 0
    for start in range(0, n_bootstrap, max(chunk, 1)):
        counts = _counts_for(generator, group_codes, items, min(chunk, n_bootstrap - start))
        drawn_old, _ = old.compute(counts)
        drawn_new, _ = new.compute(counts)
        for metric in computed:
            if metric not in drawn_old:
                continue
            samples[f"{metric}/before"].append(drawn_old[metric])
            samples[f"{metric}/after"].append(drawn_new[metric])
            samples[f"{metric}/change"].append(drawn_new[metric] - drawn_old[metric])
    rows: list[dict[str, Any]] = []
    for metric in computed:
        if metric not in point_old:
            continue
        value_old, value_new = float(point_old[metric][0]), float(point_new[metric][0])
        intervals: dict[str, tuple[float, float]] = {}
        for which in ("before", "after", "change"):
            drawn = samples[f"{metric}/{which}"]
            intervals[which] = (
                percentile_interval(
                    np.concatenate(drawn), confidence, max_undefined=MAX_UNDEFINED_RESAMPLES
                )
                if drawn and n_bootstrap
                else (math.nan, math.nan)
            )
        rows.append(
            {
                "metric": metric,
                "before": value_old,
                "after": value_new,
                "change": value_new - value_old,
                "change_ci_low": intervals["change"][0],
                "change_ci_high": intervals["change"][1],
                "before_ci_low": intervals["before"][0],
                "before_ci_high": intervals["before"][1],
                "after_ci_low": intervals["after"][0],
                "after_ci_high": intervals["after"][1],
                "n": items,
                "groups": math.nan if group_codes is None else float(len(set(group_codes))),
            }
        )
    return rows


def verdict(tune_change: float, test_low: float, test_high: float) -> str:
    """What the test part says about a change seen on the tune part.

    ``confirmed on test``: the test interval excludes 0 on the side of the tune change;
    ``worse on test``: otherwise, agreement fell on test (its interval lies below 0);
    ``not confirmed``: anything else (the interval includes 0, or there is none).
    """
    if math.isnan(test_low) or math.isnan(test_high):
        return NOT_CONFIRMED
    if (tune_change > 0 and test_low > 0) or (tune_change < 0 and test_high < 0):
        return CONFIRMED
    if test_high < 0:
        return WORSE
    return NOT_CONFIRMED


def _parts_of(comparison: pd.DataFrame, split: str | Mapping[Any, str] | pd.Series) -> list[Any]:
    import pandas as pd

    if isinstance(split, str):
        if split not in comparison.columns:
            raise ConfigurationError(
                f"agreement_change: the comparison has no split column {split!r}; add one, "
                "or pass the Series from tune_test_split"
            )
        return list(comparison[split])
    if "item_id" not in comparison.columns:
        raise ConfigurationError(
            "agreement_change: a split given by item id needs an 'item_id' column in the "
            "comparison (compare_scores makes one)"
        )
    lookup = split.to_dict() if isinstance(split, pd.Series) else dict(split)
    lacking = [item_id for item_id in comparison["item_id"] if item_id not in lookup]
    if lacking:
        raise ConfigurationError(
            f"agreement_change: {len(lacking)} item(s) of the comparison have no part in the "
            f"split (e.g. {lacking[0]!r}); split the same items that were scored"
        )
    return [lookup[item_id] for item_id in comparison["item_id"]]


def change_table(
    comparison: pd.DataFrame,
    label: str,
    *,
    group: str | None,
    split: str | Mapping[Any, str] | pd.Series | None,
    metrics: Sequence[str],
    n_bootstrap: int,
    confidence: float,
    seed: int,
) -> pd.DataFrame:
    """The work of :func:`~evaltoolkit.meta.agreement_change` (documented there)."""
    import numpy as np
    import pandas as pd

    from ._agreement import _is_binary_label, _numeric_values

    for column, option in ((label, "label"), (group, "group")):
        if column is not None and column not in comparison.columns:
            raise ConfigurationError(
                f"agreement_change: the comparison has no column {column!r} (from {option}); "
                f"its columns are {', '.join(map(str, comparison.columns))}"
            )
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
        raise ConfigurationError(
            f"agreement_change: n_bootstrap must be a non-negative integer, got {n_bootstrap!r}"
        )
    if not 0.0 < confidence < 1.0:
        raise ConfigurationError(
            f"agreement_change: confidence must lie strictly between 0 and 1, got {confidence!r}"
        )
    labels = _numeric_values(comparison, label, "label")
    binary = _is_binary_label(comparison[label], labels)
    before = _numeric_values(comparison, "before", "before")
    after = _numeric_values(comparison, "after", "after")
    usable = np.isfinite(before) & np.isfinite(after) & np.isfinite(labels)
    parts = ["all"] * len(comparison) if split is None else _parts_of(comparison, split)
    names = list(dict.fromkeys(part for part, ok in zip(parts, usable, strict=True) if ok))
    names.sort(key=lambda name: (name != TUNE, name != TEST))
    part_array = np.asarray(parts, dtype=object)
    seeds = np.random.SeedSequence(seed).spawn(max(1, len(names)))
    rows: list[dict[str, Any]] = []
    for name, seed_sequence in zip(names, seeds, strict=False):
        chosen = usable & (part_array == name)
        codes: IndexArray | None = None
        if group is not None:
            factorized = pd.factorize(comparison[group][chosen], use_na_sentinel=False)[0]
            codes = np.asarray(factorized, dtype=np.intp)
        for row in paired_change(
            before[chosen],
            after[chosen],
            labels[chosen],
            binary=binary,
            metrics=metrics,
            group_codes=codes,
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            seed_sequence=seed_sequence,
        ):
            rows.append({"part": name, **row, "verdict": None})
    if TUNE in names and TEST in names:
        tune_change = {row["metric"]: row["change"] for row in rows if row["part"] == TUNE}
        for row in rows:
            if row["part"] == TEST and row["metric"] in tune_change:
                row["verdict"] = verdict(
                    tune_change[row["metric"]], row["change_ci_low"], row["change_ci_high"]
                )
    columns = [
        "part",
        "metric",
        "before",
        "after",
        "change",
        "change_ci_low",
        "change_ci_high",
        "before_ci_low",
        "before_ci_high",
        "after_ci_low",
        "after_ci_high",
        "n",
        "groups",
        "verdict",
    ]
    table = pd.DataFrame(rows, columns=columns)
    table["verdict"] = table["verdict"].astype(object).where(table["verdict"].notna(), None)
    return table
