"""The run record :class:`EvalResult`: its rows (long or wide), their export, rows read back.

``EvalResult.to_frame()`` / ``to_wide()`` flatten a run into rows of scalars, and
``EvalResult.from_frame()`` rebuilds the run from such rows, with an error naming the row and
the column where a row cannot be read.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from .._internal.secrets import secret_masker
from ..errors import ConfigurationError

if TYPE_CHECKING:
    import pandas as pd
from ._columns import (
    _FIXED_COLUMNS,
    _INT_TEXT,
    _ITEM_COLUMNS,
    _LEADING_COLUMNS,
    _NUMBER_KEYS,
    _RECORD_KEYS,
    EXPORT_COLUMNS,
    Scalar,
    _column_values,
    _frame_of,
    _frame_row,
    _is_missing,
    _missing_columns_message,
    _parsed_json,
    _wide_scorers,
    new_run_id,
)
from ._export import (
    _export_ready,
    _format_score,
    _storable_row,
    _write_atomically,
    write_json_lines,
)
from ._parts import (
    ItemResult,
    ScoreResult,
    ScoreSummary,
    StepError,
    Usage,
    _calls_of,
    sum_cost,
    sum_usage,
)


@dataclass(slots=True)
class EvalResult:
    """The result of a run: one :class:`ItemResult` per data item, in data order.

    Example:
        >>> from evaltoolkit import create_textual_difference_scorer, run_evals
        >>> result = run_evals(
        ...     [{"input": "q", "output": "Paris", "ground_truth": "Paris"}],
        ...     [create_textual_difference_scorer()],
        ...     progress=False,
        ... )
        >>> result.scores["textual-difference"].mean
        1.0
    """

    items: list[ItemResult]
    scorer_ids: list[str]
    run_id: str = field(default_factory=new_run_id)
    elapsed_s: float = 0.0

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[ItemResult]:
        return iter(self.items)

    @overload
    def __getitem__(self, key: int) -> ItemResult: ...

    @overload
    def __getitem__(self, key: slice) -> list[ItemResult]: ...

    @overload
    def __getitem__(self, key: str) -> ItemResult: ...

    def __getitem__(self, key: int | slice | str) -> ItemResult | list[ItemResult]:
        """An item by position (``result[0]``), a slice of items, or an item by its text id.

        An integer is always a position, as in a list; look up an item whose id is a number
        with ``next(item for item in result if item.item_id == 12)``.

        Raises:
            KeyError: No item has that id, or several do (then index by position).

        Example:
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"id": "harbour-bridge-1", "input": "q", "output": "a"}],
            ...                    create_textual_difference_scorer(), progress=False)
            >>> result["harbour-bridge-1"] is result[0]
            True
        """
        if not isinstance(key, str):
            return self.items[key]
        positions = [n for n, item in enumerate(self.items) if item.item_id == key]
        if len(positions) == 1:
            return self.items[positions[0]]
        if positions:
            shown = ", ".join(map(str, positions[:5]))
            raise KeyError(
                f"{len(positions)} items have the id {key!r} (positions {shown}); index them "
                f"by position, as in result[{positions[0]}]"
            )
        ids = ", ".join(repr(item.item_id) for item in self.items[:3])
        more = ", ..." if len(self.items) > 3 else ""
        raise KeyError(f"no item has the id {key!r}; the ids are {ids}{more}")

    def results(self, scorer: str) -> list[ScoreResult]:
        """Every item's result for one scorer id, in data order."""
        if scorer not in self.scorer_ids:
            raise KeyError(f"no scorer {scorer!r} in this run; it has {self.scorer_ids}")
        return [item.scorer_results[scorer] for item in self.items]

    @property
    def scores(self) -> dict[str, ScoreSummary]:
        """Mean score per scorer id (NaN scores skipped), with the counts scored and failed."""
        summaries: dict[str, ScoreSummary] = {}
        for scorer in self.scorer_ids:
            results = self.results(scorer)
            skipped = sum(1 for result in results if result.not_scored is not None)
            values = [result.score for result in results if result.not_scored is None]
            scored = [value for value in values if not math.isnan(value)]
            mean = math.fsum(scored) / len(scored) if scored else math.nan
            summaries[scorer] = ScoreSummary(mean, len(scored), len(values) - len(scored), skipped)
        return summaries

    @property
    def usage(self) -> Usage | None:
        """Tokens spent by the run (cache hits excluded), None when no call reported any."""
        return sum_usage([result.usage for result in self._all_results()])

    @property
    def cost(self) -> float | None:
        """Cost of the run (cache hits excluded); None when any call's cost is unknown."""
        return sum_cost([result.cost for result in self._all_results() if result.calls])

    def _all_results(self) -> Iterator[ScoreResult]:
        for item in self.items:
            yield from item.scorer_results.values()

    def summary(self) -> pd.DataFrame:
        """One row per scorer: mean, scored, failed (and not_scored, when a budget stopped
        the run before some items)."""
        import pandas as pd

        scores = self.scores
        budget_stopped = any(s.not_scored for s in scores.values())
        return pd.DataFrame(
            [
                {
                    "scorer": scorer,
                    "mean": s.mean,
                    "scored": s.scored,
                    "failed": s.failed,
                    **({"not_scored": s.not_scored} if budget_stopped else {}),
                }
                for scorer, s in scores.items()
            ]
        )

    def rule_counts(self) -> pd.DataFrame:
        """How often each named rule decided a verdict in this run.

        The offline summarization judge names the rule behind each claim and question verdict
        (the ``rule`` field of the step results); this counts them per scorer and per list of
        verdicts (``alignment`` for claims, ``coverage`` for questions). Verdicts without a
        rule (a model judge's) and failed items are left out.

        Returns:
            Columns scorer, step, rule, count: most frequent first within each scorer and
            step; no rows when no verdict names a rule.

        Example:
            >>> from evaltoolkit import create_summarization_scorer, run_evals
            >>> result = run_evals(
            ...     [{"input": "Acme was founded in 1995 in Boston.",
            ...       "output": "Acme was founded in 1997."}],
            ...     create_summarization_scorer(reason="template"),
            ...     progress=False,
            ... )
            >>> result.rule_counts().query("step == 'alignment'").to_dict("records")
            [{'scorer': 'summarization', 'step': 'alignment', 'rule': 'low_support', 'count': 1}]
        """
        import pandas as pd

        counts: dict[tuple[str, str, str], int] = {}
        for result in self._all_results():
            for steps in (result.preprocess_step_result, result.analyze_step_result):
                for step, entries in (steps or {}).items():
                    for entry in entries if isinstance(entries, list) else []:
                        if isinstance(entry, Mapping) and isinstance(entry.get("rule"), str):
                            key = (result.scorer, step, entry["rule"])
                            counts[key] = counts.get(key, 0) + 1
        rows = [(*key, count) for key, count in counts.items()]
        rows.sort(key=lambda row: (row[0], row[1], -row[3], row[2]))
        return pd.DataFrame(rows, columns=["scorer", "step", "rule", "count"])

    def to_frame(self) -> pd.DataFrame:
        """One row per item and scorer.

        Columns: item_id, scorer, score, reason, error, error_step, then each scorer's
        details, the item's own columns (:meth:`ItemResult.item_columns`: item_index, input,
        output, ground_truth, notes and the item's other fields), and the bookkeeping
        columns of :meth:`ScoreResult.to_record`. A row without a column's key (a detail
        another scorer reports) holds a missing value there, as does a key whose value is
        None. Characters that UTF-8 cannot encode (lone surrogates, say from a target's
        output) appear as U+FFFD, so the frame always exports, and the values of secret-named
        environment variables and of judges' keys appear as ``***``. :meth:`from_frame` and
        :func:`read_results` turn these rows back into an EvalResult.
        """
        rows: list[dict[str, Scalar]] = []
        masker = secret_masker(key_shapes=False)
        for item in self.items:
            for result in item.scorer_results.values():
                record = result.to_record()
                row: dict[str, Scalar] = {"item_id": item.item_id}
                row.update({key: record.pop(key) for key in _LEADING_COLUMNS[1:]})
                detail_keys = [key for key in result.details if key in record]
                row.update({key: record.pop(key) for key in detail_keys})
                for key, value in item.item_columns().items():
                    row[key if key not in record and key not in row else f"item_{key}"] = value
                row.update(record)
                rows.append(_storable_row(row, masker))
        return _frame_of(rows, empty_columns=_LEADING_COLUMNS)

    def to_wide(self) -> pd.DataFrame:
        """One row per item: the item's fields, then ``<scorer id>.<column>`` per scorer."""
        rows: list[dict[str, Scalar]] = []
        masker = secret_masker(key_shapes=False)
        for item in self.items:
            row: dict[str, Scalar] = {"item_id": item.item_id, **item.item_columns()}
            for scorer, result in item.scorer_results.items():
                record = result.to_record()
                del record["scorer"]
                row.update({f"{scorer}.{key}": value for key, value in record.items()})
            rows.append(_storable_row(row, masker))
        return _frame_of(rows, empty_columns=("item_id",))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> EvalResult:
        """Rebuild a result from the rows of :meth:`to_frame` or :meth:`to_wide`.

        The inverse of the exports: ``EvalResult.from_frame(result.to_frame()).to_frame()``
        equals ``result.to_frame()``. Scores, reasons, errors, details, step results, item
        fields, prompts, raw replies, token counts, cost and latencies come back; what the
        rows never held stays unknown: each call's own usage, cost and latency (the totals
        are kept), an error's exception class and the run's wall time.

        Args:
            frame: The long rows (one per item and scorer) or the wide rows (one per item).

        Returns:
            An EvalResult with one ItemResult per item, in row order.

        Raises:
            ConfigurationError: The frame is neither layout; the message names the columns
                that are missing.

        Example:
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"id": 7, "input": "q", "output": "a", "ground_truth": "a"}],
            ...                    create_textual_difference_scorer(), progress=False)
            >>> again = EvalResult.from_frame(result.to_frame())
            >>> again[0].item_id, again.scores["textual-difference"].mean
            (7, 1.0)
        """
        columns = [str(column) for column in frame.columns]
        if len(set(columns)) != len(columns):
            raise ConfigurationError("the frame has duplicate column names; it is not an export")
        cells = {
            name: _column_values(frame[column])
            for name, column in zip(columns, frame.columns, strict=True)
        }
        encoded = (getattr(frame, "attrs", None) or {}).get("evaltoolkit", {})
        for column, positions in dict(encoded.get("json_cells", {})).items():
            if column in cells:
                for position in positions:
                    text = cells[column][position]
                    if isinstance(text, str):
                        cells[column][position] = json.loads(text)
        return _from_columns(columns, cells, len(frame))

    def _export_frame(self, wide: bool) -> pd.DataFrame:
        return self.to_wide() if wide else self.to_frame()

    def to_parquet(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) to a Parquet file and return its path.

        A column mixing types (item ids that are numbers and text) is stored as text; the
        file's metadata records which cells were not text, so :func:`read_results` restores
        them. The file is written beside ``path`` under a temporary name and renamed into
        place, so an error or an interrupt never leaves half a file (nor harms an earlier
        one). Characters that cannot be encoded as UTF-8 (lone surrogates) are written as
        U+FFFD.

        Example:
            >>> import tempfile
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"input": "q", "output": "a", "ground_truth": "a"}],
            ...                    [create_textual_difference_scorer()], progress=False)
            >>> result.to_parquet(Path(tempfile.mkdtemp()) / "r.parquet").suffix
            '.parquet'
        """
        frame = _export_ready(self._export_frame(wide))
        return _write_atomically(path, lambda tmp: frame.to_parquet(tmp, index=False))

    def to_csv(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) to a UTF-8 CSV file; return its path.

        Written under a temporary name and renamed into place, like :meth:`to_parquet`.

        Example:
            >>> import tempfile
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"input": "q", "output": "a", "ground_truth": "a"}],
            ...                    [create_textual_difference_scorer()], progress=False)
            >>> result.to_csv(Path(tempfile.mkdtemp()) / "r.csv").suffix
            '.csv'
        """
        frame = self._export_frame(wide)
        return _write_atomically(path, lambda tmp: frame.to_csv(tmp, index=False, encoding="utf-8"))

    def to_jsonl(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) as JSON Lines and return its path.

        One JSON object per row, every column in order; missing values are ``null`` and
        numbers are written exactly (``pd.read_json(path, lines=True)`` reads the file too).
        JSON has no infinite numbers, so an infinite value (a label of ``Infinity``, a
        score) is written as the text ``"Infinity"`` or ``"-Infinity"``, which
        :func:`read_results` reads back as the number where the column holds numbers (NaN,
        like any missing value, is ``null``). Written under a temporary name and renamed
        into place, like :meth:`to_parquet`.

        Example:
            >>> import tempfile
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"input": "q", "output": "a", "ground_truth": "a"}],
            ...                    [create_textual_difference_scorer()], progress=False)
            >>> result.to_jsonl(Path(tempfile.mkdtemp()) / "r.jsonl").suffix
            '.jsonl'
        """
        return write_json_lines(self._export_frame(wide), path)

    def __repr__(self) -> str:
        scores = ", ".join(
            f"{scorer}: mean={_format_score(s.mean)} ({s.scored} scored, {s.failed} failed)"
            for scorer, s in self.scores.items()
        )
        return f"EvalResult({len(self.items)} items; {scores})"

    def _repr_html_(self) -> str:
        from .._internal.html import Markup, table

        rows = [
            (scorer, _format_score(s.mean), s.scored, s.failed) for scorer, s in self.scores.items()
        ]
        caption = Markup("<p>EvalResult: {} items</p>").format(len(self.items))
        return str(
            caption
            + table(["scorer", "mean", "scored", "failed"], rows, css_class="evaltoolkit-summary")
        )


def _from_columns(
    columns: list[str],
    cells: dict[str, list[Any]],
    rows: int,
    row_name: Callable[[int], str] = _frame_row,
) -> EvalResult:
    """An EvalResult from an export's cells; ``row_name`` names a row for the messages."""
    if rows == 0 and set(_LEADING_COLUMNS) <= set(columns):
        return EvalResult(items=[], scorer_ids=[])
    if set(EXPORT_COLUMNS) <= set(columns):
        _check_numbers(cells, ["item_index", *_NUMBER_KEYS], row_name)
        return _from_long(columns, cells, rows, row_name)
    if "item_id" in columns and _wide_scorers(columns):
        numeric = [f"{scorer}.{key}" for scorer in _wide_scorers(columns) for key in _NUMBER_KEYS]
        _check_numbers(cells, ["item_index", *numeric], row_name)
        return _from_wide(columns, cells, rows)
    raise ConfigurationError(_missing_columns_message(columns))


