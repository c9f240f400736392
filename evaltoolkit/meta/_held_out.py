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

from ..errors import ConfigurationError
from ..records.items import load_items
from ._agreement import _ResampleStatistics
from ._resample import percentile_interval, resample_counts

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ._resample import FloatArray, IndexArray

__all__ = [
    "BETTER",
    "CANNOT_TELL",
    "LEVELS",
    "LOST",
    "VERDICTS",
    "WORSE",
    "paired_change",
    "tune_test_split",
]

TUNE, TEST = "tune", "test"
BETTER = "better on test"
WORSE = "worse on test"
CANNOT_TELL = "cannot tell"
LOST = "lost all discrimination on test"
#: Every verdict of a tune/test comparison; only the first is a reason to keep an edit.
VERDICTS = (BETTER, WORSE, CANNOT_TELL, LOST)
#: The levels a change in agreement is read at (as in ``agreement``'s ``level`` column).
LEVELS = ("per_group", "pooled", "system")
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
#: (and a verdict on it ``cannot tell``): a part of too few documents says so, rather than
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


def verdict(test_low: float, test_high: float, *, lost: bool = False) -> str:
    """What the test part says about an edit: the verdict of its change's interval alone.

    ``lost all discrimination on test`` when every test document (the whole test part,
    without groups) gives all its items one score after the edit and did not before;
    otherwise ``better on test`` (the interval lies above 0), ``worse on test`` (below 0) or
    ``cannot tell`` (it includes 0, or there is none). Only ``better on test`` is a reason to
    keep an edit.
    """
    if lost:
        return LOST
    if math.isnan(test_low) or math.isnan(test_high):
        return CANNOT_TELL
    if test_low > 0:
        return BETTER
    if test_high < 0:
        return WORSE
    return CANNOT_TELL


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


def _lost_discrimination(before: FloatArray, after: FloatArray, codes: IndexArray) -> bool:
    """Whether every group of two or more items scores all its items alike after, not before."""
    import numpy as np

    judged = [
        members for members in (codes == code for code in np.unique(codes)) if members.sum() > 1
    ]
    if not judged:
        return False
    constant_after = all(np.unique(after[members]).size == 1 for members in judged)
    constant_before = all(np.unique(before[members]).size == 1 for members in judged)
    return constant_after and not constant_before


def _level_of(level: str | None, group: str | None, system: str | None, binary: bool) -> str:
    if level is None:
        return "per_group" if group is not None and not binary else "pooled"
    if level not in LEVELS:
        raise ConfigurationError(
            f"agreement_change: unknown level {level!r}; choose one of {', '.join(LEVELS)}"
        )
    if level == "per_group" and group is None:
        raise ConfigurationError(
            "agreement_change: level='per_group' needs group= (the column naming each item's "
            "document), or use level='pooled'"
        )
    if level == "system" and system is None:
        raise ConfigurationError(
            "agreement_change: level='system' needs system= (the column naming each item's "
            "system, e.g. system_id), or use level='pooled'"
        )
    return level


def _codes(values: Any) -> IndexArray:
    import numpy as np
    import pandas as pd

    return np.asarray(
        pd.factorize(pd.Series(list(values), dtype=object), use_na_sentinel=False)[0], np.intp
    )


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
    level: str | None = None,
    system: str | None = None,
) -> pd.DataFrame:
    """The work of :func:`~evaltoolkit.meta.agreement_change` (documented there)."""
    import numpy as np

    from ._agreement import _is_binary_label, _numeric_values
    from ._levels import paired_per_group, paired_system
    from ._resample import FEW_UNITS, few_note

    for column, option in ((label, "label"), (group, "group"), (system, "system")):
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
    chosen_level = _level_of(level, group, system, binary)
    before = _numeric_values(comparison, "before", "before")
    after = _numeric_values(comparison, "after", "after")
    usable = np.isfinite(before) & np.isfinite(after) & np.isfinite(labels)
    parts = ["all"] * len(comparison) if split is None else _parts_of(comparison, split)
    names = list(dict.fromkeys(part for part, ok in zip(parts, usable, strict=True) if ok))
    names.sort(key=lambda name: (name != TUNE, name != TEST))
    part_array = np.asarray(parts, dtype=object)
    seeds = np.random.SeedSequence(seed).spawn(max(1, len(names)))
    group_noun = "items" if group is None else f"{group} groups"
    rows: list[dict[str, Any]] = []
    for name, seed_sequence in zip(names, seeds, strict=False):
        chosen = usable & (part_array == name)
        codes: IndexArray | None = None
        if group is not None:
            codes = _codes(comparison[group][chosen])
        if chosen_level == "pooled":
            found = paired_change(
                before[chosen],
                after[chosen],
                labels[chosen],
                binary=binary,
                metrics=metrics,
                group_codes=codes,
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed_sequence=seed_sequence,
            )
            units = int(chosen.sum()) if codes is None else len(set(codes.tolist()))
            for row in found:
                row["note"] = few_note(units, group_noun)
        else:
            found = []
            metric_seeds = seed_sequence.spawn(len(metrics))
            for metric, metric_seed in zip(metrics, metric_seeds, strict=True):
                if metric not in ("spearman", "kendall", "pearson"):
                    continue  # AUROC has no per-document or system-level form here
                if chosen_level == "per_group":
                    assert codes is not None
                    row = paired_per_group(
                        before[chosen],
                        after[chosen],
                        labels[chosen],
                        codes,
                        statistic=metric,
                        n_bootstrap=n_bootstrap,
                        confidence=confidence,
                        seed_sequence=metric_seed,
                    )
                    notes = [few_note(int(row["groups"]), group_noun)]
                    for which in ("before", "after"):
                        if row[f"constant_{which}"]:
                            notes.append(
                                f"{row[f'constant_{which}']} of {int(row['groups'])} "
                                f"{group_noun} scored all their items alike {which} "
                                "(each counted as 0)"
                            )
                    row["note"] = "; ".join(note for note in notes if note)
                else:
                    assert system is not None
                    documents = codes if codes is not None else np.arange(int(chosen.sum()))
                    row = paired_system(
                        before[chosen],
                        after[chosen],
                        labels[chosen],
                        _codes(comparison[system][chosen]),
                        documents,
                        statistic=metric,
                        n_bootstrap=n_bootstrap,
                        confidence=confidence,
                        seed_sequence=metric_seed,
                    )
                    row["note"] = few_note(int(row["groups"]), f"{system} systems")
                found.append({"metric": metric, **row})
        for row in found:
            rows.append({"part": name, "level": chosen_level, **row, "verdict": None})
    if TUNE in names and TEST in names:
        in_test = usable & (part_array == TEST)
        test_codes = (
            _codes(comparison[group][in_test])
            if group is not None
            else np.zeros(int(in_test.sum()), dtype=np.intp)
        )
        lost = _lost_discrimination(before[in_test], after[in_test], test_codes)
        for row in rows:
            if row["part"] != TEST:
                continue
            resampled = int(row["n"]) if math.isnan(row["groups"]) else int(row["groups"])
            if resampled < FEW_UNITS and not lost:
                row["verdict"] = CANNOT_TELL
                continue
            row["verdict"] = verdict(row["change_ci_low"], row["change_ci_high"], lost=lost)
    columns = [
        "part",
        "level",
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
        "note",
    ]
    import pandas as pd

    table = pd.DataFrame(rows, columns=columns)
    table["verdict"] = table["verdict"].astype(object).where(table["verdict"].notna(), None)
    table["note"] = table["note"].fillna("")
    return table
