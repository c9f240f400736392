"""AxisExplorer: where a summary's alignment and coverage disagree, and the claims behind it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .._internal.html import esc, format_score, note
from ..errors import ConfigurationError
from ..plots import AxisPoint, draw_axis_scatter
from ..records import EvalResult
from ..scorers import SUMMARIZATION_ID
from ._base import View, figure_png, ipywidgets
from ._detail import summarization_detail
from ._rows import ResultRow, result_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AxisExplorer"]


class AxisExplorer(View):
    """Alignment against coverage per item, the most disagreeing items, and why.

    The figure plots every item's alignment (supported claims / claims) against its coverage
    (answered questions / questions), coloured by the axis that decided the score. The list
    holds the items whose |alignment - coverage| is at least the slider's threshold, most
    disagreeing first; selecting one shows its source and summary side by side, each claim
    with its verdict and reason, each question with its verdict and reason, and the score and
    reason. Failed items have no axes: they are counted, not listed.

    Attributes:
        widget: The root container, to place in other layouts.
        threshold: The disagreement threshold slider (``explorer.threshold.value = 0.5``).
        item_list: The list of disagreeing items (values are row positions).
        figure: The scatter plot, a PNG image widget.
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
        max_listed: int = 200,
        figure_dpi: int = 90,
    ) -> None:
        """Build the view.

        Args:
            result: An EvalResult holding summarization results, its ``to_frame()`` (or
                ``to_wide()``), or the path of saved results.
            scorer: The summarization scorer's id in the run.
            threshold: The initial disagreement threshold (0 to 1).
            max_listed: The most items the list holds (the most disagreeing ones).
            figure_dpi: Resolution of the figure image.

        Raises:
            ConfigurationError: No rows of that scorer, or a scorer without axis scores.
        """
        widgets = ipywidgets()
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
        if isinstance(max_listed, bool) or not isinstance(max_listed, int) or max_listed < 1:
            raise ConfigurationError(f"AxisExplorer: max_listed must be >= 1, got {max_listed!r}")
        self.scorer = scorer
        self.max_listed = max_listed
        self._rows = rows
        self._figure_dpi = figure_dpi
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
        self._relisting = False

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
        self.item_list = widgets.Select(options=[], rows=10, layout={"width": "340px"})
        self.figure = widgets.Image(format="png", layout={"width": "420px"})
        self.detail = widgets.HTML()
        controls = widgets.VBox([self.threshold, self.listing_note, self.item_list])
        self.widget = widgets.VBox(
            [widgets.HBox([self.figure, controls]), self.detail],
            layout={"width": "100%"},
        )
        self.widget.add_class("evaltoolkit-axis-explorer")

        self._update_listing()
        if self._listed:
            self._show(self._listed[0])
        else:
            self._redraw()
            self._render_detail()
        self.threshold.observe(self._on_threshold, names="value")
        self.item_list.observe(self._on_pick, names="value")

    @property
    def items(self) -> list[Any]:
        """The item ids listed (disagreement at or above the threshold), most disagreeing first.

        At most ``max_listed`` of them.
        """
        return [self._rows[position].item_id for position in self._listed]

    @property
    def selected(self) -> Any:
        """The id of the item shown in the detail pane, None when none is."""
        return None if self._selected is None else self._rows[self._selected].item_id

    def disagreement(self, item_id: Any) -> float:
        """|alignment - coverage| of an item (NaN for a failed one)."""
        return self._points[self._position(item_id)].disagreement

    def select(self, item_id: Any) -> None:
        """Show one item in the detail pane (listed or not).

        Raises:
            KeyError: No item has that id.
        """
        self._show(self._position(item_id))

    def _position(self, item_id: Any) -> int:
        for position, row in enumerate(self._rows):
            if row.item_id == item_id:
                return position
        raise KeyError(f"no item {item_id!r} among the {self.scorer} results")

    def _update_listing(self) -> None:
        threshold = float(self.threshold.value)
        scored = [position for position, point in enumerate(self._points) if not point.failed]
        listed = [
            position
            for position in scored
            # A small tolerance, so that a gap of 0.3 counts as "at least 0.30" despite rounding.
            if self._points[position].disagreement >= threshold - 1e-9
        ]
        listed.sort(key=lambda position: -self._points[position].disagreement)
        self._listed = listed[: self.max_listed]
        # Replacing the options moves the list's value; that is not the user picking an item.
        self._relisting = True
        try:
            self.item_list.options = [(self._label(position), position) for position in listed]
            self.item_list.value = self._selected if self._selected in listed else None
        finally:
            self._relisting = False
        failed = len(self._points) - len(scored)
        text = (
            f"{len(listed)} of {len(scored)} items disagree by at least {threshold:.2f}, "
            "most disagreeing first."
        )
        if len(listed) > self.max_listed:
            text += f" The list holds the first {self.max_listed}."
        if failed:
            text += f" {failed} failed item{'s' if failed != 1 else ''} not listed."
        self.listing_note.value = str(esc(text))

    def _label(self, position: int) -> str:
        point, row = self._points[position], self._rows[position]
        return (
            f"{row.item_id}  |a-c| {format_score(point.disagreement)}  "
            f"score {format_score(row.score)}"
        )

    def _show(self, position: int) -> None:
        self._selected = position
        if position in self._listed and self.item_list.value != position:
            self.item_list.value = position
        self._render_detail()
        self._redraw()

    def _render_detail(self) -> None:
        if self._selected is None:
            self.detail.value = str(note("Select an item to see its claims and questions."))
            return
        row: ResultRow = self._rows[self._selected]
        self.detail.value = str(summarization_detail(row))

    def _redraw(self) -> None:
        figure = draw_axis_scatter(
            self._points,
            scorer=self.scorer,
            threshold=float(self.threshold.value),
            highlight=self.selected,
        )
        self.figure.value = figure_png(figure, dpi=self._figure_dpi)

    def _on_threshold(self, change: dict[str, Any]) -> None:
        self._update_listing()
        self._redraw()

    def _on_pick(self, change: dict[str, Any]) -> None:
        position = change["new"]
        if not self._relisting and position is not None and position != self._selected:
            self._show(int(position))

    def __repr__(self) -> str:
        threshold = float(self.threshold.value)
        selected = "" if self.selected is None else f", selected={self.selected!r}"
        return (
            f"AxisExplorer({self.scorer}: {len(self._rows)} items, {len(self._listed)} with "
            f"|alignment - coverage| >= {threshold:.2f}{selected})"
        )
