"""AxisExplorer: where a summary's alignment and coverage disagree, and the claims behind it."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

from .._internal.html import esc, note
from ..errors import ConfigurationError
from ..plots import AxisPoint
from ..records import EvalResult
from ..scorers import SUMMARIZATION_ID
from ._base import View, ipywidgets
from ._detail import summarization_detail
from ._rows import ResultRow, result_rows

if TYPE_CHECKING:
    import pandas as pd

    from ._paged_table import PagedTable
    from ._scatter import AxisScatter

__all__ = ["AxisExplorer"]

#: The scatter's categories, in legend order, with their colours.
CATEGORIES = (
    ("alignment", "#d62728"),
    ("coverage", "#1f77b4"),
    ("tie", "#7f7f7f"),
    ("failed", "#000000"),
)


class AxisExplorer(View):
    """Alignment against coverage per item, the most disagreeing items, and why.

    The scatter (460 x 430 px, drawn in the browser) plots every item's alignment (supported
    claims / claims) against its coverage (answered questions / questions), coloured by the
    axis that decided the score, with the legend inside the plot; hovering a point shows its
    id in full. Clicking a point opens that item; dragging a rectangle over points keeps
    just those rows in the table ("clear selection" brings the others back). The table below
    the scatter lists the items whose |alignment - coverage| is at least the slider's
    threshold, most disagreeing first, a page at a time; clicking a row opens the item in
    the detail pane beside them: its source and summary side by side, each claim with its
    verdict and reason, each question with its verdict and reason, and the score and reason.
    Failed items have no axes: they are counted, not listed.

    Attributes:
        widget: The root container, to place in other layouts.
        threshold: The disagreement threshold slider (``explorer.threshold.value = 0.5``).
        scatter: The scatter (an anywidget; ``scatter.brushed`` holds the points selected).
        table: The paged table of the items listed (row keys are positions among the items).
        clear_button: Clears the scatter's selection.
        listing_note: How many items the list holds.
        detail: The selected item's HTML.

    Example:
        >>> import evaltoolkit as et
        >>> from evaltoolkit.widgets import AxisExplorer
        >>> result = et.run_evals("data/demo_summaries.jsonl",
        ...                       et.create_summarization_scorer(), progress=False)
        >>> explorer = AxisExplorer(result, threshold=0.5)
        >>> explorer.items[0]
        'harbour-bridge-1'
        >>> explorer.select("volcano-alert-15")
        >>> "Claims" in explorer.detail.value
        True
    """

    def __init__(
        self,
        result: EvalResult | pd.DataFrame | str | os.PathLike[str],
        *,
        scorer: str = SUMMARIZATION_ID,
        threshold: float = 0.3,
        max_listed: int | None = None,
        page_size: int = 10,
    ) -> None:
        """Build the view.

        Args:
            result: An EvalResult holding summarization results, its ``to_frame()`` (or
                ``to_wide()``), or the path of saved results.
            scorer: The summarization scorer's id in the run.
            threshold: The initial disagreement threshold (0 to 1).
            max_listed: The most items the list holds (the most disagreeing ones); None:
                every one (the table pages through them).
            page_size: The table's rows a page.

        Raises:
            ConfigurationError: No rows of that scorer, or a scorer without axis scores.
        """
        widgets = ipywidgets()
        from ._paged_table import Column, PagedTable, callback_on_select
        from ._scatter import AxisScatter

        all_rows = result_rows(result)
        rows = [row for row in all_rows if row.scorer == scorer]
        if not all_rows:
            raise ConfigurationError(
                "AxisExplorer: the result holds no items; score some summaries first"
            )
        if not rows:
            present = sorted({row.scorer for row in all_rows})
            raise ConfigurationError(
                f"AxisExplorer: no results of scorer {scorer!r}; the result holds {present}. "
                "Pass scorer= with the summarization scorer's id."
            )
        every_row_failed = all(row.error_message is not None for row in rows)
        if not every_row_failed and not any("alignment_score" in row.extra for row in rows):
            raise ConfigurationError(
                f"AxisExplorer: scorer {scorer!r} has no alignment and coverage scores; "
                "it explores summarization results"
            )
        if max_listed is not None and (
            isinstance(max_listed, bool) or not isinstance(max_listed, int) or max_listed < 1
        ):
            raise ConfigurationError(f"AxisExplorer: max_listed must be >= 1, got {max_listed!r}")
        self.scorer = scorer
        self.max_listed = max_listed
        self._rows = rows
        self._points = [
            AxisPoint(
                row.item_id,
                row.number("alignment_score"),
                row.number("coverage_score"),
                "failed" if row.failed else str(row.extra.get("decided_by", "tie")),
            )
            for row in rows
        ]
        self._selected: int | None = None
        self._listed: list[int] = []

        self.threshold = widgets.FloatSlider(
            value=min(max(float(threshold), 0.0), 1.0),
            min=0.0,
            max=1.0,
            step=0.05,
            description="|a - c| ≥",
            readout_format=".2f",
            continuous_update=False,
            style={"description_width": "initial"},
        )
        self.listing_note = widgets.HTML()
        names = [name for name, _ in CATEGORIES]
        self.scatter: AxisScatter = AxisScatter(
            x=[_finite_or_none(point.alignment) for point in self._points],
            y=[_finite_or_none(point.coverage) for point in self._points],
            kind=[
                names.index(point.decided_by) if point.decided_by in names else names.index("tie")
                for point in self._points
            ],
            ids=[str(point.item_id) for point in self._points],
            categories=[{"name": name, "color": color} for name, color in CATEGORIES],
            threshold=float(self.threshold.value),
        )
        self.clear_button = widgets.Button(
            description="clear selection", icon="times", layout={"width": "150px"}
        )
        self.clear_button.on_click(lambda _: self.clear_selection())
        self.table: PagedTable = PagedTable(
            [
                Column("item_id", "item"),
                Column("gap", "|a - c|", numeric=True, width="60px"),
                Column("alignment", "alignment", numeric=True, width="70px"),
                Column("coverage", "coverage", numeric=True, width="66px"),
                Column("decided_by", "decided by", width="76px"),
                Column("score", "score", numeric=True, width="56px"),
            ],
            page_size=page_size,
        )
        self.table.set_frame(self._frame())
        self.table.sort_key, self.table.descending = "gap", True
        self.detail = widgets.HTML()
        left = widgets.VBox(
            [
                widgets.HBox([self.threshold, self.clear_button]),
                self.scatter,
                self.listing_note,
                self.table,
            ],
            layout={"width": "490px", "min_width": "490px"},
        )
        right = widgets.Box(
            [self.detail],
            layout={
                "flex": "1 1 auto",
                "min_width": "0",
                "max_height": "860px",
                "overflow": "auto",
                "padding": "0 0 0 10px",
                "border_left": "1px solid #ddd",
            },
        )
        self.widget = widgets.HBox([left, right], layout={"width": "100%"})
        self.widget.add_class("evaltoolkit-axis-explorer")

        self._update_listing()
        if self._listed:
            self._show(self._listed[0])
        else:
            self._render_detail()
        self.threshold.observe(self._on_threshold, names="value")
        callback_on_select(self.table, self._on_pick)
        self.scatter.observe(self._on_point_click, names="clicked")
        self.scatter.observe(self._on_brush, names="brushed")

    def _frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(
            {
                "item_id": [str(point.item_id) for point in self._points],
                "gap": [point.disagreement for point in self._points],
                "alignment": [point.alignment for point in self._points],
                "coverage": [point.coverage for point in self._points],
                "decided_by": [point.decided_by for point in self._points],
                "score": [row.score for row in self._rows],
            },
            index=pd.RangeIndex(len(self._points)),
        )

    @property
    def items(self) -> list[Any]:
        """The item ids listed (disagreement at or above the threshold, and inside the
        scatter's selection when there is one), most disagreeing first."""
        return [self._rows[position].item_id for position in self._listed]

    @property
    def selected(self) -> Any:
        """The id of the item shown in the detail pane, None when none is."""
        return None if self._selected is None else self._rows[self._selected].item_id

    def disagreement(self, item_id: Any) -> float:
        """|alignment - coverage| of an item (NaN for a failed one)."""
        return self._points[self._position(item_id)].disagreement

    def select(self, item_id: Any) -> None:
        """Show one item in the detail pane (listed or not), ringed in the scatter.

        Raises:
            KeyError: No item has that id.
        """
        self._show(self._position(item_id))

    def select_points(self, item_ids: list[Any]) -> None:
        """Keep only these items in the table, as dragging a rectangle over them does."""
        self.scatter.brushed = [self._position(item_id) for item_id in item_ids]

    def clear_selection(self) -> None:
        """List every item above the threshold again (undo the scatter's selection)."""
        self.scatter.brushed = []

    def _position(self, item_id: Any) -> int:
        for position, row in enumerate(self._rows):
            if row.item_id == item_id:
                return position
        raise KeyError(f"no item {item_id!r} among the {self.scorer} results")

    def _update_listing(self) -> None:
        import pandas as pd

        threshold = float(self.threshold.value)
        scored = [position for position, point in enumerate(self._points) if not point.failed]
        brushed = set(self.scatter.brushed)
        listed = [
            position
            for position in scored
            # A small tolerance, so that a gap of 0.3 counts as "at least 0.30" despite rounding.
            if self._points[position].disagreement >= threshold - 1e-9
            and (not brushed or position in brushed)
        ]
        listed.sort(key=lambda position: -self._points[position].disagreement)
        shown = listed if self.max_listed is None else listed[: self.max_listed]
        self._listed = shown
        keep = pd.Series(False, index=pd.RangeIndex(len(self._points)))
        keep[shown] = True
        self.table.set_mask(keep)
        failed = len(self._points) - len(scored)
        text = (
            f"{len(listed)} of {len(scored)} items disagree by at least {threshold:.2f}"
            + (f" among the {len(brushed)} selected in the scatter" if brushed else "")
            + "; the table lists them, most disagreeing first."
        )
        if len(shown) < len(listed):
            text += f" The list holds the first {len(shown)}."
        if failed:
            text += f" {failed} failed item{'s' if failed != 1 else ''} not listed."
        self.listing_note.value = str(esc(text))

    def _show(self, position: int) -> None:
        self._selected = position
        self.table.show_row(position)
        self.scatter.highlight = position
        self._render_detail()

    def _render_detail(self) -> None:
        if self._selected is None:
            self.detail.value = str(note("Select an item to see its claims and questions."))
            return
        row: ResultRow = self._rows[self._selected]
        self.detail.value = str(summarization_detail(row))

    def _on_threshold(self, change: dict[str, Any]) -> None:
        self.scatter.threshold = float(change["new"])
        self._update_listing()

    def _on_pick(self, position: int) -> None:
        if position != self._selected:
            self._show(position)

    def _on_point_click(self, change: dict[str, Any]) -> None:
        if int(change["new"]) >= 0 and int(change["new"]) != self._selected:
            self._show(int(change["new"]))

    def _on_brush(self, change: dict[str, Any]) -> None:
        self._update_listing()
        if self._listed and self._selected not in self._listed:
            self._show(self._listed[0])

    def __repr__(self) -> str:
        threshold = float(self.threshold.value)
        selected = "" if self.selected is None else f", selected={self.selected!r}"
        return (
            f"AxisExplorer({self.scorer}: {len(self._rows)} items, {len(self._listed)} with "
            f"|alignment - coverage| >= {threshold:.2f}{selected})"
        )


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
