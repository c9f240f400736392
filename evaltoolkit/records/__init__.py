"""Typed result records and their flattening into pandas-friendly rows.

A scorer returns a :class:`ScoreResult`; the runner gathers one :class:`ItemResult` per data
item and returns an :class:`EvalResult`. Every record flattens to rows of scalars
(``to_record()``, ``EvalResult.to_frame()``), nested values becoming JSON text, so the rows
export to Parquet, CSV or JSON Lines as they are.

Beside the records, two modules the other layers import: ``records.items`` turns lists,
DataFrames and files into data items for a run, and ``records.messages`` reads chat messages.
"""

from __future__ import annotations

from .._internal import deprecation as _deprecation
from ._parts import ItemResult, ModelCall, ScoreResult, ScoreSummary, StepError, Usage
from ._reading import read_results
from ._results import EvalResult

__all__ = [
    "EvalResult",
    "ItemResult",
    "ModelCall",
    "ScoreResult",
    "ScoreSummary",
    "StepError",
    "Usage",
    "read_results",
]

# Public in 0.1: handed on with a DeprecationWarning for one release.
__getattr__ = _deprecation.delisted_names(
    __name__,
    {
        name: _deprecation.Delisted("evaltoolkit.records._internal")
        for name in ("as_eval_result", "frame_layout")
    },
)
