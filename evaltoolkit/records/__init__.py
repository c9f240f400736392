"""Typed result records and their flattening into pandas-friendly rows.

A scorer returns a :class:`ScoreResult`; the runner gathers one :class:`ItemResult` per data
item and returns an :class:`EvalResult`. Every record flattens to rows of scalars
(``to_record()``, ``EvalResult.to_frame()``), nested values becoming JSON text, so the rows
export to Parquet, CSV or JSON Lines as they are.

Beside the records, two modules the other layers import: ``records.items`` turns lists,
DataFrames and files into data items for a run, and ``records.messages`` reads chat messages.
"""

from __future__ import annotations

# Handed on for the other layers, outside __all__ as before the package was split.
from ._columns import RESULT_COLUMNS as RESULT_COLUMNS
from ._columns import Stage as Stage
from ._columns import frame_layout
from ._columns import new_run_id as new_run_id
from ._columns import number_or_nan as number_or_nan
from ._columns import to_json_text as to_json_text
from ._export import encodable_text as encodable_text
from ._export import write_json_lines as write_json_lines
from ._parts import ItemResult, ModelCall, ScoreResult, ScoreSummary, StepError, Usage
from ._parts import sum_cost as sum_cost
from ._parts import sum_usage as sum_usage
from ._reading import as_eval_result, read_results
from ._results import EvalResult

__all__ = [
    "EvalResult",
    "ItemResult",
    "ModelCall",
    "ScoreResult",
    "ScoreSummary",
    "StepError",
    "Usage",
    "as_eval_result",
    "frame_layout",
    "read_results",
]
