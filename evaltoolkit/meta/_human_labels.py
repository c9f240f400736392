"""Each item's human label, resolved from its annotators, for the code that scores against it.

:func:`human_labels` resolves each item's label (mean of the annotators on a numeric scale,
majority for categories) for :func:`~evaltoolkit.meta.meta_evaluate`,
:func:`~evaltoolkit.meta.compare_judges` and the PromptTuner; :func:`with_human_labels`,
:func:`attach_human_labels` and :func:`labels_by_item` put them beside the data.
"""

from __future__ import annotations

import math
import os
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ._labels import _key, _labels_frame, _level_of, _one_label

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


__all__ = [
    "attach_human_labels",
    "human_labels",
    "is_labels_source",
    "judge_on_scale",
    "labels_by_item",
    "with_human_labels",
]


def _resolve(values: list[Any], level: str) -> Any:
    """One item's label from its annotators: the mean on a numeric scale, else the majority."""
    if level != "nominal" and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        return float(sum(values)) / len(values)
    counts = Counter(values).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None  # a tie has no majority
    return counts[0][0]


def human_labels(
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    label: str | None = None,
    level: str | None = None,
) -> pd.DataFrame:
    """Each item's label resolved from its annotators, with how many labelled it.

    The mean of the annotators' values on a numeric scale (ordinal, interval), the majority
    for categories and pass/fail (a tie leaves the item without a label, with a warning).

    Args:
        labels: A labels file, or the frame of :func:`read_labels`.
        label: Which label, when the labels hold several.
        level: Overrides the recorded level of measurement.

    Returns:
        Columns ``item_id``, the label's name (the resolved value) and ``annotators``.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"item_id": ["a", "a", "b"], "label": "ok",
        ...                       "annotator": ["ann", "bob", "ann"], "value": [2, 3, 5],
        ...                       "level": "ordinal"})
        >>> human_labels(frame).values.tolist()
        [['a', 2.5, 2], ['b', 5.0, 1]]
    """
    import pandas as pd

    rows, label = _one_label(_labels_frame(labels), label)
    level = _level_of(rows, level)
    grouped: dict[str, list[Any]] = {}
    ids: dict[str, Any] = {}
    for item_id, value in zip(rows["item_id"], rows["value"], strict=True):
        ids.setdefault(_key(item_id), item_id)
        grouped.setdefault(_key(item_id), []).append(value)
    resolved = {key: _resolve(values, level) for key, values in grouped.items()}
    ties = [ids[key] for key, value in resolved.items() if value is None]
    if ties:
        warnings.warn(
            f"{len(ties)} item(s) have no majority label for {label!r} (the annotators are "
            f"split evenly), left without a label: {', '.join(map(str, ties[:10]))}",
            UserWarning,
            stacklevel=2,
        )
    return pd.DataFrame(
        {
            "item_id": [ids[key] for key in resolved],
            label: list(resolved.values()),
            "annotators": [len(grouped[key]) for key in resolved],
        }
    )


def with_human_labels(
    frame: pd.DataFrame, labels: str | os.PathLike[str] | pd.DataFrame, *, label: str
) -> pd.DataFrame:
    """The rows of ``frame`` that annotators labelled, with the resolved label as a column.

    Rows are matched on ``item_id`` or ``id`` (else their position, as the Annotator numbers
    items without an id); the label's column and ``annotators`` (how many labelled the item)
    are added. This is how :func:`~evaltoolkit.meta.meta_evaluate`,
    :func:`~evaltoolkit.meta.compare_judges` and the PromptTuner read a labels file.

    Raises:
        ConfigurationError: The frame already has a column of the label's name, or no row
            of it was labelled.
    """
    for taken in (label, "annotators"):
        if taken in frame.columns:
            raise ConfigurationError(
                f"the data already has a column {taken!r}, which the labels file's label would "
                f"replace; rename it first (df.rename(columns={{{taken!r}: 'old_{taken}'}}))"
            )
    resolved = human_labels(labels, label=label)
    by_key = {_key(i): position for position, i in enumerate(resolved["item_id"])}
    id_column = next((c for c in ("item_id", "id") if c in frame.columns), None)
    keys = [_key(i) for i in (frame[id_column] if id_column else range(len(frame)))]
    keep = [position for position, key in enumerate(keys) if key in by_key]
    if not keep:
        raise ConfigurationError(
            f"no item of the data has a label {label!r} in the labels (matched on "
            f"{id_column or 'row position'}); label some items with the Annotator first"
        )
    chosen = frame.iloc[keep].copy()
    found = [by_key[keys[position]] for position in keep]
    chosen[label] = resolved[label].to_numpy()[found]
    chosen["annotators"] = resolved["annotators"].to_numpy()[found]
    return chosen.reset_index(drop=True)


