"""Reading saved results back: :func:`read_results` and :func:`as_eval_result`, long or wide."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, DataLoadError

if TYPE_CHECKING:
    import pandas as pd
from ._columns import _INT_TEXT, _NUMBER_KEYS, _TEXT_KEYS, _column_values, _is_missing
from ._export import _INFINITY_OF_TEXT
from ._results import EvalResult, _from_columns


def _read_csv(path: Path) -> tuple[list[str], dict[str, list[Any]], int]:
    from .._internal.reading import read_delimited

    frame = read_delimited(path, separator=",", text_columns=_is_text_column)
    header = [str(column) for column in frame.columns]
    cells = {name: _column_values(frame[name]) for name in header}
    # CSV keeps no types: an id written as a whole number (no sign, no leading zero) was one.
    cells["item_id"] = [_csv_id(value) for value in cells.get("item_id", [])]
    return header, cells, len(frame)


def _is_text_column(column: str) -> bool:
    """Whether an export's column holds text whatever it looks like (long or wide layout)."""
    return column in _TEXT_KEYS or column.rsplit(".", 1)[-1] in _TEXT_KEYS or column == "item_id"


def _csv_id(value: Any) -> Any:
    if isinstance(value, str) and _INT_TEXT.fullmatch(value) and str(int(value)) == value:
        return int(value)
    return value


def _csv_row(row: int) -> str:
    """A data row of a CSV file as a spreadsheet numbers it (the header is row 1)."""
    return f"row {row + 2} (the header is row 1)"


def _read_jsonl(path: Path) -> tuple[list[str], dict[str, list[Any]], int, list[str]]:
    """The columns, cells and rows of a JSON Lines export, and each row's line, named."""
    from .._internal.reading import check_encoding, loads_json

    check_encoding(path)
    records: list[dict[str, Any]] = []
    lines_of_rows: list[str] = []
    with path.open(encoding="utf-8-sig") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = loads_json(line)
            except ValueError as error:
                raise DataLoadError(f"{path}, line {number}: not JSON ({error})") from error
            except RecursionError as error:
                raise DataLoadError(
                    f"{path}, line {number}: JSON nested too deeply to read; it is not a row "
                    "that an export writes"
                ) from error
            if not isinstance(record, dict):
                raise DataLoadError(f"{path}, line {number}: not a JSON object")
            records.append(record)
            lines_of_rows.append(f"line {number}")
    columns = list(dict.fromkeys(key for record in records for key in record))
    cells = {
        column: [None if _is_missing(r.get(column)) else r.get(column) for r in records]
        for column in columns
    }
    for column in columns:
        cells[column] = _infinities(column, cells[column])
    return columns, cells, len(records), lines_of_rows


def _is_number_column(column: str) -> bool:
    """Whether an export's column always holds numbers (long or wide layout)."""
    return column in _NUMBER_KEYS or column.rsplit(".", 1)[-1] in _NUMBER_KEYS


def _infinities(column: str, values: list[Any]) -> list[Any]:
    """The infinite numbers that to_jsonl writes as text, read back as numbers.

    Only where the text stands for a number: in a column that holds numbers by definition
    (``score``, ``cost``, ...), or in one whose every other value is a number (a label). In
    a column of text, such as a film's title, ``"Infinity"`` stays text.
    """
    if not any(isinstance(value, str) and value in _INFINITY_OF_TEXT for value in values):
        return values
    if not _is_number_column(column):
        others = [v for v in values if v is not None and v not in _INFINITY_OF_TEXT]
        if not others or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in others
        ):
            return values
    return [_INFINITY_OF_TEXT.get(v, v) if isinstance(v, str) else v for v in values]


def _blank(path: Path) -> bool:
    """Whether a file holds nothing but whitespace (read in chunks: exports can be large)."""
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return False
    return True


class _NotAPathError(ConfigurationError, TypeError):
    """A path was expected and something else was given (None, a number, bytes)."""


