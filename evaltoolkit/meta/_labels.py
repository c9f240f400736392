"""The labels file the Annotator writes: appending records, reading them back, and its frames.

A labels file is JSON Lines, one record per line, appended and never rewritten:

- a label: ``{"kind": "label", "item_id", "label", "value", "annotator", "time", "note",
  "text_hash", "level", "scale"}``. Relabelling appends another record; the last one wins
  and the history stays in the file.
- a tag of an item (open coding of a disagreement): ``{"kind": "tag", "item_id",
  "annotator", "tag", "time"}``.

:func:`read_labels` reads it into a tidy frame (one row per item, label and annotator).
The other label modules build on it: :mod:`._annotator_agreement` (annotators with each
other), :mod:`._human_labels` (each item's resolved label) and :mod:`._human_comparison`
(the judge beside the annotators).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.files import missing_file_message
from .._internal.reading import encoding_problem
from ..errors import ConfigurationError, DataLoadError
from ..records._internal import encodable_text

if TYPE_CHECKING:
    import pandas as pd

    from .stats.resampling import FloatArray

__all__ = ["LabelScale", "append_label_record", "read_labels", "text_hash"]

LABEL_COLUMNS = [
    "item_id",
    "label",
    "annotator",
    "value",
    "note",
    "time",
    "text_hash",
    "level",
    "scale",
    "tags",
]

#: The columns of :func:`read_labels`' frame with ``history=True`` (every record).
HISTORY_COLUMNS = ["kind", *LABEL_COLUMNS[:-1], "tag"]


@dataclass(frozen=True, slots=True)
class LabelScale:
    """The values a label may take and its level of measurement.

    Attributes:
        values: Every value, in order (1-5 ratings, ``True``/``False``, categories).
        level: ``"ordinal"`` for a numeric range, ``"nominal"`` for pass/fail and categories.
    """

    values: tuple[Any, ...]
    level: str

    @classmethod
    def parse(cls, scale: Any, *, label: str = "label") -> LabelScale:
        """A scale from ``(low, high)`` (integers), ``bool``, or a list of categories.

        Raises:
            ConfigurationError: Anything else, naming the label.

        Example:
            >>> LabelScale.parse((1, 5)).values
            (1, 2, 3, 4, 5)
            >>> LabelScale.parse(bool).level
            'nominal'
        """
        if scale is bool:
            return cls((True, False), "nominal")
        if (
            isinstance(scale, tuple)
            and len(scale) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in scale)
            and scale[0] < scale[1]
        ):
            low, high = scale
            if high - low > 20:
                raise ConfigurationError(
                    f"scale for {label!r}: {scale!r} has {high - low + 1} values; a rating "
                    "scale has at most 21 (use (1, 5), (0, 10), ...)"
                )
            return cls(tuple(range(low, high + 1)), "ordinal")
        if (
            isinstance(scale, list)
            and len(scale) >= 2
            and all(isinstance(v, str) and v for v in scale)
            and len(set(scale)) == len(scale)
        ):
            return cls(tuple(scale), "nominal")
        raise ConfigurationError(
            f"unknown scale {scale!r} for {label!r}: use an integer range such as (1, 5), bool "
            "for pass/fail, or a list of two or more distinct category names"
        )

    def check(self, value: Any, *, label: str) -> Any:
        """The value as stored, or a ConfigurationError naming the allowed values."""
        for allowed in self.values:
            if type(allowed) is type(value) and allowed == value:
                return allowed
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            if self.level == "ordinal" and numeric and float(value) == allowed:
                return allowed
        shown = ", ".join(map(repr, self.values))
        raise ConfigurationError(f"{value!r} is not a value of {label!r}; choose one of {shown}")


def text_hash(*texts: Any) -> str:
    """A short hash of the texts an annotator saw (to notice when they change).

    Example:
        >>> text_hash("a", "b") == text_hash("a", "b") != text_hash("a", "c")
        True
    """
    encoded = json.dumps(list(texts), ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:16]


def now() -> str:
    """The current UTC time, ISO 8601 with milliseconds."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def append_label_record(path: Path, record: Mapping[str, Any]) -> None:
    """Append one record as a JSON line, flushed and synced to disk before returning; a record
    without a ``time`` is stamped with the current UTC time.

    A process killed after this returns keeps the record; one killed during the write leaves
    at most a partial last line, which :func:`read_labels` skips with a warning. The next
    record starts a line of its own, so it is never lost by being joined to that partial line.
    """
    stamped = {**record, "time": record.get("time") or now()}
    line = encodable_text(json.dumps(stamped, ensure_ascii=False, default=str)) + "\n"
    with path.open("a+b") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell():
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":  # a partial last line: end it first
                line = "\n" + line
        handle.write(line.encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())


