"""Writing result rows out: JSON Lines, cells that every format can store, secrets masked."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.secrets import SecretMasker

if TYPE_CHECKING:
    import pandas as pd
from ._columns import Scalar, _column_values, to_json_text

#: How JSON exports write the infinite numbers that JSON lacks.
INFINITY_TEXT = {math.inf: "Infinity", -math.inf: "-Infinity"}
_INFINITY_OF_TEXT = {text: number for number, text in INFINITY_TEXT.items()}


def _json_cell(value: Any) -> Any:
    if isinstance(value, float) and math.isinf(value):
        return INFINITY_TEXT[value]
    return value


def write_json_lines(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a frame's rows as JSON Lines, atomically; return the path.

    One object per row, columns in order, missing values (NaN included) as ``null``,
    numbers exact, and an infinite number as the text ``"Infinity"`` or ``"-Infinity"``
    (strict JSON has no such numbers, and a JSON export must always be writable).

    Example:
        >>> import pandas as pd, tempfile
        >>> path = Path(tempfile.mkdtemp()) / "rows.jsonl"
        >>> print(write_json_lines(pd.DataFrame({"x": [0.1, float("inf")]}), path).read_text())
        {"x": 0.1}
        {"x": "Infinity"}
        <BLANKLINE>
    """
    columns = [str(column) for column in frame.columns]
    values = [_column_values(frame[column]) for column in frame.columns]

    def write(target: Path) -> None:
        with target.open("w", encoding="utf-8") as out:
            for row in zip(*values, strict=True):
                record = {
                    column: _json_cell(value) for column, value in zip(columns, row, strict=True)
                }
                out.write(json.dumps(record, ensure_ascii=False, allow_nan=False, default=str))
                out.write("\n")

    return _write_atomically(path, write)


def _write_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    from .._internal.files import atomic_write

    atomic_write(path, write)
    return Path(path)


def encodable_text(text: str) -> str:
    """``text`` with every code point that UTF-8 cannot encode (a lone surrogate) as U+FFFD.

    Example:
        >>> encodable_text("caf\\u00e9 \\ud800!")
        'café �!'
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16: a surrogate pair split in two code points joins up again, and each
        # lone surrogate becomes one U+FFFD.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _storable_row(row: dict[str, Scalar], masker: SecretMasker) -> dict[str, Scalar]:
    """The row with every text (names included) encodable as UTF-8, U+FFFD for the rest, and
    every known secret masked.

    Loading already replaces such characters in data items (with a note); this catches the
    ones a target or a model produced, which pandas, Parquet and CSV would all refuse. The
    secrets are those of :mod:`evaltoolkit._internal.secrets` (a key a target copied into its
    output).
    """
    if masker.masks_values:
        row = {
            key: masker.text(value) if isinstance(value, str) else value
            for key, value in row.items()
        }
    if all(
        key.isascii() and (not isinstance(value, str) or value.isascii())
        for key, value in row.items()
    ):
        return row
    return {
        encodable_text(key): encodable_text(value) if isinstance(value, str) else value
        for key, value in row.items()
    }


def _export_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """Make mixed-type object columns uniform text so that Parquet accepts them.

    The positions of the cells turned into JSON text are kept in ``frame.attrs`` (which
    pandas stores in the Parquet file's metadata), so that reading restores their types.
    """
    frame = frame.copy()
    json_cells: dict[str, list[int]] = {}
    for column in frame.columns:
        if frame[column].dtype != object:
            continue
        kinds = {type(value) for value in frame[column] if value is not None}
        if len(kinds) > 1:
            values = list(frame[column])
            json_cells[str(column)] = [
                position
                for position, value in enumerate(values)
                if value is not None and not isinstance(value, str)
            ]
            frame[column] = [
                value if value is None or isinstance(value, str) else to_json_text(value)
                for value in values
            ]
    frame.attrs = {"evaltoolkit": {"format": 1, "json_cells": json_cells}} if json_cells else {}
    return frame


def _format_score(score: float) -> str:
    return "nan" if math.isnan(score) else f"{score:.4g}"


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _html_table(rows: Sequence[tuple[str, str]]) -> str:
    from .._internal.html import key_value_table

    return str(key_value_table(rows, css_class="evaltoolkit-result"))


# Reading results back ----------------------------------------------------------------------
#
# The rows of to_frame() lose no value, but they do not say which of a row's columns are the
# scorer's details and which are the item's own fields. The layout tells: the first row holds
# its details between ``error_step`` and ``input`` and its fields between ``ground_truth`` and
# ``judge_model``; columns first reported by later rows come after ``raw_replies``, and among
# those a column whose value is the same on every row of an item (in a run of several
# scorers) is an item field, any other a detail.