def read_results(path: str | os.PathLike[str]) -> EvalResult:
    """Read results saved by ``to_parquet``, ``to_csv``, ``to_jsonl`` or ``evaltoolkit run --out``.

    Long files (one row per item and scorer) and wide ones (``wide=True``) both work; the
    format follows the extension (``.parquet``, ``.csv``, ``.jsonl``). The result's
    ``to_frame()`` equals the frame that was written, so a saved run opens again in the
    views, the plots and the report. Parquet and JSON Lines keep every value's type; CSV
    keeps none, so there an id written as a whole number (``12``, not ``012``) comes back as
    a number, text that looks like a number in a column that is not one of the text columns
    (input, output, reason, ...) comes back as a number, and an empty text as missing. In
    JSON Lines, the text ``"Infinity"`` or ``"-Infinity"`` is the infinite number that
    :meth:`EvalResult.to_jsonl` wrote so where it stands for a number: in the number columns
    (``score``, ``cost``, ...) and in a column whose other values are all numbers (a label);
    elsewhere it stays text (a film called "Infinity"). A CSV file whose header is split by
    ``;`` (a spreadsheet's European export) is read with ``;``, with a warning.

    Rows are grouped into items by ``item_index`` and ``item_id`` (the id alone in exports
    that predate ``item_index``), not by position, so a file sorted by score or with rows
    deleted still reads: the items come back in data order, and an item with no row for one
    of the file's scorers gets a NaN score for it whose error says so (with one warning).

    Args:
        path: The results file.

    Returns:
        The :class:`EvalResult` the file was written from.

    Raises:
        ConfigurationError: ``path`` is not a path (also a TypeError).
        DataLoadError: No such file, an unknown extension, a file that is not a results
            export (the message names the columns it lacks), rows that contradict each
            other (two rows of one item for the same scorer, one ``item_index`` with two
            ids), or a number column (``score``, ``cost``, ...) holding something that is
            not a number; the message names the rows and the column.

    Example:
        >>> import evaltoolkit as et, tempfile, pathlib
        >>> result = et.run_evals([{"id": 1, "input": "q", "output": "a b", "ground_truth": "a"}],
        ...                       et.create_textual_difference_scorer(), progress=False)
        >>> path = result.to_parquet(pathlib.Path(tempfile.mkdtemp()) / "results.parquet")
        >>> et.read_results(path).to_frame().equals(result.to_frame())
        True
    """
    if not isinstance(path, str | os.PathLike):
        raise _NotAPathError(
            "read_results takes the path of a results file (.parquet, .csv or .jsonl), got "
            f"{type(path).__name__} {path!r}"
        )
    source = Path(path)
    if not source.is_file():
        from .._internal.files import missing_file_message

        if source.exists():
            raise DataLoadError(f"{str(source)!r} is not a file: give the path of a results file")
        raise DataLoadError(missing_file_message(source, what="results file"))
    suffix = source.suffix.lower()
    if _blank(source):
        if suffix in (".jsonl", ".ndjson"):
            return EvalResult(items=[], scorer_ids=[])  # what to_jsonl writes for no items
        raise DataLoadError(
            f"{str(source)!r} is empty: it is not a results export (a {suffix or 'results'} "
            "export of a run with no items still has a header row or a schema)"
        )
    try:
        if suffix == ".parquet":
            from .._internal.reading import read_parquet

            return EvalResult.from_frame(read_parquet(source))
        if suffix == ".csv":
            columns, cells, rows = _read_csv(source)
            row_name = _csv_row
        elif suffix in (".jsonl", ".ndjson"):
            columns, cells, rows, lines = _read_jsonl(source)
            row_name = lambda row: lines[row]  # noqa: E731
        else:
            raise DataLoadError(
                f"cannot read results from {str(source)!r}: the extension must be .parquet, "
                ".csv or .jsonl"
            )
        return _from_columns(columns, cells, rows, row_name)
    except ConfigurationError as error:
        raise DataLoadError(f"{source}: {error}") from error
    except (OSError, ValueError) as error:
        if isinstance(error, DataLoadError):
            raise
        raise DataLoadError(f"cannot read {str(source)!r}: {error}") from error


def as_eval_result(value: EvalResult | pd.DataFrame | str | os.PathLike[str]) -> EvalResult:
    """An EvalResult from a result, the rows of an export, or the path of a saved one.

    What the views, the plots and the report accept.

    Raises:
        ConfigurationError: Something else, or rows that are not an export.
        DataLoadError: A path that cannot be read as results.

    Example:
        >>> as_eval_result(EvalResult(items=[], scorer_ids=[])).scorer_ids
        []
    """
    if isinstance(value, EvalResult):
        return value
    if isinstance(value, str | os.PathLike):
        return read_results(value)
    if hasattr(value, "columns") and hasattr(value, "to_dict"):
        return EvalResult.from_frame(value)
    raise ConfigurationError(
        "expected an EvalResult, the DataFrame of result.to_frame() or result.to_wide(), or "
        f"the path of saved results; got {type(value).__name__}"
    )
