"""PagedTable: a sortable, filterable table that sends one page of rows at a time.

The rows stay in Python, in a DataFrame; sorting, filtering and paging happen there (pandas),
and the page shown (15 rows by default) is all that reaches the browser, so a table of 10,000
rows opens as fast as one of 20. The browser part is a small anywidget module: a filter box,
clickable column headers, the page's rows and a pager. Every cell is set as text
(``textContent``), never as HTML, so text from models or data cannot inject markup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Column", "PagedTable"]


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its key in the frame, its header, and how a cell is written."""

    key: str
    label: str
    numeric: bool = False
    width: str = ""


def _cell_text(value: Any, numeric: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a" if numeric else ""
        return f"{value:.3f}" if numeric else f"{value:g}"
    return str(value)


_ESM = r"""
function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function render({ model, el }) {
  const root = element("div", "evaltoolkit-paged-table");
  const bar = element("div", "ept-bar");
  const search = element("input", "ept-search");
  search.type = "search";
  search.placeholder = "filter rows (any column)";
  search.value = model.get("query");
  const info = element("span", "ept-info");
  bar.append(search, info);
  const wrap = element("div", "ept-wrap");
  const table = element("table", "ept-table");
  const head = element("thead");
  const body = element("tbody");
  table.append(head, body);
  wrap.append(table);
  const pager = element("div", "ept-pager");
  const first = element("button", "ept-first", "«");
  const previous = element("button", "ept-previous", "‹ previous");
  const pageText = element("span", "ept-page");
  const next = element("button", "ept-next", "next ›");
  const last = element("button", "ept-last", "»");
  pager.append(first, previous, pageText, next, last);
  root.append(bar, wrap, pager);
  el.append(root);

  const pages = () => Math.max(1, Math.ceil(model.get("total") / model.get("page_size")));
  const goTo = (page) => {
    const bounded = Math.min(Math.max(0, page), pages() - 1);
    if (bounded !== model.get("page")) {
      model.set("page", bounded);
      model.save_changes();
    }
  };
  first.addEventListener("click", () => goTo(0));
  previous.addEventListener("click", () => goTo(model.get("page") - 1));
  next.addEventListener("click", () => goTo(model.get("page") + 1));
  last.addEventListener("click", () => goTo(pages() - 1));
  let typing = null;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      model.set("query", search.value);
      model.save_changes();
    }, 250);
  });

  function drawHead() {
    head.replaceChildren();
    const row = element("tr");
    const sortKey = model.get("sort_key");
    for (const column of model.get("columns")) {
      const arrow = column.key === sortKey ? (model.get("descending") ? " ▼" : " ▲") : "";
      const cell = element("th", column.numeric ? "ept-number" : "", column.label + arrow);
      cell.dataset.key = column.key;
      cell.title = "sort by " + column.label;
      if (column.width) cell.style.width = column.width;
      cell.addEventListener("click", () => {
        if (model.get("sort_key") === column.key) {
          model.set("descending", !model.get("descending"));
        } else {
          model.set("sort_key", column.key);
          model.set("descending", column.numeric);
        }
        model.save_changes();
      });
      row.append(cell);
    }
    head.append(row);
  }

  function drawBody() {
    body.replaceChildren();
    const columns = model.get("columns");
    const keys = model.get("row_keys");
    const selected = model.get("selected");
    model.get("rows").forEach((cells, index) => {
      const row = element("tr", keys[index] === selected ? "ept-selected" : "");
      row.dataset.key = String(keys[index]);
      cells.forEach((text, column) => {
        const numeric = columns[column] && columns[column].numeric;
        const cell = element("td", numeric ? "ept-number" : "", text);
        cell.title = text;
        row.append(cell);
      });
      row.addEventListener("click", () => {
        model.set("selected", keys[index]);
        model.save_changes();
      });
      body.append(row);
    });
    const total = model.get("total");
    const size = model.get("page_size");
    const start = total ? model.get("page") * size + 1 : 0;
    const end = Math.min(total, (model.get("page") + 1) * size);
    const all = model.get("all_rows");
    const caption = model.get("caption");
    info.textContent = `rows ${start}-${end} of ${total}` +
      (total !== all ? ` matching (${all} in all)` : "") + (caption ? ` · ${caption}` : "");
    pageText.textContent = `page ${model.get("page") + 1} of ${pages()}`;
    first.disabled = previous.disabled = model.get("page") === 0;
    next.disabled = last.disabled = model.get("page") >= pages() - 1;
  }

  function drawSelection() {
    const selected = String(model.get("selected"));
    for (const row of body.children) {
      row.classList.toggle("ept-selected", row.dataset.key === selected);
    }
  }

  drawHead();
  drawBody();
  model.on("change:columns", drawHead);
  model.on("change:sort_key", drawHead);
  model.on("change:descending", drawHead);
  model.on("change:rows", drawBody);
  model.on("change:caption", drawBody);
  model.on("change:selected", drawSelection);
  model.on("change:query", () => {
    if (search.value !== model.get("query")) search.value = model.get("query");
  });
}

export default { render };
"""

_CSS = """
.evaltoolkit-paged-table { font-size: 12px; width: 100%; }
.evaltoolkit-paged-table .ept-bar { display: flex; gap: 10px; align-items: center;
  margin: 2px 0 4px; }
.evaltoolkit-paged-table .ept-search { width: 240px; }
.evaltoolkit-paged-table .ept-wrap { overflow-x: auto; }
.evaltoolkit-paged-table .ept-table { border-collapse: collapse; table-layout: fixed; width: 100%; }
.evaltoolkit-paged-table th { cursor: pointer; text-align: left; background: #f2f2f2;
  border-bottom: 1px solid #bbb; padding: 3px 5px; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; user-select: none; }
.evaltoolkit-paged-table td { padding: 2px 5px; border-bottom: 1px solid #e6e6e6;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; height: 20px; }
.evaltoolkit-paged-table .ept-number { text-align: right; }
.evaltoolkit-paged-table tbody tr { cursor: pointer; }
.evaltoolkit-paged-table tbody tr:hover { background: #eef4ff; }
.evaltoolkit-paged-table tr.ept-selected { background: #cfe0ff; }
.evaltoolkit-paged-table .ept-pager { display: flex; gap: 6px; align-items: center;
  margin-top: 4px; }
"""


class PagedTable(anywidget.AnyWidget):
    """A table over a DataFrame: sorted, filtered and paged in Python, one page in the page.

    Rows are keyed by the frame's index (integers). ``set_mask`` keeps the rows a view's own
    controls keep; the filter box (``query``) keeps the rows where any shown column contains
    the text (case-insensitive). Clicking a row sets ``selected`` to its key.

    Example:
        >>> import pandas as pd
        >>> table = PagedTable([Column("id", "id"), Column("score", "score", numeric=True)],
        ...                    page_size=2)
        >>> table.set_frame(pd.DataFrame({"id": ["a", "b", "c"], "score": [0.5, 0.1, 0.9]}))
        >>> table.sort_key, table.descending = "score", True
        >>> table.rows
        [['c', '0.900'], ['a', '0.500']]
    """

    _esm = _ESM
    _css = _CSS

    columns = traitlets.List(traitlets.Dict()).tag(sync=True)
    rows = traitlets.List(traitlets.List()).tag(sync=True)
    row_keys = traitlets.List(traitlets.Int()).tag(sync=True)
    page = traitlets.Int(0).tag(sync=True)
    page_size = traitlets.Int(15).tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    all_rows = traitlets.Int(0).tag(sync=True)
    sort_key = traitlets.Unicode("").tag(sync=True)
    descending = traitlets.Bool(False).tag(sync=True)
    query = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Int(-1).tag(sync=True)
    caption = traitlets.Unicode("").tag(sync=True)

    def __init__(self, columns: Sequence[Column], *, page_size: int = 15, **kwargs: Any) -> None:
        super().__init__(page_size=page_size, **kwargs)
        import pandas as pd

        self._frame = pd.DataFrame()
        self._text = pd.Series([], dtype=str)
        self._mask: pd.Series | None = None
        self._order: list[int] = []
        self.set_columns(columns)
        self.observe(self._on_order, names=["sort_key", "descending", "query"])
        self.observe(self._on_page, names=["page", "page_size"])

    def set_columns(self, columns: Sequence[Column]) -> None:
        """Which columns of the frame the table shows, in order (set before ``set_frame``)."""
        self._columns = list(columns)
        self.columns = [
            {"key": c.key, "label": c.label, "numeric": c.numeric, "width": c.width}
            for c in self._columns
        ]

    def set_frame(self, frame: pd.DataFrame) -> None:
        """Show new rows (the frame's integer index are the row keys); back to page 1.

        The filter box searches the text columns (not the numbers).
        """
        import pandas as pd

        self._frame = frame
        text = pd.Series("", index=frame.index, dtype=object)
        for column in self._columns:
            if not column.numeric:
                text = text + " " + frame[column.key].map(_cell_text_lower)
        self._text = text
        self._mask = None
        self._apply(reset_page=True)

    def set_mask(self, mask: pd.Series | Sequence[bool] | None) -> None:
        """Keep only the rows where ``mask`` is True (aligned on the row keys); None: all."""
        import pandas as pd

        if mask is not None and not isinstance(mask, pd.Series):
            mask = pd.Series(list(mask), index=self._frame.index)
        self._mask = mask
        self._apply(reset_page=True)

    @property
    def order(self) -> list[int]:
        """The keys of every row that passes the filters, in table order (all pages)."""
        return list(self._order)

    @property
    def page_keys(self) -> list[int]:
        """The keys of the rows on the page shown."""
        return list(self.row_keys)

    def page_of(self, key: int) -> int | None:
        """The page holding a row, None when the filters leave it out."""
        try:
            return self._order.index(key) // self.page_size
        except ValueError:
            return None

    def _on_order(self, change: dict[str, Any]) -> None:
        self._apply(reset_page=True)

    def _on_page(self, change: dict[str, Any]) -> None:
        self._draw_page()

    def _apply(self, *, reset_page: bool) -> None:
        frame = self._frame
        keep = None
        if self._mask is not None:
            keep = self._mask.reindex(frame.index, fill_value=False).astype(bool)
        query = self.query.strip().lower()
        if query and len(frame):
            found = self._text.str.contains(query, regex=False)
            keep = found if keep is None else keep & found
        kept = frame if keep is None else frame[keep.to_numpy()]
        if self.sort_key and self.sort_key in kept.columns and len(kept):
            kept = kept.sort_values(
                self.sort_key,
                ascending=not self.descending,
                na_position="last",
                kind="stable",
                key=_sortable,
            )
        self._order = [int(key) for key in kept.index]
        self.all_rows = len(frame)
        self.total = len(self._order)
        if reset_page and self.page != 0:
            self.page = 0  # draws through _on_page
        else:
            self._draw_page()

    def _draw_page(self) -> None:
        pages = max(1, math.ceil(len(self._order) / self.page_size))
        page = min(max(0, self.page), pages - 1)
        if page != self.page:
            self.page = page
            return
        keys = self._order[page * self.page_size : (page + 1) * self.page_size]
        shown = self._frame.loc[keys, [c.key for c in self._columns]]
        rows = [
            [
                _cell_text(value, column.numeric)
                for value, column in zip(values, self._columns, strict=True)
            ]
            for values in shown.itertuples(index=False, name=None)
        ]
        with self.hold_sync():
            self.row_keys = keys
            self.rows = rows

    def show_row(self, key: int) -> None:
        """Turn to the page holding a row (if the filters keep it) and mark it selected."""
        page = self.page_of(key)
        if page is not None and page != self.page:
            self.page = page
        self.selected = key


def _cell_text_lower(value: Any) -> str:
    return _cell_text(value, False).lower()


def _sortable(column: pd.Series) -> pd.Series:
    """Numbers sort as numbers; any other column as text (mixed types would not compare)."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        return column
    numbers = pd.to_numeric(column, errors="coerce")
    if numbers.notna().sum() == column.notna().sum():
        return numbers
    return column.map(lambda value: None if _blank(value) else str(value).lower())


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def callback_on_select(table: PagedTable, callback: Callable[[int], None]) -> None:
    """Call ``callback(key)`` when a row is clicked (``selected`` set to a row's key)."""

    def on_change(change: dict[str, Any]) -> None:
        if change["new"] is not None and int(change["new"]) >= 0:
            callback(int(change["new"]))

    table.observe(on_change, names="selected")
