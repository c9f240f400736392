"""The columns of a result row, and the scalar helpers every record and reader shares."""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pandas as pd


Stage = Literal["preprocess", "analyze", "reason"]
Scalar = str | int | float | bool | None

# Columns every row of EvalResult.to_frame() starts with, in this order.
_LEADING_COLUMNS = ("item_id", "scorer", "score", "reason", "error", "error_step")
# The item's own columns that every row has (its other fields follow them).
_ITEM_COLUMNS = ("item_index", "input", "output", "ground_truth", "notes")
# The bookkeeping columns that end every row of to_frame(), in this order.
_BOOKKEEPING_COLUMNS = (
    "judge_model",
    "model_calls",
    "attempts",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "cached_prompt_tokens",
    "cost",
    "latency_s",
    "run_id",
    "preprocess_step_result",
    "analyze_step_result",
    "prompts",
    "raw_replies",
    "not_scored",
)
# Columns of to_frame() that exports written by earlier versions lack.
_OPTIONAL_COLUMNS = frozenset(
    {"attempts", "item_index", "notes", "cached_prompt_tokens", "not_scored"}
)
# Every column of to_frame() that is not a detail or an item field, in order.
_FIXED_COLUMNS = _LEADING_COLUMNS + _ITEM_COLUMNS + _BOOKKEEPING_COLUMNS
#: The columns a result row has whatever the data: an item field of one of these names is
#: exported as ``item_<name>`` (a field ``score`` as ``item_score``).
RESULT_COLUMNS = _FIXED_COLUMNS
#: Every column a long export (``to_frame()``) has, whatever the scorers.
EXPORT_COLUMNS = tuple(column for column in _FIXED_COLUMNS if column not in _OPTIONAL_COLUMNS)
# Keys of ScoreResult.to_record() every scorer has (a wide export prefixes them with the id).
_RECORD_KEYS = ("score", "reason", "error", "error_step", *_BOOKKEEPING_COLUMNS)
_REQUIRED_RECORD_KEYS = tuple(key for key in _RECORD_KEYS if key not in _OPTIONAL_COLUMNS)
# Keys of a record that hold numbers (or nothing), whoever edited the file.
_NUMBER_KEYS = (
    "score",
    "model_calls",
    "attempts",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "latency_s",
)
# Columns that hold text whatever it looks like (read as text from CSV).
_TEXT_KEYS = frozenset(
    {
        "scorer",
        "reason",
        "error",
        "error_step",
        "judge_model",
        "run_id",
        "preprocess_step_result",
        "analyze_step_result",
        "prompts",
        "raw_replies",
        "not_scored",
        *(column for column in _ITEM_COLUMNS if column != "item_index"),
    }
)


def new_run_id() -> str:
    """Return a fresh random run id."""
    return uuid.uuid4().hex


def to_json_text(value: Any) -> str:
    """Serialise ``value`` as compact JSON text, falling back to ``str`` for unknown objects."""
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def number_or_nan(value: Any) -> float:
    """A cell's value as a float: NaN for None, booleans and anything not a number.

    Example:
        >>> number_or_nan("0.5"), number_or_nan(None), number_or_nan(True)
        (0.5, nan, nan)
    """
    if value is None or isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _as_cell(value: Any) -> Scalar:
    """Return ``value`` as a scalar cell: scalars as they are, anything nested as JSON text."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return to_json_text(value)


_Layout = Literal["long", "wide"]
_INT_TEXT = re.compile(r"-?[0-9]+")


def _frame_of(
    rows: Sequence[Mapping[str, Scalar]], *, empty_columns: Sequence[str]
) -> pd.DataFrame:
    """A frame of ``rows``: columns in order of first appearance, None where a key is absent."""
    import pandas as pd

    if not rows:
        return pd.DataFrame(columns=list(empty_columns))
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return pd.DataFrame({column: [row.get(column) for row in rows] for column in columns})


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")


def _column_values(series: Any) -> list[Any]:
    """A column's cells as plain Python values, every missing value as None."""
    values: list[Any] = series.tolist()
    return [
        None
        if _is_missing(value)
        else value.item()
        if hasattr(value, "item") and not isinstance(value, str | bytes)
        else value
        for value in values
    ]


def _parsed_json(value: Any) -> Any:
    """JSON text of an object or list that to_frame() wrote, parsed; anything else as it is.

    Text is parsed only when writing the parsed value again gives the same text, so that
    the round trip keeps every cell as it was.
    """
    if not isinstance(value, str) or value[:1] not in ("{", "["):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if to_json_text(parsed) == value else value


def frame_layout(frame: Any) -> _Layout | None:
    """Which export layout a DataFrame has: ``"long"`` (to_frame), ``"wide"`` or None.

    Example:
        >>> import pandas as pd
        >>> frame_layout(pd.DataFrame({"score": [1.0]})) is None
        True
    """
    columns = {str(column) for column in getattr(frame, "columns", ())}
    if set(EXPORT_COLUMNS) <= columns:
        return "long"
    if "item_id" in columns and _wide_scorers([str(column) for column in frame.columns]):
        return "wide"
    if not len(frame) and set(_LEADING_COLUMNS) <= columns:
        return "long"
    return None


def _wide_scorers(columns: Sequence[str]) -> list[str]:
    present = set(columns)
    scorers = [column[: -len(".score")] for column in columns if column.endswith(".score")]
    return [
        scorer
        for scorer in scorers
        if all(f"{scorer}.{key}" in present for key in _REQUIRED_RECORD_KEYS)
    ]


def _missing_columns_message(columns: Sequence[str]) -> str:
    present = set(columns)
    missing = [column for column in EXPORT_COLUMNS if column not in present]
    shown = ", ".join(repr(column) for column in missing)
    return (
        f"these rows are not an evaltoolkit results export: they lack the columns {shown} "
        "(and no '<scorer>.score' columns of the wide layout). Read a file written by "
        "EvalResult.to_parquet/to_csv/to_jsonl or `evaltoolkit run --out`."
    )


def _frame_row(row: int) -> str:
    return f"the row at position {row}"