def judge_on_scale(
    scores: Sequence[float] | np.ndarray[Any, Any],
    scale: Sequence[Any],
    *,
    judge_range: tuple[float, float] = (0.0, 1.0),
    threshold: float = 0.5,
) -> list[Any]:
    """The judge's scores as verdicts on the label's scale.

    Pass/fail: ``score >= threshold``. A numeric range: the scale value nearest to the score
    mapped linearly from ``judge_range`` onto the scale. Categories: the score as it is.

    Example:
        >>> judge_on_scale([0.0, 0.5, 0.8, 1.0], (1, 2, 3, 4, 5))
        [1, 3, 4, 5]
    """
    values = list(scale)
    out: list[Any] = []
    low_j, high_j = judge_range
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    for score in scores:
        if score is None or (isinstance(score, float) and math.isnan(score)):
            out.append(None)
        elif set(values) == {True, False} and all(isinstance(v, bool) for v in values):
            out.append(bool(score >= threshold))
        elif numeric and values:
            low, high = min(values), max(values)
            position = low + (float(score) - low_j) / (high_j - low_j) * (high - low)
            out.append(min(values, key=lambda v: (abs(v - position), -v)))
        else:
            out.append(score)
    return out


def is_labels_source(labels: Any) -> bool:
    """Whether ``labels`` is a labels file or frame (rather than the name of a field)."""
    import pandas as pd

    if isinstance(labels, pd.DataFrame | os.PathLike):
        return True
    # A name that looks like a path is one, even when the file is missing (a typo is then
    # "no such labels file", not an unknown field).
    return isinstance(labels, str) and (labels.endswith(".jsonl") or os.sep in labels)


def attach_human_labels(items: Sequence[Any], labels: Any, *, label: str | None = None) -> str:
    """Set each data item's resolved human label as a field (in place); return its name.

    Items without a label get None in that field. For the PromptTuner, whose items are
    :func:`~evaltoolkit.load_items` items (``item_id`` and ``fields``).
    """
    frame = _labels_frame(labels)
    _, name = _one_label(frame, label)
    resolved = human_labels(frame, label=name)
    by_key = dict(zip(map(_key, resolved["item_id"]), resolved[name], strict=True))
    for item in items:
        value = by_key.get(_key(item.item_id))
        item.fields[name] = None if value is None or value != value else value
    return name


@dataclass(frozen=True, slots=True)
class ItemLabels:
    """What the annotators said about one item, for a view beside the judge's verdict."""

    human: Any
    annotators: int
    notes: str
    tags: tuple[str, ...]


def labels_by_item(
    labels: str | os.PathLike[str] | pd.DataFrame, *, label: str | None = None
) -> tuple[str, tuple[Any, ...], dict[str, ItemLabels]]:
    """The label's name, its scale, and each item's resolved label, notes and tags, by item id.

    Item ids are keyed as text (``"1"`` for ``1``).
    """
    frame = _labels_frame(labels)
    rows, name = _one_label(frame, label)
    resolved = human_labels(rows, label=name)
    recorded = [s for s in rows.get("scale", []) if isinstance(s, tuple | list)]
    scale = tuple(recorded[-1]) if recorded else tuple(sorted(set(rows["value"]), key=str))
    notes: dict[str, list[str]] = {}
    for record in rows.to_dict(orient="records"):
        note = record.get("note")
        if isinstance(note, str) and note.strip():
            notes.setdefault(_key(record["item_id"]), []).append(
                f"{record['annotator']}: {note.strip()}"
            )
    tags: dict[str, dict[str, None]] = {}
    if "tags" in frame.columns:
        for item_id, item_tags in zip(frame["item_id"], frame["tags"], strict=True):
            if isinstance(item_tags, tuple | list):
                tags.setdefault(_key(item_id), {}).update(dict.fromkeys(map(str, item_tags)))
    found = {
        _key(item_id): ItemLabels(
            human=value,
            annotators=int(count),
            notes="; ".join(notes.get(_key(item_id), [])),
            tags=tuple(tags.get(_key(item_id), {})),
        )
        for item_id, value, count in zip(
            resolved["item_id"], resolved[name], resolved["annotators"], strict=True
        )
    }
    return name, scale, found