def _encodable(value: Any) -> Any:
    """Texts (keys too) as UTF-8 can encode them: a ``\\ud800`` escape becomes U+FFFD."""
    if isinstance(value, str):
        return encodable_text(value)
    if isinstance(value, dict):
        return {_encodable(key): _encodable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_encodable(item) for item in value]
    return value


def _lines_text(numbers: Sequence[int]) -> str:
    shown = ", ".join(map(str, numbers[:10])) + (", ..." if len(numbers) > 10 else "")
    return f"line{'s' if len(numbers) > 1 else ''} {shown}"


def _not_a_labels_file(path: Path, why: str) -> DataLoadError:
    return DataLoadError(
        f"{str(path)!r} is not a labels file ({why}); give the path of a labels file the "
        "Annotator wrote, or a new path"
    )


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The file's records with their line numbers; unreadable lines are skipped with a
    warning, and a file that is not a labels file at all is refused."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as error:
        raise DataLoadError(f"cannot read the labels file {str(path)!r}: {error}") from error
    problem = encoding_problem(data[:4096])
    if problem is not None:
        raise _not_a_labels_file(path, problem.partition(":")[0])
    records: list[tuple[int, dict[str, Any]]] = []
    skipped: list[int] = []
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8-sig" if number == 1 else "utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            skipped.append(number)
            continue
        if not isinstance(record, dict) or "item_id" not in record:
            skipped.append(number)
            continue
        records.append((number, _encodable(record)))
    partial = len(lines) if lines[-1].strip() and skipped[-1:] == [len(lines)] else None
    damaged = [number for number in skipped if number != partial]
    if damaged and not records:
        raise _not_a_labels_file(path, f"none of its {len(skipped)} lines is a label record")
    if partial is not None:
        warnings.warn(
            f"labels file {str(path)!r}: skipped line {partial}, a partial last line (what a "
            "process killed while writing leaves behind); the next label starts a new line",
            UserWarning,
            stacklevel=3,
        )
    if damaged:
        warnings.warn(
            f"labels file {str(path)!r}: skipped {len(damaged)} unreadable "
            f"{_lines_text(damaged)}: not a JSON object with an item_id (edited by hand?)",
            UserWarning,
            stacklevel=3,
        )
    return records


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "pass/fail"
    if isinstance(value, int | float):
        return "number" if math.isfinite(value) else "infinite"
    return "text" if isinstance(value, str) else type(value).__name__


def _recorded_scale(record: Mapping[str, Any]) -> LabelScale | None:
    scale = record.get("scale")
    if not isinstance(scale, list | tuple) or len(scale) < 2:
        return None
    level = record.get("level")
    numeric = all(isinstance(v, int) and not isinstance(v, bool) for v in scale)
    return LabelScale(
        tuple(scale), level if isinstance(level, str) else ("ordinal" if numeric else "nominal")
    )


