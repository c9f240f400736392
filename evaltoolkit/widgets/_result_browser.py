"""ResultBrowser: a filterable, sortable table of results and a detail pane for one of them."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._internal.html import (
    Markup,
    details_block,
    format_score,
    heading,
    join,
    key_value_table,
    note,
    side_by_side,
    table,
    text_block,
)
from ..errors import ConfigurationError
from ..records import EvalResult
from ._base import View, ipywidgets
from ._detail import claims_section, error_section, judge_calls_section, questions_section
from ._labelled import with_human_columns
from ._rows import ResultRow, judged_another_source, result_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultBrowser"]

_REASON_WIDTH = 110
_ERROR_WIDTH = 90
_SORT_BASE = ("position", "item_id", "scorer", "score", "error_step")
_EXTRA_SHOWN_MAX = 40


def _shorten(text: str | None, width: int) -> str:
    if not text:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _sort_value(row: ResultRow, column: str) -> Any:
    if column == "position":
        return row.position
    if column in ("item_id", "scorer", "score", "error_step"):
        return getattr(row, column)
    return row.extra.get(column)


def _order_key(value: Any) -> tuple[int, Any]:
    """Numbers before text, so that a column mixing both still sorts without a TypeError."""
    if isinstance(value, bool):
        return (0, float(value))
    if isinstance(value, int | float):
        return (0, float(value))
    return (1, str(value))


class ResultBrowser(View):
    """Filter, sort and read the results of a run, one row per item and scorer.

    Filters: the scorer, a score range and "failed only". Rows sort by any column, ascending
    or descending; missing values always come last. The table shows at most ``max_rows``
    rows, and says how many match. Picking a row shows its detail: score, reason, the error
    (step and message) of a failed item, the scorer's details, input and output, the claims and
    questions of a summarization result, and every judge call's prompt and raw reply.

    A score range narrower than the full range leaves out failed items (their score is NaN);
    "failed only" shows them.

    Attributes:
        widget: The root container.
        scorer_filter: Dropdown of scorer ids (None: every scorer).
        score_range: Range slider of scores.
        failed_only: Checkbox keeping failed items only.
        sort_by: Dropdown of sort columns.
        descending: Checkbox for descending order.
        table: The table's HTML widget.
        item_picker: Dropdown of the rows shown, for the detail pane.
        detail: The picked row's HTML.

    Example:
        >>> import evaltoolkit as et
        >>> from evaltoolkit.widgets import ResultBrowser
        >>> result = et.run_evals("data/demo_summaries.jsonl",
        ...                       et.create_summarization_scorer(), progress=False)
        >>> browser = ResultBrowser(result)
        >>> browser.sort_by.value = "score"
        >>> browser.descending.value = True
        >>> item_id, scorer = browser.visible[0]  # the best score first
        >>> scorer
        'summarization'
    """

    def __init__(
        self,
        result_or_frame: EvalResult | pd.DataFrame | str | os.PathLike[str],
        *,
        max_rows: int = 50,
        labels: str | os.PathLike[str] | pd.DataFrame | None = None,
        label: str | None = None,
    ) -> None:
        """Build the view.

        Args:
            result_or_frame: An EvalResult, the DataFrame of its ``to_frame()`` (or
                ``to_wide()``), or the path of saved results.
            max_rows: The most rows the table shows at once.
            labels: A labels file made with the Annotator (or the frame of
                :func:`~evaltoolkit.meta.read_labels`): each row gets the human label
                (``human_<label>``), the judge-human ``gap`` (the judge's score on the
                label's scale minus the human label; 1 where categories differ), the notes
                and the tags; sort by ``gap`` and keep rows with a gap of at least
                ``min_gap`` to read the disagreements.
            label: Which label, when the labels file holds several.

        Raises:
            ConfigurationError: Not a result or frame, or ``max_rows`` < 1.
        """
        if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
            raise ConfigurationError(f"ResultBrowser: max_rows must be >= 1, got {max_rows!r}")
        widgets = ipywidgets()
        self._rows = result_rows(result_or_frame)
        if labels is not None:
            self._rows = with_human_columns(self._rows, labels, label=label)
        self.max_rows = max_rows
        scorers = list(dict.fromkeys(row.scorer for row in self._rows))
        finite = [row.score for row in self._rows if math.isfinite(row.score)]
        self._score_low = min([0.0, *finite])
        self._score_high = max([1.0, *finite])
        numeric_extras = list(
            dict.fromkeys(
                key
                for row in self._rows
                for key, value in row.extra.items()
                if isinstance(value, int | float) and not isinstance(value, bool)
            )
        )

        self.scorer_filter = widgets.Dropdown(
            options=[("all scorers", None), *[(name, name) for name in scorers]],
            value=None,
            description="scorer",
        )
        self.score_range = widgets.FloatRangeSlider(
            value=(self._score_low, self._score_high),
            min=self._score_low,
            max=self._score_high,
            step=0.01,
            description="score",
            readout_format=".2f",
            continuous_update=False,
        )
        self.failed_only = widgets.Checkbox(value=False, description="failed only")
        # With labels: keep the rows whose judge-human gap is at least this (0: every row).
        self.min_gap = widgets.BoundedFloatText(
            value=0.0, min=0.0, step=0.5, description="min gap", layout={"width": "160px"}
        )
        self.min_gap.layout.display = "" if labels is not None else "none"
        self.sort_by = widgets.Dropdown(
            options=[("data order", "position")]
            + [(name, name) for name in _SORT_BASE[1:]]
            + [(name, name) for name in numeric_extras if name not in _SORT_BASE],
            value="position",
            description="sort by",
        )
        self.descending = widgets.Checkbox(value=False, description="descending")
        self.table = widgets.HTML()
        self.item_picker = widgets.Dropdown(
            options=[], description="detail", layout={"width": "60%"}
        )
        self.detail = widgets.HTML()
        filters = widgets.HBox(
            [self.scorer_filter, self.score_range, self.failed_only, self.min_gap]
        )
        ordering = widgets.HBox([self.sort_by, self.descending])
        self.widget = widgets.VBox(
            [filters, ordering, self.table, self.item_picker, self.detail],
            layout={"width": "100%"},
        )
        self.widget.add_class("evaltoolkit-result-browser")

        self._matching: list[ResultRow] = []
        self._picked: ResultRow | None = None
        self._refreshing = False
        self.refresh()
        for control in (
            self.scorer_filter,
            self.score_range,
            self.failed_only,
            self.min_gap,
            self.sort_by,
            self.descending,
        ):
            control.observe(self._on_control, names="value")
        self.item_picker.observe(self._on_pick, names="value")

    @property
    def matching(self) -> int:
        """How many rows pass the filters (the table shows at most ``max_rows`` of them)."""
        return len(self._matching)

    @property
    def visible(self) -> list[tuple[Any, str]]:
        """``(item_id, scorer)`` of each row the table shows, in table order."""
        return [(row.item_id, row.scorer) for row in self._matching[: self.max_rows]]

    @property
    def picked(self) -> tuple[Any, str] | None:
        """``(item_id, scorer)`` of the row in the detail pane, None when none is."""
        return None if self._picked is None else (self._picked.item_id, self._picked.scorer)

    def show(self, item_id: Any, scorer: str | None = None) -> None:
        """Show one row in the detail pane, whether the filters keep it or not.

        Args:
            item_id: The item's id.
            scorer: The scorer id; by default the item's first result.

        Raises:
            KeyError: No such item (and scorer).
        """
        for row in self._rows:
            if row.item_id == item_id and (scorer is None or row.scorer == scorer):
                self._pick(row)
                return
        which = f" under scorer {scorer!r}" if scorer else ""
        raise KeyError(f"no item {item_id!r}{which}")

    def _passes(self) -> Callable[[ResultRow], bool]:
        scorer = self.scorer_filter.value
        low, high = (float(value) for value in self.score_range.value)
        full_range = low <= self._score_low and high >= self._score_high
        failed_only = bool(self.failed_only.value)
        min_gap = float(self.min_gap.value)

        def keep(row: ResultRow) -> bool:
            if min_gap > 0 and not abs(row.number("gap")) >= min_gap:
                return False
            if scorer is not None and row.scorer != scorer:
                return False
            if failed_only and not row.failed:
                return False
            if math.isnan(row.score):
                return full_range or failed_only
            return low - 1e-9 <= row.score <= high + 1e-9

        return keep

    def _sorted(self, rows: list[ResultRow]) -> list[ResultRow]:
        column = str(self.sort_by.value)
        present = [row for row in rows if not _missing(_sort_value(row, column))]
        absent = [row for row in rows if _missing(_sort_value(row, column))]
        present.sort(
            key=lambda row: _order_key(_sort_value(row, column)),
            reverse=bool(self.descending.value),
        )
        return present + absent

    def refresh(self) -> None:
        """Apply the filters and the sort order, and redraw the table."""
        self._matching = self._sorted([row for row in self._rows if self._passes()(row)])
        shown = self._matching[: self.max_rows]
        self.table.value = str(self._table_html(shown))
        options = [(f"{row.item_id} · {row.scorer}", row.position) for row in shown]
        picked = self._picked.position if self._picked is not None else None
        # Replacing the options moves the picker's value; that is not the user picking a row.
        self._refreshing = True
        try:
            self.item_picker.options = options
            self.item_picker.value = picked if picked in {value for _, value in options} else None
        finally:
            self._refreshing = False
        if self._picked is None and shown:
            self._pick(shown[0])
        elif self._picked is None:
            self.detail.value = str(note("No row matches the filters."))

    def _table_html(self, shown: list[ResultRow]) -> Markup:
        column = str(self.sort_by.value)
        extra_column = column not in _SORT_BASE
        headers = ["item_id", "scorer", "score", "reason", "error"]
        if extra_column:
            headers.insert(3, column)
        body = []
        for row in shown:
            error = f"[{row.error_step}] {row.error_message or ''}" if row.failed else ""
            cells: list[object] = [
                row.item_id,
                row.scorer,
                format_score(row.score),
                _shorten(row.reason, _REASON_WIDTH),
                _shorten(error, _ERROR_WIDTH),
            ]
            if extra_column:
                cells.insert(3, format_score(row.extra.get(column)))
            body.append(cells)
        order = "descending" if self.descending.value else "ascending"
        sort_text = "data order" if column == "position" else f"{column}, {order}"
        summary = (
            f"showing {len(shown)} of {len(self._matching)} matching rows "
            f"({len(self._rows)} in all); sorted by {sort_text}"
        )
        return join(
            [
                Markup("<div class='evaltoolkit-showing'>{}</div>").format(summary),
                table(headers, body, css_class="evaltoolkit-results"),
            ]
        )

    def _pick(self, row: ResultRow) -> None:
        self._picked = row
        if row.position in {value for _, value in self.item_picker.options}:
            self.item_picker.value = row.position
        self.detail.value = str(self._detail_html(row))

    def _detail_html(self, row: ResultRow) -> Markup:
        pairs: list[tuple[object, object]] = [
            ("item", row.item_id),
            ("scorer", row.scorer),
            ("score", format_score(row.score)),
            ("judge model", row.judge_model or "none"),
        ]
        parts: list[object] = [heading(f"{row.item_id} · {row.scorer}"), key_value_table(pairs)]
        parts.append(error_section(row))
        if row.reason:
            parts.append(Markup("<p><b>Reason.</b> {}</p>").format(row.reason))
        # The judged source is shown as a text block below, not as a detail.
        shown_extras = [(k, v) for k, v in row.extra.items() if row.source is None or k != "source"]
        extras = shown_extras[:_EXTRA_SHOWN_MAX]
        if extras:
            parts.append(heading("Details and fields"))
            parts.append(
                key_value_table(
                    (key, format_score(value) if isinstance(value, float) else value)
                    for key, value in extras
                )
            )
        blocks = [text_block("Input", _text(row.input)), text_block("Output", _text(row.output))]
        other_source = judged_another_source(row)
        if row.source is not None:
            # Show the text the scorer judged as the source; when source= or source_extractor=
            # chose another text than the input's, say so and keep the input, collapsed.
            label = "Source (the text judged)" if other_source else "Source"
            blocks[0] = text_block(label, row.source)
        if row.ground_truth is not None:
            blocks.append(text_block("Ground truth", _text(row.ground_truth)))
        parts.append(side_by_side(*blocks))
        if other_source:
            parts.append(details_block("Input", _text(row.input)))
        if row.preprocess and "alignment" in row.preprocess:
            parts.extend([claims_section(row), questions_section(row)])
        parts.append(judge_calls_section(row))
        return Markup("<div class='evaltoolkit-detail'>{}</div>").format(join(parts))

    def _on_control(self, change: dict[str, Any]) -> None:
        self.refresh()

    def _on_pick(self, change: dict[str, Any]) -> None:
        position = change["new"]
        if self._refreshing or position is None:
            return
        if self._picked is None or self._picked.position != position:
            self._pick(self._rows[int(position)])

    def __repr__(self) -> str:
        picked = "" if self.picked is None else f", detail={self.picked!r}"
        return (
            f"ResultBrowser({len(self._rows)} rows, {len(self._matching)} matching, "
            f"showing {min(len(self._matching), self.max_rows)}{picked})"
        )


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)
