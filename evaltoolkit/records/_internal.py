"""The records layer's helpers for the other layers: not public, and free to change.

Result columns and stages, run ids, the conversions of values into row cells, JSON Lines
writing, sums of usage and cost, and the reading of results in any of their shapes. Any module
of evaltoolkit may import ``evaltoolkit.records._internal`` (the layering test allows it);
users import from :mod:`evaltoolkit.records` or :mod:`evaltoolkit`.
"""

from __future__ import annotations

from ._columns import (
    RESULT_COLUMNS,
    Stage,
    frame_layout,
    new_run_id,
    number_or_nan,
    to_json_text,
)
from ._export import encodable_text, write_json_lines
from ._parts import sum_cost, sum_usage
from ._reading import as_eval_result

__all__ = [
    "RESULT_COLUMNS",
    "Stage",
    "as_eval_result",
    "encodable_text",
    "frame_layout",
    "new_run_id",
    "number_or_nan",
    "sum_cost",
    "sum_usage",
    "to_json_text",
    "write_json_lines",
]
