"""The report page's inline style sheet and script (no external resource of any kind).

The script reads the JSON data block, filters and pages the item table, and renders a
drill-down; it builds every element with ``createElement`` and ``textContent``, never from
HTML text, so data cannot become markup.
"""

from __future__ import annotations

__all__ = ["SCRIPT", "STYLE"]

STYLE = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
  color: #1f2328; background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 12px 20px 60px; }
h1 { font-size: 22px; margin: 12px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 4px 0 8px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #e5e7eb; text-align: left;
  vertical-align: top; }
th { font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #57606a; }
.note { border-left: 4px solid #0969da; padding: 4px 8px; margin: 6px 0; background: #f6f8fa; }
.note.error { border-left-color: #b42318; }
.note.warning { border-left-color: #9a6700; }
.figures { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.figures svg { max-width: 100%; height: auto; }
.filters { display: flex; flex-wrap: wrap; gap: 14px; align-items: center; margin: 8px 0;
  padding: 8px; background: #f6f8fa; border: 1px solid #d0d7de; }
.filters label { white-space: nowrap; }
#items-table button.open { background: none; border: none; color: #0969da; cursor: pointer;
  padding: 0; font: inherit; text-align: left; text-decoration: underline; }
#items-table tr.failed td { background: #fff5f5; }
#items-table tr.current td { background: #fff8c5; }
.pager { display: flex; gap: 10px; align-items: center; margin: 6px 0; }
#detail { border: 1px solid #d0d7de; padding: 8px 12px; margin-top: 10px; }
.blocks { display: flex; gap: 12px; }
.blocks > div { flex: 1; min-width: 0; }
.text { white-space: pre-wrap; border: 1px solid #ddd; padding: 6px; max-height: 320px;
  overflow: auto; }
.label { font-weight: 600; }
.yes { color: #1a7f37; font-weight: 600; white-space: nowrap; }
.no { color: #b42318; font-weight: 600; white-space: nowrap; }
pre { white-space: pre-wrap; max-height: 320px; overflow: auto; background: #f6f8fa;
  padding: 6px; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var PAGE = 100;
  var data = JSON.parse(document.getElementById("evaltoolkit-report-data").textContent);
  var rows = data.rows, texts = data.texts, details = data.details;
  var RUN = 0, ID = 1, SCORER = 2, SCORE = 3, ALIGN = 4, COVER = 5, FAILED = 6, DETAIL = 7,
      REASON = 8;
  var state = { page: 0, matching: [], current: -1 };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (key === "text") { node.textContent = attrs[key]; }
        else if (key === "cls") { node.className = attrs[key]; }
        else { node.setAttribute(key, attrs[key]); }
      });
    }
    (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
    return node;
  }
  function text(cell) { return typeof cell === "number" ? texts[cell] : String(cell); }
  function fmt(value) { return value === null || value === undefined ? "n/a" : value.toFixed(3); }
  function gap(row) {
    return row[ALIGN] === null || row[COVER] === null ? null : Math.abs(row[ALIGN] - row[COVER]);
  }
  function byId(id) { return document.getElementById(id); }

  function fillSelect(select, values, allLabel) {
    select.appendChild(el("option", { value: "", text: allLabel }));
    values.forEach(function (value, index) {
      select.appendChild(el("option", { value: String(index), text: value }));
    });
  }

  function matches() {
    var scorer = byId("f-scorer").value, run = byId("f-run").value;
    var failedOnly = byId("f-failed").checked;
    var minGap = parseFloat(byId("f-gap").value);
    if (!isFinite(minGap)) { minGap = 0; }
    var kept = [];
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      if (scorer !== "" && row[SCORER] !== Number(scorer)) { continue; }
      if (run !== "" && row[RUN] !== Number(run)) { continue; }
      if (failedOnly && !row[FAILED]) { continue; }
      if (minGap > 0) {
        var g = gap(row);
        if (g === null || g < minGap - 1e-9) { continue; }
      }
      kept.push(i);
    }
    var order = byId("f-sort").value;
    function key(i) {
      var row = rows[i];
      if (order === "gap") { return gap(row); }
      return row[SCORE];
    }
    if (order !== "data") {
      var sign = order === "score-asc" ? 1 : -1;
      kept.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === null && y === null) { return a - b; }
        if (x === null) { return 1; }
        if (y === null) { return -1; }
        return x === y ? a - b : sign * (x - y);
      });
    }
    return kept;
  }

  function renderTable() {
    var body = byId("items-body");
    while (body.firstChild) { body.removeChild(body.firstChild); }
    var total = state.matching.length;
    var pages = Math.max(1, Math.ceil(total / PAGE));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE, end = Math.min(total, start + PAGE);
    var multiRun = data.runs.length > 1;
    for (var k = start; k < end; k++) {
      var index = state.matching[k], row = rows[index];
      var open = el("button", { type: "button", cls: "open", text: row[ID],
                                "data-row": String(index) });
      var g = gap(row);
      var cells = [
        el("td", { cls: "num", text: String(index + 1) }),
        multiRun ? el("td", { text: data.runs[row[RUN]] }) : null,
        el("td", null, [open]),
        el("td", { text: data.scorers[row[SCORER]] }),
        el("td", { cls: "num", text: fmt(row[SCORE]) }),
        el("td", { cls: "num", text: fmt(row[ALIGN]) }),
        el("td", { cls: "num", text: fmt(row[COVER]) }),
        el("td", { cls: "num", text: g === null ? "n/a" : g.toFixed(3) }),
        el("td", { text: row[FAILED] ? "failed" : "scored" }),
        el("td", { text: row[REASON] })
      ];
      var tr = el("tr", { "data-row": String(index) }, cells);
      if (row[FAILED]) { tr.className = "failed"; }
      if (index === state.current) { tr.className += " current"; }
      body.appendChild(tr);
    }
    byId("showing").textContent = total === 0
      ? "No row matches the filters (" + rows.length + " rows in all)."
      : "Showing " + (start + 1) + "\u2013" + end + " of " + total + " matching rows (" +
        rows.length + " in all), page " + (state.page + 1) + " of " + pages + ".";
    byId("prev").disabled = state.page === 0;
    byId("next").disabled = state.page >= pages - 1;
  }

  function refresh() {
    state.matching = matches();
    state.page = 0;
    renderTable();
  }

  function block(label, cell) {
    return el("div", null, [el("div", { cls: "label", text: label }),
                            el("div", { cls: "text", text: text(cell) })]);
  }

  function verdictTable(spec) {
    var parts = [el("h4", { text: spec.title })];
    if (!spec.rows.length) {
      parts.push(el("div", { cls: "note", text: spec.empty || "None." }));
      return parts;
    }
    var head = el("tr", null, spec.head.map(function (h) { return el("th", { text: h }); }));
    var body = spec.rows.map(function (cells) {
      return el("tr", null, cells.map(function (cell) {
        if (typeof cell === "boolean") {
          var words = spec.verdicts || ["yes", "no"];
          return el("td", null, [el("span", { cls: cell ? "yes" : "no",
                                              text: cell ? words[0] : words[1] })]);
        }
        return el("td", { text: text(cell) });
      }));
    });
    parts.push(el("table", { cls: "verdicts " + spec.cls }, [el("thead", null, [head]),
                                                            el("tbody", null, body)]));
    return parts;
  }

  function showDetail(index) {
    var pane = byId("detail");
    while (pane.firstChild) { pane.removeChild(pane.firstChild); }
    state.current = index;
    var row = rows[index];
    var title = "Item " + row[ID] + " \u00b7 " + data.scorers[row[SCORER]];
    if (data.runs.length > 1) { title += " \u00b7 " + data.runs[row[RUN]]; }
    pane.appendChild(el("h3", { text: title }));
    if (row[DETAIL] < 0) {
      pane.appendChild(el("div", { cls: "note warning", text: byId("limit-note").textContent ||
        "This row has no drill-down in the report." }));
      pane.appendChild(el("p", { text: "Score " + fmt(row[SCORE]) + ". " + row[REASON] }));
      renderTable();
      return;
    }
    var d = details[row[DETAIL]];
    pane.appendChild(el("table", { cls: "facts" }, [el("tbody", null, d.facts.map(function (f) {
      return el("tr", null, [el("th", { text: f[0] }), el("td", { text: f[1] })]);
    }))]));
    if (d.error) {
      pane.appendChild(el("div", { cls: "note error", text: text(d.error.text) }));
      if (d.error.reply !== null && d.error.reply !== undefined) {
        pane.appendChild(el("details", null, [el("summary", { text: "the model's last raw reply" }),
                                              el("pre", { text: text(d.error.reply) })]));
      }
    }
    if (d.reason !== null && d.reason !== undefined) {
      pane.appendChild(el("p", null, [el("b", { text: "Reason. " }),
                                      document.createTextNode(text(d.reason))]));
    }
    pane.appendChild(el("div", { cls: "blocks" }, d.blocks.map(function (b) {
      return block(b[0], b[1]);
    })));
    d.tables.forEach(function (spec) {
      verdictTable(spec).forEach(function (node) { pane.appendChild(node); });
    });
    if (d.extras.length) {
      pane.appendChild(el("h4", { text: "Details and fields" }));
      pane.appendChild(el("table", { cls: "extras" }, [el("tbody", null, d.extras.map(function (e) {
        return el("tr", null, [el("th", { text: e[0] }), el("td", { text: text(e[1]) })]);
      }))]));
    }
    renderTable();
  }

  function openFromHash() {
    var found = /^#row-(\d+)$/.exec(window.location.hash);
    if (found && Number(found[1]) < rows.length) {
      showDetail(Number(found[1]));
      byId("detail").scrollIntoView();
    }
  }

  fillSelect(byId("f-scorer"), data.scorers, "all scorers");
  fillSelect(byId("f-run"), data.runs, "all runs");
  if (data.runs.length < 2) { byId("run-filter").hidden = true; }
  ["f-scorer", "f-run", "f-failed", "f-gap", "f-sort"].forEach(function (id) {
    byId(id).addEventListener("change", refresh);
    byId(id).addEventListener("input", refresh);
  });
  byId("prev").addEventListener("click", function () { state.page -= 1; renderTable(); });
  byId("next").addEventListener("click", function () { state.page += 1; renderTable(); });
  byId("items-body").addEventListener("click", function (event) {
    var target = event.target;
    if (target && target.getAttribute && target.getAttribute("data-row") !== null &&
        target.tagName === "BUTTON") {
      showDetail(Number(target.getAttribute("data-row")));
    }
  });
  window.addEventListener("hashchange", openFromHash);
  refresh();
  byId("items-app").hidden = false;
  byId("items-nojs").hidden = true;
  openFromHash();
})();
"""