def _usable_labels(
    records: Sequence[Mapping[str, Any]],
    where: Sequence[str],
    *,
    source: str,
    missing_is_an_error: bool = True,
) -> list[int]:
    """The positions of the label records that can be used; the others are named in warnings.

    A record is set aside when it has no annotator, or a value that is not on its label's
    scale: the scale recorded with it (the Annotator records it), else the kind of value
    most of the label's records have (numbers, pass/fail or text), finite numbers only. A
    whole number written as a float (``4.0``) is on an integer scale.

    Args:
        records: Label records (tag records and rows without a label are kept as they are).
        where: Each record's place, for the warnings (``"line 13"``).
        source: The file or frame, for the warnings.
        missing_is_an_error: Whether a record without a value is set aside with a warning
            (in a file) or left for the caller to drop (a frame's missing cell).
    """
    kinds: dict[str, Counter[str]] = {}
    for record in records:
        labelled = record.get("kind", "label") == "label" and _present(record.get("value"))
        if labelled and _recorded_scale(record) is None:
            kinds.setdefault(str(record.get("label")), Counter())[_kind(record["value"])] += 1
    usual = {label: counts.most_common(1)[0][0] for label, counts in kinds.items()}
    kept: list[int] = []
    no_annotator: list[str] = []
    off_scale: list[str] = []
    for position, record in enumerate(records):
        if record.get("kind", "label") != "label" or not _present(record.get("label")):
            kept.append(position)
            continue
        label, value = str(record["label"]), record.get("value")
        who = record.get("annotator")
        if not isinstance(who, str) or not who.strip():
            no_annotator.append(where[position])
            continue
        if not _present(value):
            if missing_is_an_error:
                off_scale.append(f"{where[position]} (no value)")
            else:
                kept.append(position)
            continue
        scale = _recorded_scale(record)
        if scale is not None:
            try:
                scale.check(value, label=label)
            except ConfigurationError:
                shown = ", ".join(map(repr, scale.values))
                off_scale.append(f"{where[position]} ({value!r} is not one of {shown})")
                continue
        elif _kind(value) != usual.get(label, _kind(value)) or _kind(value) == "infinite":
            off_scale.append(
                f"{where[position]} ({value!r} is {_kind(value)}, where {label!r} holds "
                f"{usual.get(label)} values)"
            )
            continue
        kept.append(position)
    if no_annotator:
        warnings.warn(
            f"labels in {source}: {_lines_text_of(no_annotator)} hold a label without an "
            'annotator, set aside; add "annotator": "<name>" to each',
            UserWarning,
            stacklevel=3,
        )
    if off_scale:
        warnings.warn(
            f"labels in {source}: {len(off_scale)} value(s) off the label's scale, set aside: "
            f"{'; '.join(off_scale[:10])}{'; ...' if len(off_scale) > 10 else ''}. Correct "
            "the value, or delete the line",
            UserWarning,
            stacklevel=3,
        )
    return kept


def _lines_text_of(places: Sequence[str]) -> str:
    """``line 13`` and ``line 14`` as ``lines 13, 14`` (other places as they are)."""
    if all(place.startswith("line ") for place in places):
        return _lines_text([int(place.removeprefix("line ")) for place in places])
    return ", ".join(places[:10]) + (", ..." if len(places) > 10 else "")


def _key(item_id: Any) -> str:
    """Item ids compare as text (``1`` and ``"1"`` are the same item, as on loading)."""
    return str(item_id)


def read_labels(path: str | os.PathLike[str], *, history: bool = False) -> pd.DataFrame:
    """Read a labels file into a tidy frame: one row per item, label and annotator.

    The last record of each (item, label, annotator) wins; ``history=True`` returns every
    record instead, in file order. The tags an annotator gave an item come back in the
    ``tags`` column of their row, a tuple, so failure modes can be counted
    (``frame.explode("tags")["tags"].value_counts()``); tags on an item the annotator did not
    label get a row of their own without a label or value. Unreadable lines (a partial last
    line) are skipped with a warning; so are labels without an annotator and values off
    the label's scale (``"three"``, ``7`` or ``4.5`` on a 1-5 scale, ``inf``, ``true``),
    each named by its line. A file that is not a labels file is refused.

    Args:
        path: The labels file the Annotator writes.
        history: Every record (labels and tags) instead of the last values.

    Returns:
        Columns ``item_id, label, annotator, value, note, time, text_hash, level, scale,
        tags``; an empty frame with these columns when the file does not exist (the
        Annotator's first start; the functions that measure labels say "no such file").

    Raises:
        DataLoadError: The file is not a labels file (not UTF-8 text, or no line of it is a
            label record).

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.jsonl"
        >>> append_label_record(path, {"kind": "label", "item_id": "a", "label": "ok",
        ...                      "annotator": "ann", "value": 2})
        >>> append_label_record(path, {"kind": "label", "item_id": "a", "label": "ok",
        ...                      "annotator": "ann", "value": 4})
        >>> read_labels(path)["value"].tolist(), len(read_labels(path, history=True))
        ([4], 2)
    """
    import pandas as pd

    numbered = _records(Path(path))
    if history:
        rows = [{column: r.get(column) for column in HISTORY_COLUMNS} for _, r in numbered]
        for row in rows:
            row["kind"] = row["kind"] or "label"
        return pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    every = [record for _, record in numbered]
    usable = _usable_labels(
        every, [f"line {number}" for number, _ in numbered], source=f"the file {str(path)!r}"
    )
    records = [every[position] for position in usable]
    latest: dict[tuple[str, str, str], dict[str, Any]] = {}
    tags: dict[tuple[str, str], dict[str, None]] = {}
    tag_ids: dict[tuple[str, str], Any] = {}
    for record in records:
        who = str(record.get("annotator"))
        if record.get("kind", "label") == "tag":
            tag = record.get("tag")
            if isinstance(tag, str) and tag.strip():
                tags.setdefault((_key(record["item_id"]), who), {})[tag.strip()] = None
                tag_ids[(_key(record["item_id"]), who)] = record["item_id"]
            continue
        key = (_key(record["item_id"]), str(record.get("label")), who)
        latest.pop(key, None)  # keep the order of each key's last record
        latest[key] = record
    rows = []
    for (item, _, who), record in latest.items():
        row = {column: record.get(column) for column in LABEL_COLUMNS[:-1]}
        scale = row["scale"]
        row["scale"] = tuple(scale) if isinstance(scale, list) else scale
        row["tags"] = tuple(tags.pop((item, who), {}))
        rows.append(row)
    for (item, who), tagged in tags.items():  # tags on items their annotator did not label
        row = dict.fromkeys(LABEL_COLUMNS)
        row.update(item_id=tag_ids[(item, who)], annotator=who, tags=tuple(tagged))
        rows.append(row)
    return pd.DataFrame(rows, columns=LABEL_COLUMNS)


