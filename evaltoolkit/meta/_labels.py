"""Human labels made in a notebook: the labels file, agreement between annotators, and the
judge measured against them.

A labels file is JSON Lines, one record per line, appended and never rewritten:

- a label: ``{"kind": "label", "item_id", "label", "value", "annotator", "time", "note",
  "text_hash", "level", "scale"}``. Relabelling appends another record; the last one wins
  and the history stays in the file.
- a tag of an item (open coding of a disagreement): ``{"kind": "tag", "item_id",
  "annotator", "tag", "time"}``.

:func:`read_labels` reads it into a tidy frame (one row per item, label and annotator);
:func:`label_agreement` measures how well the annotators agree with each other (Krippendorff's
alpha from ``krippendorff``, Cohen's kappa from scikit-learn, percent agreement; bootstrap
intervals over items); :func:`judge_vs_humans` puts the judge's agreement with the annotators
beside theirs with each other, in the same units; :func:`human_labels` resolves each item's
label (mean of the annotators on a numeric scale, majority for categories) for
:func:`~evaltoolkit.meta.meta_evaluate`, :func:`~evaltoolkit.meta.compare_judges` and the
PromptTuner.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import json
import math
import os
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.files import missing_file_message
from .._internal.reading import encoding_problem
from ..errors import ConfigurationError, DataLoadError
from ..records import encodable_text
from ._resample import FEW_UNITS

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ._resample import FloatArray

__all__ = [
    "HumanComparison",
    "LabelAgreement",
    "LabelScale",
    "append_label_record",
    "human_labels",
    "judge_vs_humans",
    "label_agreement",
    "read_labels",
    "text_hash",
    "with_human_labels",
]

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


def _alpha(codes: FloatArray, domain: FloatArray, level: str) -> float:
    """Krippendorff's alpha of items x raters codes; NaN when undefined."""
    import krippendorff
    import numpy as np

    paired = codes[np.isfinite(codes).sum(axis=1) >= 2]
    if len(paired) == 0 or len(np.unique(paired[np.isfinite(paired)])) < 2 or len(domain) < 2:
        return math.nan
    return float(
        krippendorff.alpha(
            reliability_data=paired.T,
            value_domain=domain,
            level_of_measurement=level,  # type: ignore[arg-type]
        )
    )


def _percent_agreement(codes: FloatArray) -> float:
    """The share of pairs of annotators, over items they share, who gave the same value."""
    import numpy as np

    agreeing = pairs = 0
    for row in codes:
        present = row[np.isfinite(row)]
        for first, second in itertools.combinations(present.tolist(), 2):
            pairs += 1
            agreeing += first == second
    return agreeing / pairs if pairs else math.nan


def _kappa_weights(level: str) -> str | None:
    return "quadratic" if level in ("ordinal", "interval", "ratio") else None


def _kappa_point(first: FloatArray, second: FloatArray, level: str) -> float:
    from ._reliability import cohen_kappa

    weights = _kappa_weights(level)
    try:
        return cohen_kappa(list(first), list(second), weights=weights)  # type: ignore[arg-type]
    except ConfigurationError:
        return math.nan


def _bootstrap(
    statistic: Any, items: int, n_bootstrap: int, confidence: float, seed: int
) -> tuple[float, float]:
    import numpy as np

    from ._resample import percentile_interval

    if not n_bootstrap or items < 2:
        return math.nan, math.nan
    generator = np.random.default_rng(seed)
    samples = np.array(
        [statistic(generator.integers(0, items, size=items)) for _ in range(n_bootstrap)],
        dtype=float,
    )
    return percentile_interval(samples, confidence)


