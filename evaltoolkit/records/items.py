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

from .._internal.caller import warn_at_caller
from .._internal.files import missing_file_message
from .._internal.reading import (
    RepeatedKeyError,
    check_encoding,
    decode_utf8,
    loads_json,
    not_utf8,
    read_delimited,
    read_parquet,
    repeated_names,
)
from ..errors import ConfigurationError, DataLoadError, InputError
from ._columns import RESULT_COLUMNS
from ._export import encodable_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DataItem", "as_table", "load_items", "read_records", "read_table", "require_columns"]

TABLE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")
GROUND_TRUTH_ALIASES = ("ground_truth", "groundTruth")
# Levels of objects and lists an item may nest: far more than any chat transcript needs, and
# few enough that every step after loading (which recurses through values) stays well inside
# Python's recursion limit.
MAX_DEPTH = 200
ID_FIELDS = ("id", "item_id")
# Columns of a CSV or TSV file read as text even when every cell looks like a number, so that
# "02134" keeps its leading zero and "4" stays a string; a run adds the fields its options name.
TEXT_COLUMNS = (
    *ID_FIELDS,
    "input",
    "output",
    *GROUND_TRUTH_ALIASES,
    "source",
    "summary",
    "question",
    "candidate",
    "answer",
    "reference",
    "golden_answers",
    "sentence1",
    "sentence2",
)


@dataclass(slots=True)
class DataItem:
    """One data item: input, output, ground truth and every other field.

    ``notes`` says what loading changed (a number read as text, a character that UTF-8 cannot
    encode replaced with U+FFFD), one sentence each.
    """

    index: int
    item_id: Any
    input: Any = None
    output: Any = None
    ground_truth: Any = None
    fields: dict[str, Any] = field(default_factory=dict)
    problem: InputError | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _UnreadableRow:
    """A row of a file that could not be parsed."""

    line: int
    message: str


def _missing(value: Any) -> bool:
    # pandas.NA marks a missing cell in the string and nullable dtypes (Dask's default for text).
    return (
        value is None
        or (isinstance(value, float) and math.isnan(value))
        or type(value).__name__ == "NAType"
    )


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
        raise DataLoadError(missing_file_message(path))
    if not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise DataLoadError(f"{str(path)!r} is {kind}: give the path of a data file")


def _json_lines(lines: Iterable[bytes | str]) -> list[Any]:
    """Parse JSON Lines; a line that is not UTF-8 or not JSON becomes an unreadable row."""
    rows: list[Any] = []
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as error:
                rows.append(_UnreadableRow(number, not_utf8(error, raw, line=number)))
                continue
        else:
            line = raw
        if not line.strip():
            continue
        try:
            rows.append(loads_json(line))
        except RepeatedKeyError as error:
            rows.append(_UnreadableRow(number, f"line {number}: {error}"))
        except json.JSONDecodeError as error:
            rows.append(_UnreadableRow(number, f"line {number} is not JSON: {error}"))
        except RecursionError:
            rows.append(_UnreadableRow(number, _too_deep(f"line {number}")))
    return rows


def _too_deep(where: str) -> str:
    return f"{where} is nested more than {MAX_DEPTH} levels deep (objects and lists); flatten it"


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests mappings and lists more than ``limit`` levels (no recursion)."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        current, depth = pending.pop()
        if isinstance(current, Mapping):
            children: Iterable[Any] = current.values()
        elif isinstance(current, list | tuple):
            children = current
        else:
            continue
        if depth >= limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def _starts_with(path: Path, character: bytes) -> bool:
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(character)


def _read_json_lines(path: Path) -> list[Any]:
    if _starts_with(path, b"["):
        try:
            whole = json.loads(decode_utf8(path, path.read_bytes()))
        except (json.JSONDecodeError, DataLoadError, RecursionError):
            whole = None
        if isinstance(whole, list):
            raise DataLoadError(
                f"{str(path)!r} holds one JSON array, not JSON Lines (one object per line); "
                f"rename it to {path.with_suffix('.json').name!r} or write one object per line"
            )
    with path.open("rb") as handle:
        return _json_lines(handle)


def _read_json(path: Path) -> list[Any]:
    text = decode_utf8(path, path.read_bytes())
    try:
        loaded = loads_json(text)
    except RepeatedKeyError as error:
        if len(text.strip().splitlines()) > 1:  # JSON Lines: only that line fails
            return _json_lines(text.splitlines())
        raise DataLoadError(f"cannot read {str(path)!r}: {error}") from error
    except json.JSONDecodeError:
        return _json_lines(text.splitlines())
    except RecursionError as error:
        if len(text.strip().splitlines()) > 1:  # JSON Lines: only the deep line fails
            return _json_lines(text.splitlines())
        raise DataLoadError(f"cannot read {str(path)!r}: {_too_deep('it')}") from error
    if isinstance(loaded, Mapping):
        loaded = loaded.get("data", loaded.get("items", [loaded]))
    if not isinstance(loaded, list):
        raise DataLoadError(f"{str(path)!r}: expected a JSON list of objects")
    return loaded


