"""Reading the files the toolkit is given: one path per format, whoever reads them.

Data files (``run_evals``, ``meta-eval``), saved results (:func:`~evaltoolkit.read_results`)
and tables of labels all come through here, so that the same damage gets the same message,
naming the file, the line or the column and what to do: a file saved as UTF-16, a CSV or
TSV row with more fields than its header (a trailing separator would otherwise shift every
column left), a quote left open, a column or a JSON key given twice, or the ``;`` between
fields that a spreadsheet set to a European locale writes.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..errors import DataLoadError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RepeatedKeyError",
    "check_encoding",
    "decode_utf8",
    "loads_json",
    "read_delimited",
    "read_parquet",
    "repeated_names",
]

_HEAD_BYTES: Final = 4096
_BYTE_ORDER_MARKS: Final = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
# A number written with a decimal comma (or none), as a European spreadsheet writes it.
_DECIMAL_COMMA: Final = re.compile(r"\s*[-+]?[0-9]+(?:,[0-9]+)?(?:[eE][-+]?[0-9]+)?\s*")


def _named(path: str | os.PathLike[str]) -> str:
    return repr(str(path))


def encoding_problem(head: bytes) -> str | None:
    """Why the first bytes of a file are not UTF-8 text, or None when they may be.

    Example:
        >>> encoding_problem("id,input".encode("utf-16"))
        'it is not UTF-8 (looks like UTF-16): re-save it as UTF-8'
        >>> encoding_problem(b"id,input") is None
        True
    """
    for mark, name in _BYTE_ORDER_MARKS:
        if head.startswith(mark):
            return f"it is not UTF-8 (looks like {name}): re-save it as UTF-8"
    if b"\x00" not in head:
        return None
    even, odd = head[0::2], head[1::2]
    # UTF-16 text in a Latin script has a zero in every other byte.
    if even and odd and (even.count(0) > len(even) // 2 or odd.count(0) > len(odd) // 2):
        return "it is not UTF-8 (looks like UTF-16): re-save it as UTF-8"
    return "it is not text (it holds NUL bytes): give a UTF-8 text file"


def check_encoding(path: str | os.PathLike[str]) -> None:
    """Raise when ``path`` is plainly not UTF-8 text (UTF-16 or UTF-32, or binary).

    Raises:
        DataLoadError: Naming the file and the encoding it looks like.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError as error:
        raise DataLoadError(f"cannot read {_named(path)}: {error.strerror or error}") from error
    problem = encoding_problem(head)
    if problem is not None:
        raise DataLoadError(f"cannot read {_named(path)}: {problem}")


def not_utf8(error: UnicodeDecodeError, data: bytes, *, line: int, start: int = 0) -> str:
    """Where a decoding error is, as a person would look for it: line, column and byte."""
    offset = start + error.start
    line += data.count(b"\n", start, offset)
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return (
        f"line {line} is not valid UTF-8 (byte 0x{data[offset]:02x} at column {column}); "
        "save the file as UTF-8"
    )


def decode_utf8(path: str | os.PathLike[str], data: bytes) -> str:
    """A whole file's bytes as text (a UTF-8 byte order mark dropped), or a DataLoadError.

    Example:
        >>> decode_utf8("a.csv", b"\\xef\\xbb\\xbfid\\n1\\n")
        'id\\n1\\n'
    """
    problem = encoding_problem(data[:_HEAD_BYTES])
    if problem is not None:
        raise DataLoadError(f"cannot read {_named(path)}: {problem}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DataLoadError(
            f"cannot read {_named(path)}: {not_utf8(error, data, line=1)}"
        ) from error


class RepeatedKeyError(ValueError):
    """A JSON object names a key twice (JSON parsers keep the last value, silently)."""


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        repeated = next(key for key in found if sum(1 for name, _ in pairs if name == key) > 1)
        raise RepeatedKeyError(
            f"the key {repeated!r} appears twice in one object; keep one of them, so that it "
            "is clear which value to use"
        )
    return found


def loads_json(text: str | bytes) -> Any:
    """``json.loads``, refusing an object that names a key twice.

    Raises:
        RepeatedKeyError: A key repeats (a ValueError, like the JSON parser's own errors).

    Example:
        >>> loads_json('{"a": 1, "a": 2}')
        Traceback (most recent call last):
        ...
        evaltoolkit._internal.reading.RepeatedKeyError: the key 'a' appears twice in one object; \
keep one of them, so that it is clear which value to use
    """
    return json.loads(text, object_pairs_hook=_unique_object)


def repeated_names(names: Iterable[Any]) -> dict[str, int]:
    """The names given more than once, with how many times.

    Example:
        >>> repeated_names(["id", "score", "score"])
        {'score': 2}
    """
    counts: dict[str, int] = {}
    for name in names:
        counts[str(name)] = counts.get(str(name), 0) + 1
    return {name: count for name, count in counts.items() if count > 1}


def _refuse_repeated(path: str | os.PathLike[str], names: Iterable[Any], what: str) -> None:
    repeated = repeated_names(names)
    if repeated:
        listed = ", ".join(f"{name!r} ({count} times)" for name, count in repeated.items())
        raise DataLoadError(
            f"cannot read {_named(path)}: its {what} names a column more than once: {listed}; "
            "rename or delete the repeated column, so that it is clear which one to use"
        )


def _separator_name(separator: str) -> str:
    return "tab" if separator == "\t" else repr(separator)


