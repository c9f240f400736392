"""Turning lists, DataFrames and files into data items for a run.

A file that cannot be read raises :class:`DataLoadError`. A single bad row (a JSON Lines line
that does not parse, a row that is not an object) does not: it becomes an item whose
``problem`` says what is wrong, so that it shows in the results with its error.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import DataLoadError, InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DataItem", "load_items", "read_records", "read_table"]

TABLE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")
GROUND_TRUTH_ALIASES = ("ground_truth", "groundTruth")
ID_FIELDS = ("id", "item_id")


@dataclass(slots=True)
class DataItem:
    """One data item: input, output, ground truth and every other field."""

    index: int
    item_id: Any
    input: Any = None
    output: Any = None
    ground_truth: Any = None
    fields: dict[str, Any] = field(default_factory=dict)
    problem: InputError | None = None


@dataclass(frozen=True, slots=True)
class _UnreadableRow:
    """A row of a file that could not be parsed."""

    line: int
    message: str


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _clean(value: Any) -> Any:
    """None for missing cells (NaN from pandas), numpy scalars and arrays as Python values."""
    if _missing(value):
        return None
    if hasattr(value, "tolist") and not isinstance(value, str):
        return value.tolist()
    return value


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise DataLoadError(
            f"cannot read {str(path)!r}: unknown file type {suffix or '(none)'!r}; "
            f"use one of {', '.join(TABLE_SUFFIXES)}"
        )
    return suffix


def _check_readable(path: Path) -> None:
    if not path.exists():
        raise DataLoadError(f"no such file: {str(path)!r}")
    if not path.is_file():
        raise DataLoadError(f"{str(path)!r} is not a file")


def _json_lines(lines: Iterable[str]) -> list[Any]:
    rows: list[Any] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            rows.append(_UnreadableRow(number, f"line {number} is not JSON: {error}"))
    return rows


def read_records(path: str | os.PathLike[str]) -> list[Any]:
    """Read a .jsonl/.json/.csv/.tsv/.parquet file as a list of rows (mappings).

    A JSON Lines line that does not parse becomes an unreadable-row marker instead of failing
    the whole file. A ``.json`` file may hold one JSON array of objects or JSON Lines.

    Raises:
        DataLoadError: The file is missing, unreadable or of an unknown type.
    """
    path = Path(path)
    suffix = _suffix(path)
    _check_readable(path)
    try:
        if suffix in (".jsonl", ".ndjson"):
            with path.open(encoding="utf-8") as handle:
                return _json_lines(handle)
        if suffix == ".json":
            text = path.read_text(encoding="utf-8")
            try:
                loaded = json.loads(text)
            except json.JSONDecodeError:
                return _json_lines(text.splitlines())
            if isinstance(loaded, Mapping):
                loaded = loaded.get("data", loaded.get("items", [loaded]))
            if not isinstance(loaded, list):
                raise DataLoadError(f"{str(path)!r}: expected a JSON list of objects")
            return loaded
        return list(read_table(path).to_dict(orient="records"))
    except (OSError, UnicodeDecodeError) as error:
        raise DataLoadError(f"cannot read {str(path)!r}: {error}") from error


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a .jsonl/.json/.csv/.tsv/.parquet file into a DataFrame.

    In CSV and TSV files only empty cells are missing, so texts such as ``"None"`` or ``"NA"``
    stay text.

    Raises:
        DataLoadError: The file is missing, unreadable, malformed or of an unknown type.
    """
    import pandas as pd

    path = Path(path)
    suffix = _suffix(path)
    _check_readable(path)
    if suffix in (".jsonl", ".ndjson", ".json"):
        records = read_records(path)
        for position, record in enumerate(records):
            if isinstance(record, _UnreadableRow):
                raise DataLoadError(f"cannot read {str(path)!r}: {record.message}")
            if not isinstance(record, Mapping):
                raise DataLoadError(
                    f"cannot read {str(path)!r}: row {position + 1} is a JSON "
                    f"{type(record).__name__}, not an object with one key per column"
                )
        return pd.DataFrame.from_records(records)
    try:
        if suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(
            path, sep="\t" if suffix == ".tsv" else ",", keep_default_na=False, na_values=[""]
        )
    except Exception as error:  # pandas and pyarrow raise many types for a bad file
        raise DataLoadError(f"cannot read {str(path)!r}: {error}") from error


def _rows_of(data: Any) -> Sequence[Any]:
    if isinstance(data, str | Path):
        return read_records(data)
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        return list(data.to_dict(orient="records"))
    if isinstance(data, Mapping):
        raise InputError(
            "data is a single mapping; give a list of items, a DataFrame or a file path"
        )
    if isinstance(data, Iterable) and not isinstance(data, bytes):
        return list(data)
    raise InputError(
        f"data is {type(data).__name__}; give a list of items, a DataFrame or a file path"
    )


def load_items(
    data: Any,
    *,
    input_field: str = "input",
    output_field: str = "output",
    ground_truth_field: str | None = None,
    id_field: str | None = None,
) -> list[DataItem]:
    """Turn a list of dicts, a DataFrame or a file path into data items.

    Args:
        data: A list of mappings, a DataFrame, or a .jsonl/.json/.csv/.parquet path.
        input_field: The field holding the input.
        output_field: The field holding the output (may be absent when a target makes it).
        ground_truth_field: The field holding the ground truth; by default ``ground_truth``
            or ``groundTruth``.
        id_field: The field holding the item id; by default ``id`` or ``item_id``, else the
            item's position.

    Raises:
        DataLoadError: ``data`` is a path that cannot be read.
        InputError: ``data`` is not a list, DataFrame or path.
    """
    truth_fields = (ground_truth_field,) if ground_truth_field else GROUND_TRUTH_ALIASES
    id_fields = (id_field,) if id_field else ID_FIELDS
    items: list[DataItem] = []
    for index, row in enumerate(_rows_of(data)):
        if isinstance(row, _UnreadableRow):
            items.append(DataItem(index, index, problem=InputError(row.message, item_id=index)))
            continue
        if not isinstance(row, Mapping):
            problem = InputError(
                f"expected a mapping with an {input_field!r} field, got {type(row).__name__}",
                item_id=index,
            )
            items.append(DataItem(index, index, problem=problem))
            continue
        fields = {str(key): _clean(value) for key, value in row.items()}
        item_id = next((fields[name] for name in id_fields if fields.get(name) is not None), index)
        for name in id_fields:
            fields.pop(name, None)
        truth = next((fields[name] for name in truth_fields if fields.get(name) is not None), None)
        for name in truth_fields:
            fields.pop(name, None)
        items.append(
            DataItem(
                index=index,
                item_id=item_id,
                input=fields.pop(input_field, None),
                output=fields.pop(output_field, None),
                ground_truth=truth,
                fields=fields,
            )
        )
    return items