def read_records(
    path: str | os.PathLike[str], *, text_columns: Iterable[str] | None = None
) -> list[Any]:
    """Read a .jsonl/.json/.csv/.tsv/.parquet file as a list of rows (mappings).

    A JSON Lines line that does not parse, or is not UTF-8, becomes an unreadable-row marker
    (an item that fails with its line number) instead of failing the whole file. A ``.json``
    file may hold one JSON array of objects or JSON Lines.

    Args:
        path: The file.
        text_columns: CSV and TSV columns read as text (see :func:`read_table`).

    Raises:
        DataLoadError: The file is missing, unreadable, of an unknown type, or holds no items.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "items.csv"
        >>> _ = path.write_text("id,input,output\\n007,2+2,4\\n")
        >>> read_records(path)
        [{'id': '007', 'input': '2+2', 'output': '4'}]
    """
    path = Path(path)
    _check_readable(path)  # a folder or a missing file says so, whatever its suffix
    suffix = _suffix(path)
    if suffix != ".parquet":
        check_encoding(path)
    try:
        if suffix in (".jsonl", ".ndjson"):
            rows = _read_json_lines(path)
        elif suffix == ".json":
            rows = _read_json(path)
        else:
            return list(read_table(path, text_columns=text_columns).to_dict(orient="records"))
    except OSError as error:
        raise DataLoadError(f"cannot read {str(path)!r}: {error}") from error
    if not rows:
        raise DataLoadError(f"no items in {str(path)!r}: it is empty or holds only blank lines")
    return rows


def read_table(
    path: str | os.PathLike[str], *, text_columns: Iterable[str] | None = None
) -> pd.DataFrame:
    """Read a .jsonl/.json/.csv/.tsv/.parquet file into a DataFrame.

    In CSV and TSV files only empty cells are missing, so texts such as ``"None"`` or ``"NA"``
    stay text, and the ``text_columns`` are read as text even when they look like numbers
    (``"02134"`` keeps its leading zero). Other columns, such as numeric labels, are parsed
    as usual.

    Args:
        path: The file.
        text_columns: Columns to read as text; by default the usual names of ids, inputs,
            outputs, references and sources (:data:`TEXT_COLUMNS`).

    Raises:
        DataLoadError: The file is missing, unreadable, malformed, of an unknown type, or
            holds no rows.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "labels.csv"
        >>> _ = path.write_text("output,label\\n02134,5\\n")
        >>> read_table(path).to_dict(orient="records")
        [{'output': '02134', 'label': 5}]
    """
    import pandas as pd

    path = Path(path)
    _check_readable(path)
    suffix = _suffix(path)
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
    if suffix == ".parquet":
        frame = read_parquet(path)
    else:
        frame = read_delimited(
            path,
            separator="\t" if suffix == ".tsv" else ",",
            text_columns=TEXT_COLUMNS if text_columns is None else tuple(text_columns),
        )
    if frame.empty:
        header = ", ".join(map(str, frame.columns))
        raise DataLoadError(f"no items in {str(path)!r}: it has columns ({header}) but no rows")
    return frame


def as_table(data: Any, *, who: str) -> pd.DataFrame:
    """A DataFrame of ``data``: a DataFrame, a list of dicts, or a path :func:`read_table` reads.

    Args:
        data: The rows.
        who: The function that takes them, for the message.

    Raises:
        ConfigurationError: ``data`` is none of these, or a row of a list is not a mapping.
        DataLoadError: A path that cannot be read.

    Example:
        >>> as_table([{"summary": "s", "label": 1}], who="meta_evaluate").columns.tolist()
        ['summary', 'label']
    """
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, str | os.PathLike):
        return read_table(data)
    if isinstance(data, Sequence) and not isinstance(data, bytes | bytearray):
        for position, row in enumerate(data):
            if not isinstance(row, Mapping):
                raise ConfigurationError(
                    f"{who}: row {position} of the data is {type(row).__name__}, not a dict "
                    "with one key per column"
                )
        if not data:
            raise ConfigurationError(f"{who}: the data is an empty list; give at least one row")
        return pd.DataFrame.from_records(list(data))
    raise ConfigurationError(
        f"{who} takes a DataFrame, a list of dicts or the path of a .jsonl/.json/.csv/.tsv/"
        f".parquet file; got {type(data).__name__}"
    )