def _semicolon_separated(text: str) -> bool:
    """Whether a .csv file's header is split by ';' and not by ','."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    by_comma = next(csv.reader([first]), [])
    by_semicolon = next(csv.reader([first], delimiter=";"), [])
    return len(by_comma) == 1 and len(by_semicolon) > 1


def _records(text: str, separator: str, *, strict: bool) -> Iterable[tuple[int, list[str]]]:
    """Each non-blank record of the text and the line it starts on."""
    reader = csv.reader(io.StringIO(text), delimiter=separator, strict=strict)
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        if row:
            yield start, row


def _checked_header(path: str | os.PathLike[str], text: str, separator: str) -> list[str]:
    """The header, once every row is known to have no more fields than it has."""
    try:
        rows = list(_records(text, separator, strict=True))
    except csv.Error as error:
        if "unexpected end of data" not in str(error):
            # Quoting that Python's strict reader refuses and pandas reads ('"a"b'): count
            # the fields as pandas will split them.
            rows = list(_records(text, separator, strict=False))
        else:
            opened = max((start for start, _ in _records(text, separator, strict=False)), default=1)
            raise DataLoadError(
                f'cannot read {_named(path)}: line {opened} opens a quote (") that is never '
                "closed, so the rest of the file would be one text; close it, or write a quote "
                'inside a quoted text as two ("")'
            ) from error
    if not rows:
        return []
    _, header = rows[0]
    for line, row in rows[1:]:
        if len(row) > len(header):
            extra = row[len(header) :]
            name = _separator_name(separator)
            why = (
                f"it ends in a trailing {name} (delete it, or add a column name to the header)"
                if not any(cell.strip() for cell in extra)
                else f"a {name} inside a text splits it: put that text in double quotes"
            )
            raise DataLoadError(
                f"cannot read {_named(path)}: line {line} has {len(row)} fields but the header "
                f"has {len(header)}; {why}. Every column would otherwise shift left."
            )
    return header


def _decimal_commas(frame: pd.DataFrame, is_text: Callable[[str], bool]) -> None:
    """Numbers written with a decimal comma ("0,75") as numbers, outside the text columns."""
    import pandas as pd

    for column in frame.columns:
        if is_text(str(column)) or frame[column].dtype.kind in "biufc":
            continue
        values = frame[column].dropna()
        if len(values) and all(
            isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value) for value in values
        ):
            frame[column] = pd.to_numeric(frame[column].str.replace(",", ".", regex=False))


def read_delimited(
    path: str | os.PathLike[str],
    *,
    separator: str,
    text_columns: Iterable[str] | Callable[[str], bool],
) -> pd.DataFrame:
    """Read a CSV (``separator=","``) or TSV (``"\\t"``) file into a DataFrame.

    Only empty cells are missing (``"None"`` and ``"NA"`` stay text) and the text columns
    are read as text. A .csv file whose header is split by ``;`` and not by ``,`` is read
    with ``;`` (and numbers with a decimal comma outside the text columns as numbers), with
    a warning saying so.

    Args:
        path: The file.
        separator: The separator the file's suffix stands for.
        text_columns: The columns to read as text, or a function telling them by name.

    Raises:
        DataLoadError: The file cannot be read, is not UTF-8, holds nothing, names a column
            twice, leaves a quote open, or has a row with more fields than its header (the
            message names the line).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "t.csv"
        >>> _ = path.write_text("id,output,label\\n007,4,5\\n")
        >>> read_delimited(path, separator=",", text_columns=["id", "output"]).to_dict("records")
        [{'id': '007', 'output': '4', 'label': 5}]
    """
    import pandas as pd

    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise DataLoadError(f"cannot read {_named(path)}: {error.strerror or error}") from error
    text = decode_utf8(path, data)
    if not text.strip():
        raise DataLoadError(f"no items in {_named(path)}: it is empty or holds only blank lines")
    european = separator == "," and _semicolon_separated(text)
    if european:
        separator = ";"
        warnings.warn(
            f"{_named(path)} is separated by ';', not ',' (as a spreadsheet set to a European "
            "locale saves CSV); read it so, numbers with a decimal comma included",
            UserWarning,
            stacklevel=3,
        )
    header = _checked_header(path, text, separator)
    _refuse_repeated(path, (name for name in header if name), "header")  # "" is "Unnamed: N"
    is_text = text_columns if callable(text_columns) else set(text_columns).__contains__
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=separator,
            keep_default_na=False,
            na_values=[""],
            dtype={name: str for name in header if is_text(name)},
            index_col=False,
        )
    except Exception as error:  # pandas raises many types for a bad file
        raise DataLoadError(f"cannot read {_named(path)}: {error}") from error
    if european:
        _decimal_commas(frame, is_text)
    return frame


def read_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a Parquet file, refusing one that names a column twice.

    Raises:
        DataLoadError: The file is not Parquet, or names a column twice (one line each).
    """
    import pandas as pd
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    try:
        names = pq.read_schema(path).names
    except Exception as error:  # pyarrow raises many types for a bad file
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise DataLoadError(
            f"cannot read {_named(path)}: it is not a Parquet file ({first_line})"
        ) from error
    _refuse_repeated(path, names, "schema")
    try:
        return pd.read_parquet(path)
    except Exception as error:
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise DataLoadError(f"cannot read {_named(path)}: {first_line}") from error