@dataclass(slots=True)
class LabelAgreement:
    """How well annotators agree with each other on the items they share.

    Attributes:
        label: The label measured.
        level: Its level of measurement (nominal, ordinal, interval, ratio).
        annotators: The annotators, in the order they appear.
        table: One row per figure: ``metric, value, ci_low, ci_high, items, annotators``
            (alpha at the level; Cohen's kappa for each pair of annotators, quadratic-weighted
            on a numeric scale; percent agreement).
        disagreements: The items labelled by two or more annotators, largest disagreement
            first: ``item_id``, one column per annotator, ``spread`` (largest minus smallest
            value, or the number of distinct values for categories) and ``notes``.
    """

    label: str
    level: str
    annotators: list[str]
    table: pd.DataFrame
    disagreements: pd.DataFrame

    def value(self, metric: str) -> float:
        """The value of one metric (``alpha_ordinal``, ``percent_agreement``, ...)."""
        rows = self.table[self.table["metric"] == metric]
        return float(rows["value"].iloc[0]) if len(rows) else math.nan

    def __repr__(self) -> str:
        alpha = self.table.iloc[0]
        return (
            f"LabelAgreement({self.label!r}: {alpha['metric']} {alpha['value']:.3f} "
            f"[{alpha['ci_low']:.3f}, {alpha['ci_high']:.3f}] over {alpha['items']} items "
            f"shared by {len(self.annotators)} annotators; percent agreement "
            f"{self.value('percent_agreement'):.3f})"
        )