def check_unique_columns(columns: Iterable[Any], *, where: str = "the DataFrame") -> None:
    """Raise when column names repeat, naming them (pandas would keep only one of each).

    Raises:
        ConfigurationError: Some column names appear more than once.

    Example:
        >>> check_unique_columns(["input", "output", "output"])
        Traceback (most recent call last):
        ...
        evaltoolkit.errors.ConfigurationError: the DataFrame has duplicated column names: \
'output' (2 times); rename or drop the duplicates
    """
    duplicated = repeated_names(columns)
    if duplicated:
        names = ", ".join(f"{name!r} ({count} times)" for name, count in duplicated.items())
        raise ConfigurationError(
            f"{where} has duplicated column names: {names}; rename or drop the duplicates"
        )


def _rows_of(data: Any, text_columns: Iterable[str]) -> Sequence[Any]:
    if isinstance(data, str | Path):
        return read_records(data, text_columns=text_columns)
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        check_unique_columns(data.columns)
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


class _Loader:
    """Cleans the values of one row and notes what it changed."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self._replaced: dict[str, int] = {}

    def text(self, value: str, where: str) -> str:
        if value.isascii():
            return value
        safe = encodable_text(value)
        if safe is not value:
            replaced = safe.count("\ufffd") - value.count("\ufffd")
            self._replaced[where] = self._replaced.get(where, 0) + max(replaced, 1)
        return safe

    def value(self, value: Any, where: str) -> Any:
        """None for missing cells (NaN), numpy values as Python ones, text made encodable."""
        if _missing(value):
            return None
        if isinstance(value, str):
            return self.text(value, where)
        if hasattr(value, "tolist") and not isinstance(value, str | bytes):
            value = value.tolist()
        if isinstance(value, Mapping):
            return {
                self.text(key, where) if isinstance(key, str) else key: self.value(item, where)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(item, where) for item in value]
        return value

    def as_text(self, value: Any, name: str) -> Any:
        """A number in a text field as the text it stands for ("4", not "4.0"), with a note."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return value
        if isinstance(value, float) and math.isinf(value):
            return value
        text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        self.notes.append(f"field {name!r} held the number {value!r}, read as the text {text!r}")
        return text

    def take_one(self, fields: dict[str, Any], names: Sequence[str], role: str) -> str | None:
        """The first of ``names`` with a value; the others are dropped when empty, else kept
        as fields with a note (never dropped silently)."""
        present = [name for name in names if fields.get(name) is not None]
        for name in names:
            if name not in present:
                fields.pop(name, None)
        if not present:
            return None
        chosen, *others = present
        for other in others:
            self.notes.append(
                f"both {chosen!r} and {other!r}: {chosen!r} is the {role}; {other!r} is kept "
                "as a field of its own"
            )
        return chosen

    def note_reserved(self, fields: Mapping[str, Any]) -> None:
        """Note each field whose name a result column has: it is exported as item_<name>."""
        for name in fields:
            if name in RESULT_COLUMNS:
                self.notes.append(
                    f"field {name!r} is exported as 'item_{name}' (the results' own "
                    f"{name!r} column is the scorer's)"
                )

    def finish(self) -> list[str]:
        for where, count in self._replaced.items():
            characters = "character" if count == 1 else "characters"
            self.notes.insert(
                0,
                f"field {where!r}: {count} {characters} that UTF-8 cannot encode (lone "
                "surrogates) replaced with U+FFFD",
            )
        return self.notes