def _check_numbers(
    cells: dict[str, list[Any]], columns: Sequence[str], row_name: Callable[[int], str]
) -> None:
    """Make the number columns numbers; an edited cell that is not one is an error.

    A CSV column with one cell that is not a number comes back as text throughout, so text
    that reads as a number is taken as that number.
    """
    for column in columns:
        if column not in cells:
            continue
        values = cells[column]
        for row, value in enumerate(values):
            if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
                continue
            number = _number_of_text(value)
            if number is None:
                raise ConfigurationError(
                    f"{row_name(row)}, column {column!r}: {value!r} is not a number; put a "
                    "number there, or leave the cell empty for a missing value"
                )
            values[row] = number


def _number_of_text(value: Any) -> float | int | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _INT_TEXT.fullmatch(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return None


def _presence_rows(
    late: Sequence[str], cells: Mapping[str, list[Any]], rows: int
) -> dict[str, int]:
    """The row where each late column first has its key, as the column order requires.

    A column first shows a value in some row, but its key may have been there earlier with
    no value; the columns after it appeared no earlier, so each column's row is the first row
    holding a value of it or of any column after it.
    """
    first = [
        next((row for row in range(rows) if cells[column][row] is not None), rows)
        for column in late
    ]
    chosen: dict[str, int] = {}
    earliest = rows
    for column, row in zip(reversed(late), reversed(first), strict=True):
        earliest = min(earliest, row)
        chosen[column] = earliest
    fallback = 0
    for column in late:  # a column with no value at all: beside the column before it
        if chosen[column] >= rows:
            chosen[column] = min(fallback, rows - 1)
        fallback = chosen[column]
    return chosen


def _consecutive_items(ids: Sequence[Any], scorers: Sequence[Any]) -> list[list[int]]:
    """Consecutive rows of one item id, a repeated scorer starting the next item."""
    groups: list[list[int]] = []
    for row, (item_id, scorer) in enumerate(zip(ids, scorers, strict=True)):
        group = groups[-1] if groups else None
        if (
            group is not None
            and _same_value(ids[group[0]], item_id)
            and all(scorers[other] != scorer for other in group)
        ):
            group.append(row)
        else:
            groups.append([row])
    return groups


def _id_key(value: Any) -> tuple[str, Any]:
    """A hashable key telling ids apart as :func:`_same_value` does (1 is not "1")."""
    try:
        hash(value)
    except TypeError:
        return type(value).__name__, repr(value)
    return type(value).__name__, value


def _rows_text(rows: Sequence[int], row_name: Callable[[int], str]) -> str:
    names = [row_name(row) for row in rows[:6]]
    return ", ".join(names) + (", ..." if len(rows) > 6 else "")


def _group_items(
    cells: Mapping[str, list[Any]], rows: int, row_name: Callable[[int], str]
) -> list[list[int]]:
    """The rows of each item, items in data order, whatever order the rows are in.

    Rows belong together by ``item_index`` and ``item_id`` (by the id alone in exports
    that predate ``item_index``), so a file sorted by score, or with a row deleted, still
    gives each item once. Rows that contradict each other (two rows of one item for the
    same scorer, one ``item_index`` with two ids) raise a ConfigurationError naming them.
    """
    ids, scorers = cells["item_id"], cells["scorer"]
    for row, scorer in enumerate(scorers):
        if scorer is None:
            raise ConfigurationError(
                f"{row_name(row)}, column 'scorer': the cell is empty; every row names the "
                "scorer it is the result of"
            )
    indexes = cells.get("item_index")
    if indexes is None:
        keys: list[Any] = [_id_key(item_id) for item_id in ids]
    else:
        for row, index in enumerate(indexes):
            if index is None:
                raise ConfigurationError(
                    f"{row_name(row)}, column 'item_index': the cell is empty; every row needs "
                    "the position of its item (or delete the whole column to group by item_id)"
                )
        keys = [(index, _id_key(item_id)) for index, item_id in zip(indexes, ids, strict=True)]
        ids_at: dict[Any, list[int]] = {}
        for row, index in enumerate(indexes):
            ids_at.setdefault(index, []).append(row)
        for index, members in ids_at.items():
            if len({keys[row] for row in members}) > 1:
                raise ConfigurationError(
                    f"rows of item_index {index} have different item ids "
                    f"({', '.join(dict.fromkeys(repr(ids[row]) for row in members))}): "
                    f"{_rows_text(members, row_name)}; one item has one id, so correct the "
                    "item_index or the item_id of the rows that do not fit"
                )
    groups: dict[Any, list[int]] = {}
    for row in range(rows):
        groups.setdefault(keys[row], []).append(row)
    for members in groups.values():
        seen: dict[Any, int] = {}
        for row in members:
            if scorers[row] in seen:
                if indexes is None:  # an older export whose items share ids: rows in order
                    return _consecutive_items(ids, scorers)
                raise ConfigurationError(
                    f"{row_name(seen[scorers[row]])} and {row_name(row)} are both the "
                    f"{scorers[row]!r} row of item {ids[row]!r} (item_index {indexes[row]}); "
                    "delete the one that does not belong"
                )
            seen[scorers[row]] = row
    ordered = list(groups.values())
    if indexes is not None and any(g[-1] - g[0] != len(g) - 1 for g in ordered):
        ordered.sort(key=lambda group: (indexes[group[0]], group[0]))  # rows were reordered
    return ordered


def _is_item_field(
    column: str, cells: Mapping[str, list[Any]], groups: Sequence[list[int]]
) -> bool:
    """Whether a column first reported by a later row is an item field (else a detail).

    With several scorers, a field has the same value on every row of an item. With one, a
    value on a failed row is a field (failures carry no details), and so is a name that
    to_frame() prefixed with ``item_`` because a column of the export already had it.
    """
    if column.startswith("item_") and column[len("item_") :] in _FIXED_COLUMNS:
        return True
    if all(len(group) < 2 for group in groups):
        failed = [
            row
            for group in groups
            for row in group
            if cells["error"][row] is not None or cells["error_step"][row] is not None
        ]
        return any(cells[column][row] is not None for row in failed)
    found = False
    for group in groups:
        values = [cells[column][row] for row in group]
        if all(value is None for value in values):
            continue
        if len(group) < 2 or any(v is None or not _same_value(v, values[0]) for v in values):
            return False
        found = True
    return found


def _same_value(first: Any, second: Any) -> bool:
    return type(first) is type(second) and first == second


def _field_name(column: str, details: Sequence[str]) -> str:
    """Undo to_frame()'s ``item_`` prefix on a field whose name a row already used."""
    if column.startswith("item_"):
        name = column[len("item_") :]
        if name in _FIXED_COLUMNS or name in details:
            return name
    return column


def _ordered_zone(columns: list[str], start: str, end: str) -> list[str] | None:
    position = {column: index for index, column in enumerate(columns)}
    low, high = position[start], position[end]
    return columns[low + 1 : high] if low < high else None


def _from_long(
    columns: list[str],
    cells: dict[str, list[Any]],
    rows: int,
    row_name: Callable[[int], str] = _frame_row,
) -> EvalResult:
    fixed = set(_FIXED_COLUMNS)
    position = {column: index for index, column in enumerate(columns)}
    expected = [column for column in _FIXED_COLUMNS if column in position]
    if [column for column in columns if column in fixed] == expected:
        first_item_column = "item_index" if "item_index" in position else "input"
        zone_details = columns[position["error_step"] + 1 : position[first_item_column]]
        zone_fields = [
            column
            for column in columns[position["ground_truth"] + 1 : position["judge_model"]]
            if column not in fixed
        ]
        last_fixed = "not_scored" if "not_scored" in position else "raw_replies"
        late = columns[position[last_fixed] + 1 :]
    else:  # reordered columns: tell details from fields by their values alone
        zone_details, zone_fields = [], []
        late = [column for column in columns if column not in fixed]
    ids = cells["item_id"]
    scorers = cells["scorer"]
    groups = _group_items(cells, rows, row_name)
    late_fields = {column for column in late if _is_item_field(column, cells, groups)}
    present_at = _presence_rows(late, cells, rows)
    all_details = [*zone_details, *(c for c in late if c not in late_fields)]

    def has(column: str, row: int, zone: bool) -> bool:
        if cells[column][row] is not None:
            return True
        return row == 0 if zone else present_at[column] == row

    items: list[ItemResult] = []
    for index, group in enumerate(groups):
        first = group[0]
        fields: dict[str, Any] = {}
        for column in [*zone_fields, *(c for c in late if c in late_fields)]:
            zone = column in zone_fields
            if any(has(column, row, zone) for row in group):
                value = next(
                    (cells[column][row] for row in group if cells[column][row] is not None), None
                )
                fields[_field_name(column, all_details)] = _parsed_json(value)
        results: dict[str, ScoreResult] = {}
        for row in group:
            details = {
                column: _parsed_json(cells[column][row])
                for column in zone_details
                if has(column, row, True)
            }
            details.update(
                {
                    column: _parsed_json(cells[column][row])
                    for column in late
                    if column not in late_fields and has(column, row, False)
                }
            )
            result = _score_result(cells, row, str(scorers[row]), details)
            results[result.scorer] = result
        items.append(
            ItemResult(
                item_id=ids[first],
                index=_item_index(cells, first, index),
                input=_parsed_json(cells["input"][first]),
                output=_parsed_json(cells["output"][first]),
                ground_truth=_parsed_json(cells["ground_truth"][first]),
                fields=fields,
                scorer_results=results,
                notes=_item_notes(cells, first),
            )
        )
    return _result_of(items, _fill_missing_scorers(items, [str(s) for s in dict.fromkeys(scorers)]))


def _fill_missing_scorers(items: list[ItemResult], scorer_ids: list[str]) -> list[str]:
    """Give every item a result for every scorer of the file, as a run does.

    An item with no row for a scorer (a row deleted, a scorer cell renamed) gets a NaN
    score whose error says so, and one warning counts them: the item never disappears and
    ``.scores`` never meets a hole. Returns ``scorer_ids``.
    """
    lacking: dict[str, int] = {}
    for item in items:
        if all(scorer in item.scorer_results for scorer in scorer_ids):
            continue
        run_id = next((r.run_id for r in item.scorer_results.values()), "")
        results: dict[str, ScoreResult] = {}
        for scorer in scorer_ids:
            found = item.scorer_results.get(scorer)
            if found is None:
                lacking[scorer] = lacking.get(scorer, 0) + 1
                found = ScoreResult(
                    scorer=scorer,
                    score=math.nan,
                    error=StepError(
                        step="read_results",
                        message=(
                            f"the results file has no {scorer!r} row for this item (deleted, "
                            "or its scorer cell renamed); its score is unknown"
                        ),
                        kind="DataLoadError",
                    ),
                    run_id=run_id,
                )
            results[scorer] = found
        item.scorer_results = results
    if lacking:
        counts = ", ".join(f"{count} for {scorer!r}" for scorer, count in lacking.items())
        warnings.warn(
            f"some items have no row for a scorer in the results ({counts}: rows deleted, or "
            "scorer cells renamed); each such score is NaN with an error saying so",
            UserWarning,
            stacklevel=5,  # the caller of read_results or from_frame,
        )
    return scorer_ids


def _from_wide(columns: list[str], cells: dict[str, list[Any]], rows: int) -> EvalResult:
    scorers = _wide_scorers(columns)
    owner: dict[str, str] = {}
    for scorer in sorted(scorers, key=len):  # the longest matching id owns a column
        for column in columns:
            if column.startswith(f"{scorer}."):
                owner[column] = scorer
    item_columns = {"item_id", *_ITEM_COLUMNS}
    row_zone_end = max(columns.index(f"{scorer}.raw_replies") for scorer in scorers)
    late = [c for c in columns[row_zone_end + 1 :] if c not in item_columns]
    present_at = _presence_rows(late, cells, rows)
    late_set = set(late)

    def has(column: str, row: int) -> bool:
        if cells[column][row] is not None:
            return True
        return present_at[column] == row if column in late_set else row == 0

    order: list[int] = list(range(rows))
    indexes = cells.get("item_index")
    if indexes is not None and None not in indexes:  # rows sorted by hand: back to data order
        order.sort(key=lambda row: indexes[row])
    items: list[ItemResult] = []
    for row in order:
        fields: dict[str, Any] = {}
        for column in columns:
            if column in item_columns or column in owner or not has(column, row):
                continue
            name = column
            if column.startswith("item_") and column[len("item_") :] in _ITEM_COLUMNS:
                name = column[len("item_") :]
            fields[name] = _parsed_json(cells[column][row])
        results: dict[str, ScoreResult] = {}
        for scorer in scorers:
            prefix = f"{scorer}."
            own = {
                column[len(prefix) :]: values[row]
                for column, values in cells.items()
                if owner.get(column) == scorer
            }
            details = {
                key: _parsed_json(value)
                for key, value in own.items()
                if key not in _RECORD_KEYS and has(prefix + key, row)
            }
            results[scorer] = _score_result(own, None, scorer, details)
        items.append(
            ItemResult(
                item_id=cells["item_id"][row],
                index=_item_index(cells, row, row),
                notes=_item_notes(cells, row),
                input=_parsed_json(cells["input"][row]) if "input" in cells else None,
                output=_parsed_json(cells["output"][row]) if "output" in cells else None,
                ground_truth=(
                    _parsed_json(cells["ground_truth"][row]) if "ground_truth" in cells else None
                ),
                fields=fields,
                scorer_results=results,
            )
        )
    return _result_of(items, scorers)


def _item_index(cells: Mapping[str, list[Any]], row: int, default: int) -> int:
    """The item's position in its data, as exported (older exports: its position here)."""
    value = cells["item_index"][row] if "item_index" in cells else None
    return default if value is None else int(value)


def _item_notes(cells: Mapping[str, list[Any]], row: int) -> tuple[str, ...]:
    value = cells["notes"][row] if "notes" in cells else None
    return () if value is None else tuple(str(value).split("; "))


def _result_of(items: list[ItemResult], scorer_ids: list[str]) -> EvalResult:
    run_id = next(
        (
            result.run_id
            for item in items
            for result in item.scorer_results.values()
            if result.run_id
        ),
        None,
    )
    return EvalResult(items=items, scorer_ids=scorer_ids, run_id=run_id or new_run_id())


def _score_result(
    cells: Mapping[str, Any], row: int | None, scorer: str, details: dict[str, Any]
) -> ScoreResult:
    """One scorer's result from its record cells (a row's, or a wide row's by key)."""

    def cell(key: str) -> Any:
        if key not in cells:  # a column that earlier versions did not write
            return None
        value = cells[key] if row is None else cells[key][row]
        return None if _is_missing(value) else value

    score = cell("score")
    error_message, error_step = cell("error"), cell("error_step")
    error = None
    if error_message is not None or error_step is not None:
        # The exception class is not in the rows; an empty kind says it is unknown.
        error = StepError(step=str(error_step or "?"), message=str(error_message or ""), kind="")
    calls = _calls_of(cell)
    if error is not None:  # the failed step's last reply is its call's raw reply
        error = StepError(
            step=error.step,
            message=error.message,
            kind=error.kind,
            raw_reply=next(
                (call.raw_reply for call in reversed(calls) if call.step == error.step), None
            ),
        )
    reason = cell("reason")
    return ScoreResult(
        scorer=scorer,
        score=math.nan if score is None else score,
        reason=None if reason is None else str(reason),
        preprocess_step_result=_parsed_json(cell("preprocess_step_result")),
        analyze_step_result=_parsed_json(cell("analyze_step_result")),
        details=details,
        calls=calls,
        judge_model=None if cell("judge_model") is None else str(cell("judge_model")),
        latency_s=cell("latency_s") if cell("latency_s") is not None else 0.0,
        error=error,
        run_id=str(cell("run_id") or ""),
        not_scored=None if cell("not_scored") is None else str(cell("not_scored")),
    )
