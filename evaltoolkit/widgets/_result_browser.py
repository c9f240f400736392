"""ResultBrowser: a paged, sortable, filterable table of results, one item's detail beside it."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
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

    from ._paged_table import PagedTable

__all__ = ["ResultBrowser"]

_EXTRA_SHOWN_MAX = 40
# The scorer filter's "every scorer" choice: a value no scorer id has (ipywidgets shows a
# Dropdown whose value is None as blank, which is how the filter once rendered empty).
ALL_SCORERS = ""
_GROUP_FIELDS = ("doc_id", "group", "document", "system_id")
_DATA_ORDER = "position"


def _rules(row: ResultRow) -> str:
    """The offline rules behind the deciding axis's negative verdicts (unsupported claims or
    unanswered questions), each once, in order."""
    decided = row.extra.get("decided_by")
    if decided == "alignment":
        entries = (row.preprocess or {}).get("alignment") or []
        negative = [
            entry for entry in entries if isinstance(entry, Mapping) and not entry.get("supported")
        ]
    elif decided == "coverage":
        entries = (row.analyze or {}).get("coverage") or []
        negative = [
            entry for entry in entries if isinstance(entry, Mapping) and not entry.get("answered")
        ]
    else:
        return ""
    rules = dict.fromkeys(str(entry["rule"]) for entry in negative if entry.get("rule"))
    return ", ".join(rules)


def _error_text(row: ResultRow) -> str:
    return f"[{row.error_step}] {row.error_message or ''}" if row.failed else ""


class ResultBrowser(View):
    """Filter, sort and read the results of a run, one row per item and scorer.

    The table is paged (``max_rows`` rows a page) and sorted, filtered and paged in Python, so
    10,000 items open as fast as 20. Its columns: the item, the scorer, the score, both
    summarization axes and the one that decided the score, the document (or group), the
    offline rules behind the deciding axis's negative verdicts, the error of a failed item
    and, given ``labels``, the human label, the judge-human gap and the tags. Click a header
    to sort by it (again: the other way; missing values always last), type in the filter box
    to keep rows containing the text, and click a row to open its detail beside the table:
    score, reason, the error (step and message) of a failed item, the scorer's details, input
    and output, the claims and questions of a summarization result, and every judge call's
    prompt and raw reply.

    Filters above the table: the scorer, a score range and "failed only" (and, with labels,
    the smallest judge-human gap). A score range narrower than the full range leaves out
    failed items (their score is NaN); "failed only" shows them.

    Attributes:
        widget: The root container.
        scorer_filter: Dropdown of scorer ids (``ALL_SCORERS``, the empty string: every one).
        score_range: Range slider of scores.
        failed_only: Checkbox keeping failed items only.
        min_gap: With labels, the smallest |judge - human| gap kept.
        sort_by: Dropdown of sort columns (the same as clicking a header).
        descending: Checkbox for descending order.
        table: The paged table (an anywidget; ``table.rows`` holds the page shown).
        detail: The picked row's HTML, beside the table.

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
        max_rows: int = 20,
        labels: str | os.PathLike[str] | pd.DataFrame | None = None,
        label: str | None = None,
    ) -> None:
        """Build the view.

        Args:
            result_or_frame: An EvalResult, the DataFrame of its ``to_frame()`` (or
                ``to_wide()``), or the path of saved results.
            max_rows: The rows of one page of the table.
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
        from ._paged_table import PagedTable, callback_on_select

        self._rows = result_rows(result_or_frame)
        if labels is not None:
            self._rows = with_human_columns(self._rows, labels, label=label)
        self.max_rows = max_rows
        scorers = list(dict.fromkeys(row.scorer for row in self._rows))
        finite = [row.score for row in self._rows if math.isfinite(row.score)]
        self._score_low = min([0.0, *finite])
        self._score_high = max([1.0, *finite])
        self._frame = self._build_frame()
        numeric_extras = [
            key
            for key in dict.fromkeys(
                key
                for row in self._rows
                for key, value in row.extra.items()
                if isinstance(value, int | float) and not isinstance(value, bool)
            )
            if key not in self._frame.columns
        ]
        for key in numeric_extras:  # sortable from the dropdown, shown in the detail
            self._frame[key] = [row.number(key) for row in self._rows]

        self.scorer_filter = widgets.Dropdown(
            options=[("all scorers", ALL_SCORERS), *[(name, name) for name in scorers]],
            value=ALL_SCORERS,
            description="scorer",
            layout={"width": "260px"},
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
        self.failed_only = widgets.Checkbox(
            value=False, description="failed only", indent=False, layout={"width": "110px"}
        )
        # With labels: keep the rows whose judge-human gap is at least this (0: every row).
        self.min_gap = widgets.BoundedFloatText(
            value=0.0, min=0.0, step=0.5, description="min gap", layout={"width": "160px"}
        )
        self.min_gap.layout.display = "" if labels is not None else "none"
        sortable = [_DATA_ORDER, *[c.key for c in self._columns], *numeric_extras]
        self.sort_by = widgets.Dropdown(
            options=[("data order" if key == _DATA_ORDER else key, key) for key in sortable],
            value=_DATA_ORDER,
            description="sort by",
            layout={"width": "240px"},
        )
        self.descending = widgets.Checkbox(
            value=False, description="descending", indent=False, layout={"width": "110px"}
        )
        self.table: PagedTable = PagedTable(self._columns, page_size=max_rows)
        self.table.set_frame(self._frame)
        self.detail = widgets.HTML()
        self.detail.add_class("evaltoolkit-browser-detail")
        filters = widgets.HBox(
            [self.scorer_filter, self.score_range, self.failed_only, self.min_gap],
            layout={"flex_flow": "row wrap"},
        )
        ordering = widgets.HBox([self.sort_by, self.descending])
        left = widgets.VBox(
            [filters, ordering, self.table], layout={"width": "60%", "min_width": "0"}
        )
        right = widgets.Box(
            [self.detail],
            layout={
                "width": "40%",
                "max_height": "780px",
                "overflow": "auto",
                "padding": "0 0 0 10px",
                "border_left": "1px solid #ddd",
            },
        )
        self.widget = widgets.HBox([left, right], layout={"width": "100%"})
        self.widget.add_class("evaltoolkit-result-browser")

        self._picked: ResultRow | None = None
        self._syncing = False
        self.refresh()
        for control in (self.scorer_filter, self.score_range, self.failed_only, self.min_gap):
            control.observe(self._on_filter, names="value")
        self.sort_by.observe(self._on_sort_control, names="value")
        self.descending.observe(self._on_sort_control, names="value")
        self.table.observe(self._on_table_sort, names=["sort_key", "descending"])
        callback_on_select(self.table, lambda key: self._pick(self._rows[key]))

    def _build_frame(self) -> pd.DataFrame:
        """One row per result, keyed by position: what the table shows and sorts."""
        import pandas as pd

        from ._paged_table import Column

        rows = self._rows
        columns = [Column("item_id", "item", width="150px"), Column("scorer", "scorer")]
        data: dict[str, list[Any]] = {
            "item_id": [str(row.item_id) for row in rows],
            "scorer": [row.scorer for row in rows],
        }
        columns.append(Column("score", "score", numeric=True, width="56px"))
        data["score"] = [row.score for row in rows]
        if any("alignment_score" in row.extra for row in rows):
            columns += [
                Column("alignment", "alignment", numeric=True, width="70px"),
                Column("coverage", "coverage", numeric=True, width="66px"),
                Column("decided_by", "decided by", width="76px"),
            ]
            data["alignment"] = [row.number("alignment_score") for row in rows]
            data["coverage"] = [row.number("coverage_score") for row in rows]
            data["decided_by"] = [str(row.extra.get("decided_by") or "") for row in rows]
        group = next(
            (name for name in _GROUP_FIELDS if any(name in row.extra for row in rows)), None
        )
        if group is not None:
            columns.append(Column(group, group))
            data[group] = [_plain(row.extra.get(group)) for row in rows]
        human = next(
            (
                key
                for row in rows
                for key in row.extra
                if key.startswith("human_") and key != "human_notes"
            ),
            None,
        )
        if human is not None:
            columns.append(Column(human, human.replace("_", " "), numeric=True))
            data[human] = [row.extra.get(human) for row in rows]
        if any("gap" in row.extra for row in rows):
            columns.append(Column("gap", "gap", numeric=True, width="52px"))
            data["gap"] = [row.number("gap") for row in rows]
        data["rule"] = [_rules(row) for row in rows]
        if any(data["rule"]):
            columns.append(Column("rule", "rule"))
        if any("tags" in row.extra for row in rows):
            columns.append(Column("tags", "tags"))
            data["tags"] = [str(row.extra.get("tags") or "") for row in rows]
        columns.append(Column("error", "error"))
        data["error"] = [_error_text(row) for row in rows]
        self._columns = columns
        return pd.DataFrame(data, index=pd.RangeIndex(len(rows)))

    @property
    def matching(self) -> int:
        """How many rows pass the filters (on every page)."""
        return self.table.total

    @property
    def visible(self) -> list[tuple[Any, str]]:
        """``(item_id, scorer)`` of every row that passes the filters, in table order (every
        page; the page shown is :attr:`page`)."""
        return [(self._rows[key].item_id, self._rows[key].scorer) for key in self.table.order]

    @property
    def page(self) -> list[tuple[Any, str]]:
        """``(item_id, scorer)`` of the rows on the page shown."""
        return [(self._rows[key].item_id, self._rows[key].scorer) for key in self.table.row_keys]

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
                self.table.show_row(row.position)
                self._pick(row)
                return
        which = f" under scorer {scorer!r}" if scorer else ""
        raise KeyError(f"no item {item_id!r}{which}")

    def _mask(self) -> pd.Series:
        frame = self._frame
        scores = frame["score"]
        scorer = self.scorer_filter.value
        low, high = (float(value) for value in self.score_range.value)
        full_range = low <= self._score_low and high >= self._score_high
        failed = frame["error"] != ""
        if self.failed_only.value:
            keep = failed.copy()
        else:
            in_range = scores.between(low - 1e-9, high + 1e-9)
            keep = in_range | (scores.isna() & full_range)
        if scorer not in (None, ALL_SCORERS):
            keep &= frame["scorer"] == scorer
        min_gap = float(self.min_gap.value)
        if min_gap > 0:
            gaps = frame["gap"] if "gap" in frame.columns else scores * math.nan
            keep &= gaps.abs() >= min_gap
        return keep

    def refresh(self) -> None:
        """Apply the filters and redraw the table (sorting stays as it is)."""
        self.table.set_mask(self._mask())
        order = self.table.order
        if self._picked is None and order:
            self._pick(self._rows[order[0]])
        elif self._picked is None:
            self.detail.value = str(note("No row matches the filters."))

    def _pick(self, row: ResultRow) -> None:
        self._picked = row
        if self.table.selected != row.position:
            self.table.selected = row.position
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

    def _on_filter(self, change: dict[str, Any]) -> None:
        self.refresh()

    def _on_sort_control(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        key = str(self.sort_by.value)
        if key not in self._frame.columns:
            key = ""  # data order: the frame's own order
        self._syncing = True
        try:
            with self.table.hold_trait_notifications():
                self.table.sort_key = key
                self.table.descending = bool(self.descending.value)
        finally:
            self._syncing = False

    def _on_table_sort(self, change: dict[str, Any]) -> None:
        """A header clicked in the page: the dropdown and the checkbox follow."""
        if self._syncing:
            return
        self._syncing = True
        try:
            self.sort_by.value = self.table.sort_key or _DATA_ORDER
            self.descending.value = bool(self.table.descending)
        finally:
            self._syncing = False

    def __repr__(self) -> str:
        picked = "" if self.picked is None else f", detail={self.picked!r}"
        return (
            f"ResultBrowser({len(self._rows)} rows, {self.matching} matching, "
            f"{self.max_rows} a page{picked})"
        )


def _plain(value: Any) -> Any:
    return "" if value is None else value if isinstance(value, int | float) else str(value)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)
