"""Result rows with what the annotators said beside the judge: for reading disagreements."""

from __future__ import annotations

import dataclasses
import math
import os
from typing import TYPE_CHECKING, Any

from ..meta._internal import judge_on_scale, labels_by_item
from ._rows import ResultRow

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["with_human_columns"]


def _gap(judge: Any, human: Any) -> float:
    if judge is None or human is None or (isinstance(human, float) and math.isnan(human)):
        return math.nan
    if isinstance(human, str | bool) or isinstance(judge, str | bool):
        return float(judge != human)
    return float(judge) - float(human)


def with_human_columns(
    rows: list[ResultRow],
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    label: str | None = None,
) -> list[ResultRow]:
    """Each row with ``human_<label>``, ``gap``, ``annotators``, ``human_notes`` and ``tags``.

    The judge's score is put on the label's scale first (a 0-1 score onto 1-5, or pass/fail at
    0.5; :func:`~evaltoolkit.meta.judge_vs_humans` does the same), so the gap is in the
    label's units. Rows of items nobody labelled get NaN and empty texts.
    """
    name, scale, by_item = labels_by_item(labels, label=label)
    out = []
    for row in rows:
        found = by_item.get(str(row.item_id))
        human = found.human if found else math.nan
        [judge] = judge_on_scale([row.score], scale)
        extra = {
            **row.extra,
            f"human_{name}": human,
            "gap": _gap(judge, human if found else None),
            "annotators": found.annotators if found else 0,
            "human_notes": found.notes if found else "",
            "tags": ", ".join(found.tags) if found else "",
        }
        out.append(dataclasses.replace(row, extra=extra))
    return out