def _id_of(value: Any) -> Any:
    """Ids as they were meant: 4.0 (from a column with gaps) is 4."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _warn_about(items: Sequence[DataItem]) -> None:
    keys = [str(item.item_id) for item in items if item.problem is None]
    shared = len(keys) - len(set(keys))
    if shared:
        seen: set[str] = set()
        example = ""
        for key in keys:
            if key in seen:
                example = key
                break
            seen.add(key)
        warn_at_caller(
            f"{shared} {'items share' if shared > 1 else 'item shares'} an id with an earlier item "
            f"(such as {example!r}; ids are compared as text, as they are exported); every "
            "item is kept, and the item_index column tells them apart"
        )
    changed = sum(1 for item in items if item.notes)
    if changed:
        warn_at_caller(
            f"{changed} item{'s' if changed > 1 else ''} changed on loading (numbers read as "
            "text, fields renamed because a result column has their name, or characters that "
            "UTF-8 cannot encode replaced); see each item's notes (the notes column)"
        )


def load_items(
    data: Any,
    *,
    input_col: str = "input",
    output_col: str = "output",
    ground_truth_col: str | None = None,
    id_col: str | None = None,
) -> list[DataItem]:
    """Turn a list of dicts, a DataFrame or a file path into data items.

    Every row becomes one item, in order; a row that cannot be used becomes an item whose
    ``problem`` says why. Loading also repairs what would break a run or its export, and notes
    it on the item: a number in the input, output or ground truth becomes text (``4.0`` from
    a column with gaps becomes ``"4"``), and a character that UTF-8 cannot encode (a lone
    surrogate such as ``"\\ud800"``) becomes U+FFFD, in any field and in nested messages.
    Ids shared by several items (``1`` and ``"1"`` count as the same) give one warning.

    Args:
        data: A list of mappings, a DataFrame, or a .jsonl/.json/.csv/.tsv/.parquet path.
        input_col: The field holding the input.
        output_col: The field holding the output (may be absent when a target makes it).
        ground_truth_col: The field holding the ground truth; by default ``ground_truth``
            or ``groundTruth``.
        id_col: The field holding the item id; by default ``id`` or ``item_id``, else the
            item's position.

    Raises:
        DataLoadError: ``data`` is a path that cannot be read, or holds no items.
        InputError: ``data`` is not a list, DataFrame or path.
        ConfigurationError: ``data`` is a DataFrame with duplicated column names.

    Example:
        >>> [item] = load_items([{"id": 7, "input": "2+2", "output": 4}])
        >>> item.output, item.notes
        ('4', ["field 'output' held the number 4, read as the text '4'"])
    """
    truth_fields = (ground_truth_col,) if ground_truth_col else GROUND_TRUTH_ALIASES
    id_fields = (id_col,) if id_col else ID_FIELDS
    text_columns = (input_col, output_col, *truth_fields, *id_fields, "source")
    items: list[DataItem] = []
    for index, row in enumerate(_rows_of(data, text_columns)):
        if isinstance(row, _UnreadableRow):
            items.append(DataItem(index, index, problem=InputError(row.message, item_id=index)))
            continue
        if not isinstance(row, Mapping):
            problem = InputError(
                f"expected a mapping with an {input_col!r} field, got {type(row).__name__}",
                item_id=index,
            )
            items.append(DataItem(index, index, problem=problem))
            continue
        if _deeper_than(row, MAX_DEPTH):
            problem = InputError(_too_deep("the row"), item_id=index)
            items.append(DataItem(index, index, problem=problem))
            continue
        loader = _Loader()
        fields: dict[str, Any] = {}
        for key, value in row.items():
            name = encodable_text(str(key))
            fields[loader.text(str(key), name)] = loader.value(value, name)
        id_name = loader.take_one(fields, id_fields, "item id")
        item_id = index if id_name is None else fields.pop(id_name)
        truth_name = loader.take_one(fields, truth_fields, "ground truth")
        truth = loader.as_text(fields.pop(truth_name), truth_name) if truth_name else None
        input_value = fields.pop(input_col, None)
        output_value = fields.pop(output_col, None)
        loader.note_reserved(fields)
        items.append(
            DataItem(
                index=index,
                item_id=_id_of(item_id),
                input=loader.as_text(input_value, input_col),
                output=loader.as_text(output_value, output_col),
                ground_truth=truth,
                fields=fields,
                notes=loader.finish(),
            )
        )
    _warn_about(items)
    return items


def require_columns(rows: Sequence[Any], required: Mapping[str, str], *, where: str) -> None:
    """Check that each required column is a field of at least one row.

    Args:
        rows: The rows read from a file (:func:`read_records`).
        required: Column name by the option that named it (``{"--input-col": "article"}``).
        where: What the rows came from, for the message (a file name).

    Raises:
        ConfigurationError: A column is in no row; the message lists the columns present.

    Example:
        >>> require_columns([{"q": "x"}], {"--input-col": "input"}, where="'a.csv'")
        Traceback (most recent call last):
        ...
        evaltoolkit.errors.ConfigurationError: no column 'input' (from --input-col) in \
'a.csv'; its columns are: q. Name the right one with --input-col.
    """
    present: dict[str, None] = {}
    for row in rows:
        if isinstance(row, Mapping):
            present.update(dict.fromkeys(map(str, row)))
    for option, column in required.items():
        if column not in present:
            listed = ", ".join(present) or "(none)"
            raise ConfigurationError(
                f"no column {column!r} (from {option}) in {where}; its columns are: {listed}. "
                f"Name the right one with {option}."
            )