def _labels_frame(labels: str | os.PathLike[str] | pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    if isinstance(labels, pd.DataFrame):
        missing = {"item_id", "label", "annotator", "value"} - set(labels.columns)
        if missing:
            raise ConfigurationError(
                f"the labels frame lacks the column(s) {', '.join(sorted(missing))}; pass the "
                "frame of meta.read_labels(path), or the path itself"
            )
        usable = _usable_labels(
            [{str(key): value for key, value in row.items()} for row in labels.to_dict("records")],
            [f"row {position}" for position in range(len(labels))],
            source="the labels frame",
            missing_is_an_error=False,
        )
        return labels if len(usable) == len(labels) else labels.iloc[usable]
    if isinstance(labels, str | os.PathLike):
        if not Path(labels).exists():
            raise DataLoadError(missing_file_message(labels, what="labels file"))
        return read_labels(labels)
    raise ConfigurationError(
        f"labels must be a labels file path or the frame of meta.read_labels, got "
        f"{type(labels).__name__}"
    )


def _one_label(frame: pd.DataFrame, label: str | None) -> tuple[pd.DataFrame, str]:
    frame = frame[frame["label"].notna()]
    names = list(dict.fromkeys(frame["label"].astype(str)))
    if label is None:
        if len(names) != 1:
            raise ConfigurationError(
                f"the labels hold {len(names)} labels ({', '.join(names) or 'none'}); name one "
                "with label="
            )
        label = names[0]
    elif label not in names:
        raise ConfigurationError(
            f"no label {label!r} in the labels; they hold {', '.join(names) or 'no label yet'}"
        )
    rows = frame[frame["label"].astype(str) == label]
    return rows[rows["value"].notna()], label


def _level_of(rows: pd.DataFrame, level: str | None) -> str:
    if level is not None:
        if level not in ("nominal", "ordinal", "interval", "ratio"):
            raise ConfigurationError(
                f"unknown level {level!r}; choose nominal, ordinal, interval or ratio"
            )
        return level
    recorded = [value for value in rows.get("level", []) if isinstance(value, str)]
    if recorded:
        return Counter(recorded).most_common(1)[0][0]
    values = list(rows["value"])
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    return "ordinal" if numeric else "nominal"


def _matrix(rows: pd.DataFrame) -> pd.DataFrame:
    """Items x annotators of the values (missing where an annotator did not label)."""
    keyed = rows.assign(item_key=rows["item_id"].map(_key))
    return keyed.pivot_table(
        index="item_key", columns="annotator", values="value", aggfunc="last", sort=False
    )


def _numeric_codes(matrix: pd.DataFrame, level: str) -> tuple[FloatArray, FloatArray]:
    """The matrix as floats (categories as codes) and the value domain."""
    import numpy as np

    values = [v for v in matrix.to_numpy().ravel() if v is not None and v == v]
    numeric = all(
        isinstance(v, int | float | np.number) and not isinstance(v, bool) for v in values
    )
    if numeric and level != "nominal":
        codes = matrix.to_numpy(dtype=float, na_value=np.nan)
        return codes, np.unique(codes[np.isfinite(codes)])
    categories = sorted({str(v) for v in values})
    index = {category: float(position) for position, category in enumerate(categories)}
    codes = np.array(
        [
            [index[str(v)] if v is not None and v == v else math.nan for v in row]
            for row in matrix.to_numpy()
        ],
        dtype=float,
    )
    return codes, np.arange(len(categories), dtype=float)