def label_agreement(
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    label: str | None = None,
    level: str | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> LabelAgreement:
    """Agreement between annotators: Krippendorff's alpha, Cohen's kappa, percent agreement.

    Alpha (``krippendorff``) at the label's level (as recorded by the Annotator: ordinal for
    a numeric range, nominal for pass/fail and categories; ``level=`` overrides), over every
    annotator; Cohen's kappa (scikit-learn) for each pair of annotators on the items both
    labelled, quadratic-weighted unless nominal; percent agreement over pairs of annotators.
    Each with a percentile bootstrap interval, resampling items.

    Args:
        labels: A labels file, or the frame of :func:`read_labels`.
        label: Which label, when the labels hold several.
        level: ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.
        n_bootstrap: Bootstrap resamples (0: no intervals).
        confidence: The intervals' confidence level.
        seed: Seed of the resampling.

    Raises:
        ConfigurationError: No such label, several labels without ``label=``, fewer than two
            annotators, or an unknown level.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"item_id": [1, 2, 3, 1, 2, 3], "label": "ok",
        ...                       "annotator": ["ann"] * 3 + ["bob"] * 3,
        ...                       "value": [1, 2, 3, 1, 2, 2], "level": "ordinal"})
        >>> result = label_agreement(frame, n_bootstrap=0)
        >>> round(result.value("percent_agreement"), 3)
        0.667
    """
    import numpy as np
    import pandas as pd

    rows, label = _one_label(_labels_frame(labels), label)
    level = _level_of(rows, level)
    annotators = list(dict.fromkeys(rows["annotator"].astype(str)))
    if len(annotators) < 2:
        raise ConfigurationError(
            f"agreement on {label!r} needs two or more annotators; the labels hold "
            f"{', '.join(annotators) or 'none'}"
        )
    matrix = _matrix(rows.assign(annotator=rows["annotator"].astype(str)))[annotators]
    codes, domain = _numeric_codes(matrix, level)
    shared = np.isfinite(codes).sum(axis=1) >= 2

    def row(
        metric: str, statistic: Any, items: int, who: str, point: float | None = None
    ) -> dict[str, Any]:
        low, high = _bootstrap(statistic, len(codes), n_bootstrap, confidence, seed)
        value = statistic(np.arange(len(codes))) if point is None else point
        return {
            "metric": metric,
            "value": value,
            "ci_low": low,
            "ci_high": high,
            "items": items,
            "annotators": who,
        }

    every = ", ".join(annotators)
    table = [
        row(
            f"alpha_{level}",
            lambda drawn: _alpha(codes[drawn], domain, level),
            int(shared.sum()),
            every,
        )
    ]
    weights = _kappa_weights(level)
    kappa_name = "kappa" if weights is None else f"kappa_{weights}"
    for first, second in itertools.combinations(range(len(annotators)), 2):
        both = np.isfinite(codes[:, first]) & np.isfinite(codes[:, second])
        if both.sum() < 2:
            continue
        table.append(
            row(
                kappa_name,
                lambda drawn, a=first, b=second: _kappa_drawn(codes[drawn], a, b, domain, level),
                int(both.sum()),
                f"{annotators[first]}, {annotators[second]}",
                # The point estimate is scikit-learn's; the resamples use the same formula.
                point=_kappa_point(codes[both, first], codes[both, second], level),
            )
        )
    table.append(
        row(
            "percent_agreement",
            lambda drawn: _percent_agreement(codes[drawn]),
            int(shared.sum()),
            every,
        )
    )
    return LabelAgreement(
        label=label,
        level=level,
        annotators=annotators,
        table=pd.DataFrame(table),
        disagreements=_disagreements(rows, matrix, codes, level),
    )


def _kappa_drawn(
    drawn: FloatArray, first: int, second: int, domain: FloatArray, level: str
) -> float:
    import numpy as np

    from ._reliability import evenly_spaced, kappa_from_table

    both = np.isfinite(drawn[:, first]) & np.isfinite(drawn[:, second])
    a, b = drawn[both, first], drawn[both, second]
    weights = _kappa_weights(level)
    if weights is None:
        scale = domain
    else:
        try:
            scale = np.array(evenly_spaced(domain.tolist()))
        except ConfigurationError:
            return math.nan
    size = len(scale)
    codes_a, codes_b = np.searchsorted(scale, a), np.searchsorted(scale, b)
    table = np.bincount(codes_a * size + codes_b, minlength=size * size).astype(float)
    return kappa_from_table(table.reshape(size, size), scale, weights)  # type: ignore[arg-type]


def _disagreements(
    rows: pd.DataFrame, matrix: pd.DataFrame, codes: FloatArray, level: str
) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    notes: dict[str, list[str]] = {}
    ids: dict[str, Any] = {}
    for record in rows.to_dict(orient="records"):
        key = _key(record["item_id"])
        ids.setdefault(key, record["item_id"])
        note = record.get("note")
        if isinstance(note, str) and note.strip():
            notes.setdefault(key, []).append(f"{record['annotator']}: {note.strip()}")
    frame = matrix.copy()
    spreads = []
    for row in codes:
        present = row[np.isfinite(row)]
        if len(present) < 2:
            spreads.append(math.nan)
        elif level == "nominal":
            spreads.append(float(len(np.unique(present)) - 1))
        else:
            spreads.append(float(present.max() - present.min()))
    frame["spread"] = spreads
    frame["notes"] = ["; ".join(notes.get(key, [])) for key in frame.index]
    frame.insert(0, "item_id", [ids[key] for key in frame.index])
    frame = frame[frame["spread"].notna()].sort_values("spread", ascending=False, kind="stable")
    frame.columns.name = None
    return pd.DataFrame(frame).reset_index(drop=True)


def _resolve(values: list[Any], level: str) -> Any:
    """One item's label from its annotators: the mean on a numeric scale, else the majority."""
    if level != "nominal" and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        return float(sum(values)) / len(values)
    counts = Counter(values).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None  # a tie has no majority
    return counts[0][0]


def human_labels(
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    label: str | None = None,
    level: str | None = None,
) -> pd.DataFrame:
    """Each item's label resolved from its annotators, with how many labelled it.

    The mean of the annotators' values on a numeric scale (ordinal, interval), the majority
    for categories and pass/fail (a tie leaves the item without a label, with a warning).

    Args:
        labels: A labels file, or the frame of :func:`read_labels`.
        label: Which label, when the labels hold several.
        level: Overrides the recorded level of measurement.

    Returns:
        Columns ``item_id``, the label's name (the resolved value) and ``annotators``.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"item_id": ["a", "a", "b"], "label": "ok",
        ...                       "annotator": ["ann", "bob", "ann"], "value": [2, 3, 5],
        ...                       "level": "ordinal"})
        >>> human_labels(frame).values.tolist()
        [['a', 2.5, 2], ['b', 5.0, 1]]
    """
    import pandas as pd

    rows, label = _one_label(_labels_frame(labels), label)
    level = _level_of(rows, level)
    grouped: dict[str, list[Any]] = {}
    ids: dict[str, Any] = {}
    for item_id, value in zip(rows["item_id"], rows["value"], strict=True):
        ids.setdefault(_key(item_id), item_id)
        grouped.setdefault(_key(item_id), []).append(value)
    resolved = {key: _resolve(values, level) for key, values in grouped.items()}
    ties = [ids[key] for key, value in resolved.items() if value is None]
    if ties:
        warnings.warn(
            f"{len(ties)} item(s) have no majority label for {label!r} (the annotators are "
            f"split evenly), left without a label: {', '.join(map(str, ties[:10]))}",
            UserWarning,
            stacklevel=2,
        )
    return pd.DataFrame(
        {
            "item_id": [ids[key] for key in resolved],
            label: list(resolved.values()),
            "annotators": [len(grouped[key]) for key in resolved],
        }
    )


def with_human_labels(
    frame: pd.DataFrame, labels: str | os.PathLike[str] | pd.DataFrame, *, label: str
) -> pd.DataFrame:
    """The rows of ``frame`` that annotators labelled, with the resolved label as a column.

    Rows are matched on ``item_id`` or ``id`` (else their position, as the Annotator numbers
    items without an id); the label's column and ``annotators`` (how many labelled the item)
    are added. This is how :func:`~evaltoolkit.meta.meta_evaluate`,
    :func:`~evaltoolkit.meta.compare_judges` and the PromptTuner read a labels file.

    Raises:
        ConfigurationError: The frame already has a column of the label's name, or no row
            of it was labelled.
    """
    for taken in (label, "annotators"):
        if taken in frame.columns:
            raise ConfigurationError(
                f"the data already has a column {taken!r}, which the labels file's label would "
                f"replace; rename it first (df.rename(columns={{{taken!r}: 'old_{taken}'}}))"
            )
    resolved = human_labels(labels, label=label)
    by_key = {_key(i): position for position, i in enumerate(resolved["item_id"])}
    id_column = next((c for c in ("item_id", "id") if c in frame.columns), None)
    keys = [_key(i) for i in (frame[id_column] if id_column else range(len(frame)))]
    keep = [position for position, key in enumerate(keys) if key in by_key]
    if not keep:
        raise ConfigurationError(
            f"no item of the data has a label {label!r} in the labels (matched on "
            f"{id_column or 'row position'}); label some items with the Annotator first"
        )
    chosen = frame.iloc[keep].copy()
    found = [by_key[keys[position]] for position in keep]
    chosen[label] = resolved[label].to_numpy()[found]
    chosen["annotators"] = resolved["annotators"].to_numpy()[found]
    return chosen.reset_index(drop=True)


def judge_on_scale(
    scores: Sequence[float] | np.ndarray[Any, Any],
    scale: Sequence[Any],
    *,
    judge_range: tuple[float, float] = (0.0, 1.0),
    threshold: float = 0.5,
) -> list[Any]:
    """The judge's scores as verdicts on the label's scale.

    Pass/fail: ``score >= threshold``. A numeric range: the scale value nearest to the score
    mapped linearly from ``judge_range`` onto the scale. Categories: the score as it is.

    Example:
        >>> judge_on_scale([0.0, 0.5, 0.8, 1.0], (1, 2, 3, 4, 5))
        [1, 3, 4, 5]
    """
    values = list(scale)
    out: list[Any] = []
    low_j, high_j = judge_range
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    for score in scores:
        if score is None or (isinstance(score, float) and math.isnan(score)):
            out.append(None)
        elif set(values) == {True, False} and all(isinstance(v, bool) for v in values):
            out.append(bool(score >= threshold))
        elif numeric and values:
            low, high = min(values), max(values)
            position = low + (float(score) - low_j) / (high_j - low_j) * (high - low)
            out.append(min(values, key=lambda v: (abs(v - position), -v)))
        else:
            out.append(score)
    return out


@dataclass(slots=True)
class HumanComparison:
    """The judge's agreement with the annotators beside theirs with each other.

    Both figures are the mean Krippendorff's alpha over pairs of raters at the label's level:
    each (judge, annotator) pair, and each pair of annotators, on the items both rated.

    Attributes:
        label: The label.
        level: Its level of measurement.
        judge: ``(value, ci_low, ci_high)`` of the judge against the annotators.
        humans: ``(value, ci_low, ci_high)`` of the annotators with each other.
        items: Items with a judge score and at least one human label.
        annotators: The annotators.
        pairs: One row per pair of raters: ``pair``, ``kind`` (judge-human, human-human),
            ``alpha``, ``items``.
        gaps: One row per item: ``item_id``, ``judge`` (on the label's scale), ``human``
            (resolved), ``gap`` (judge minus human; for categories 1 where they differ).
    """

    label: str
    level: str
    judge: tuple[float, float, float]
    humans: tuple[float, float, float]
    items: int
    annotators: list[str]
    pairs: pd.DataFrame = field(repr=False)
    gaps: pd.DataFrame = field(repr=False)

    @property
    def verdict(self) -> str:
        """The comparison in words: too few items (fewer than 10), intervals that overlap, or
        the judge's agreement below or above the annotators'."""
        judge, humans = self.judge[0], self.humans[0]
        if math.isnan(judge) or math.isnan(humans):
            return "not enough shared items to compare"
        if self.items < FEW_UNITS:
            return (
                f"{self.items} items (fewer than {FEW_UNITS}) are too few to tell the judge's "
                "agreement from the annotators'"
            )
        low, high = self.judge[1], self.judge[2]
        human_low, human_high = self.humans[1], self.humans[2]
        if abs(judge - humans) < 0.05:
            return (
                "the judge agrees with the annotators about as well as they agree with each other"
            )
        if max(low, human_low) <= min(high, human_high):
            return (
                "the two intervals overlap: these items cannot tell the judge's agreement from "
                "the annotators'"
            )
        side = "below" if judge < humans else "above"
        return (
            f"the judge agrees with the annotators {abs(judge - humans):.2f} {side} their "
            "agreement with each other"
        )

    def __str__(self) -> str:
        def part(figure: tuple[float, float, float]) -> str:
            value, low, high = figure
            interval = "" if math.isnan(low) else f" [{low:.2f}, {high:.2f}]"
            return f"{value:.2f}{interval}"

        return (
            f"{self.label}: judge vs annotators alpha_{self.level} {part(self.judge)}, "
            f"annotators vs each other {part(self.humans)} ({self.items} items, "
            f"{len(self.annotators)} annotators): {self.verdict}"
        )

    def __repr__(self) -> str:
        return f"HumanComparison({self})"


def _judge_frame(scores: Any, score: str | None) -> tuple[list[Any], list[float]]:
    import pandas as pd

    if not isinstance(scores, pd.DataFrame):
        from ..records import as_eval_result

        result = as_eval_result(scores)
        ids, values = [], []
        for item in result.items:
            names = list(item.scorer_results)
            name = score if score in names else (names[0] if names else None)
            if name is None:
                continue
            ids.append(item.item_id)
            values.append(item.scorer_results[name].score)
        return ids, values
    column = score or "score"
    if column not in scores.columns:
        raise ConfigurationError(
            f"no score column {column!r} in the scores; its columns are "
            f"{', '.join(map(str, scores.columns))}. Name it with score="
        )
    id_column = next((c for c in ("item_id", "id") if c in scores.columns), None)
    ids = list(scores[id_column]) if id_column else list(range(len(scores)))
    return ids, [float(v) for v in scores[column]]


def judge_vs_humans(
    scores: Any,
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    label: str | None = None,
    score: str | None = None,
    judge_range: tuple[float, float] = (0.0, 1.0),
    threshold: float = 0.5,
    level: str | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> HumanComparison:
    """How well the judge agrees with the annotators, beside how well they agree with each other.

    The judge's scores become verdicts on the label's scale (:func:`judge_on_scale`); then the
    mean Krippendorff's alpha over (judge, annotator) pairs is set beside the mean over pairs
    of annotators, each with a percentile bootstrap interval resampling items.

    Args:
        scores: A frame with ``item_id`` and a score column (``MetaEvaluation.scores``), or an
            EvalResult / saved results.
        labels: A labels file, or the frame of :func:`read_labels`.
        label: Which label, when the labels hold several.
        score: The score column (default ``score``), or the scorer id of a result.
        judge_range: The judge's score range, mapped onto a numeric label scale.
        threshold: The pass mark for a pass/fail label.
        level: Overrides the recorded level of measurement.
        n_bootstrap: Bootstrap resamples (0: no intervals).
        confidence: The intervals' confidence level.
        seed: Seed of the resampling.

    Example:
        >>> import pandas as pd
        >>> labels = pd.DataFrame({"item_id": [1, 2, 3, 1, 2, 3], "label": "ok",
        ...                        "annotator": ["ann"] * 3 + ["bob"] * 3,
        ...                        "value": [1, 3, 5, 1, 3, 4], "level": "ordinal",
        ...                        "scale": [(1, 2, 3, 4, 5)] * 6})
        >>> scores = pd.DataFrame({"item_id": [1, 2, 3], "score": [0.0, 0.5, 1.0]})
        >>> comparison = judge_vs_humans(scores, labels, n_bootstrap=0)
        >>> comparison.gaps["item_id"].tolist(), comparison.gaps["gap"].tolist()
        ([3, 1, 2], [0.5, 0.0, 0.0])
    """
    import numpy as np
    import pandas as pd

    rows, label = _one_label(_labels_frame(labels), label)
    level = _level_of(rows, level)
    annotators = list(dict.fromkeys(rows["annotator"].astype(str)))
    recorded = [s for s in rows.get("scale", []) if isinstance(s, tuple | list)]
    scale = tuple(recorded[-1]) if recorded else tuple(sorted(set(rows["value"]), key=str))
    ids, values = _judge_frame(scores, score)
    verdicts = dict(
        zip(
            map(_key, ids),
            judge_on_scale(values, scale, judge_range=judge_range, threshold=threshold),
            strict=True,
        )
    )
    matrix = _matrix(rows.assign(annotator=rows["annotator"].astype(str)))[annotators]
    matrix = matrix[[key in verdicts for key in matrix.index]]
    judge_column = "\x00judge"
    matrix[judge_column] = [verdicts[key] for key in matrix.index]
    codes, domain = _numeric_codes(matrix, level)
    judge_index = codes.shape[1] - 1
    pair_list = list(itertools.combinations(range(codes.shape[1]), 2))

    def mean_alpha(drawn: np.ndarray[Any, Any], with_judge: bool) -> float:
        found = [
            _alpha(codes[drawn][:, [a, b]], domain, level)
            for a, b in pair_list
            if (judge_index in (a, b)) == with_judge
        ]
        finite = [value for value in found if not math.isnan(value)]
        return float(np.mean(finite)) if finite else math.nan

    every = np.arange(len(codes))

    def figure(with_judge: bool) -> tuple[float, float, float]:
        low, high = _bootstrap(
            lambda drawn: mean_alpha(drawn, with_judge), len(codes), n_bootstrap, confidence, seed
        )
        return mean_alpha(every, with_judge), low, high

    names = [*annotators, "judge"]
    pairs = pd.DataFrame(
        [
            {
                "pair": f"{names[a]}, {names[b]}",
                "kind": "judge-human" if judge_index in (a, b) else "human-human",
                "alpha": _alpha(codes[:, [a, b]], domain, level),
                "items": int((np.isfinite(codes[:, a]) & np.isfinite(codes[:, b])).sum()),
            }
            for a, b in pair_list
        ]
    )
    resolved = human_labels(rows, label=label, level=level) if len(rows) else None
    human_of = (
        {}
        if resolved is None
        else dict(zip(map(_key, resolved["item_id"]), resolved[label], strict=True))
    )
    gap_rows = []
    for key, item_id in zip(map(_key, ids), ids, strict=True):
        if key not in human_of:
            continue
        judge, human = verdicts[key], human_of[key]
        if judge is None or human is None:
            gap = math.nan
        elif level == "nominal":
            gap = float(judge != human)
        else:
            gap = float(judge) - float(human)
        gap_rows.append({"item_id": item_id, "judge": judge, "human": human, "gap": gap})
    gaps = pd.DataFrame(gap_rows, columns=["item_id", "judge", "human", "gap"])
    order = gaps["gap"].abs().sort_values(ascending=False, kind="stable").index
    return HumanComparison(
        label=label,
        level=level,
        judge=figure(True),
        humans=figure(False),
        items=int((np.isfinite(codes[:, :judge_index]).sum(axis=1) >= 1).sum()),
        annotators=annotators,
        pairs=pairs,
        gaps=gaps.loc[order].reset_index(drop=True),
    )


def is_labels_source(labels: Any) -> bool:
    """Whether ``labels`` is a labels file or frame (rather than the name of a field)."""
    import pandas as pd

    if isinstance(labels, pd.DataFrame | os.PathLike):
        return True
    # A name that looks like a path is one, even when the file is missing (a typo is then
    # "no such labels file", not an unknown field).
    return isinstance(labels, str) and (labels.endswith(".jsonl") or os.sep in labels)


def attach_human_labels(items: Sequence[Any], labels: Any, *, label: str | None = None) -> str:
    """Set each data item's resolved human label as a field (in place); return its name.

    Items without a label get None in that field. For the PromptTuner, whose items are
    :func:`~evaltoolkit.load_items` items (``item_id`` and ``fields``).
    """
    frame = _labels_frame(labels)
    _, name = _one_label(frame, label)
    resolved = human_labels(frame, label=name)
    by_key = dict(zip(map(_key, resolved["item_id"]), resolved[name], strict=True))
    for item in items:
        value = by_key.get(_key(item.item_id))
        item.fields[name] = None if value is None or value != value else value
    return name


@dataclass(frozen=True, slots=True)
class ItemLabels:
    """What the annotators said about one item, for a view beside the judge's verdict."""

    human: Any
    annotators: int
    notes: str
    tags: tuple[str, ...]


def labels_by_item(
    labels: str | os.PathLike[str] | pd.DataFrame, *, label: str | None = None
) -> tuple[str, tuple[Any, ...], dict[str, ItemLabels]]:
    """The label's name, its scale, and each item's resolved label, notes and tags, by item id.

    Item ids are keyed as text (``"1"`` for ``1``).
    """
    frame = _labels_frame(labels)
    rows, name = _one_label(frame, label)
    resolved = human_labels(rows, label=name)
    recorded = [s for s in rows.get("scale", []) if isinstance(s, tuple | list)]
    scale = tuple(recorded[-1]) if recorded else tuple(sorted(set(rows["value"]), key=str))
    notes: dict[str, list[str]] = {}
    for record in rows.to_dict(orient="records"):
        note = record.get("note")
        if isinstance(note, str) and note.strip():
            notes.setdefault(_key(record["item_id"]), []).append(
                f"{record['annotator']}: {note.strip()}"
            )
    tags: dict[str, dict[str, None]] = {}
    if "tags" in frame.columns:
        for item_id, item_tags in zip(frame["item_id"], frame["tags"], strict=True):
            if isinstance(item_tags, tuple | list):
                tags.setdefault(_key(item_id), {}).update(dict.fromkeys(map(str, item_tags)))
    found = {
        _key(item_id): ItemLabels(
            human=value,
            annotators=int(count),
            notes="; ".join(notes.get(_key(item_id), [])),
            tags=tuple(tags.get(_key(item_id), {})),
        )
        for item_id, value, count in zip(
            resolved["item_id"], resolved[name], resolved["annotators"], strict=True
        )
    }
    return name, scale, found
