"""AxisScatter: alignment against coverage on a canvas, with hover, click and brush selection.

Points are drawn on an HTML canvas in the browser (10,000 points draw in a few milliseconds;
the time of the last full draw comes back in ``render_ms``). Hovering a point shows its id in
full and its two axes; clicking one sets ``clicked``; dragging a rectangle selects the points
inside it (``brushed``, their positions), which the view turns into table rows. The legend sits
inside the plot. Ids are set as text, never as HTML.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

__all__ = ["AxisScatter"]

_ESM = r"""
const MARGIN = { left: 46, right: 12, top: 12, bottom: 38 };

function render({ model, el }) {
  const width = model.get("width");
  const height = model.get("height");
  const root = document.createElement("div");
  root.className = "evaltoolkit-scatter";
  root.style.position = "relative";
  root.style.width = width + "px";
  root.style.height = height + "px";
  const base = document.createElement("canvas");
  const overlay = document.createElement("canvas");
  for (const canvas of [base, overlay]) {
    canvas.width = width;
    canvas.height = height;
    canvas.style.position = "absolute";
    canvas.style.left = "0";
    canvas.style.top = "0";
  }
  overlay.style.cursor = "crosshair";
  overlay.className = "evaltoolkit-scatter-overlay";
  const tip = document.createElement("div");
  tip.className = "evaltoolkit-scatter-tip";
  tip.style.cssText = "position:absolute;display:none;pointer-events:none;background:#fff;" +
    "border:1px solid #888;padding:3px 6px;font-size:11px;max-width:260px;" +
    "overflow-wrap:anywhere;z-index:2";
  root.append(base, overlay, tip);
  el.append(root);

  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const px = (x) => MARGIN.left + x * plotW;
  const py = (y) => MARGIN.top + (1 - y) * plotH;
  let screen = [];

  function drawBase() {
    const started = performance.now();
    const context = base.getContext("2d");
    context.clearRect(0, 0, width, height);
    context.fillStyle = "#fff";
    context.fillRect(0, 0, width, height);
    context.strokeStyle = "#ccc";
    context.lineWidth = 1;
    context.strokeRect(MARGIN.left, MARGIN.top, plotW, plotH);
    context.fillStyle = "#333";
    context.font = "11px sans-serif";
    for (let tick = 0; tick <= 4; tick++) {
      const value = tick / 4;
      context.fillText(value.toFixed(2), px(value) - 12, height - MARGIN.bottom + 14);
      context.fillText(value.toFixed(2), 6, py(value) + 4);
    }
    context.font = "12px sans-serif";
    context.fillText(model.get("x_label"), MARGIN.left + plotW / 2 - 40, height - 6);
    context.save();
    context.translate(12, MARGIN.top + plotH / 2 + 40);
    context.rotate(-Math.PI / 2);
    context.fillText(model.get("y_label"), 0, 0);
    context.restore();
    // The band |x - y| < threshold: points outside it disagree.
    const threshold = model.get("threshold");
    context.strokeStyle = "#999";
    context.setLineDash([4, 4]);
    context.beginPath();
    context.moveTo(px(threshold), py(0));
    context.lineTo(px(1), py(1 - threshold));
    context.moveTo(px(0), py(threshold));
    context.lineTo(px(1 - threshold), py(1));
    context.stroke();
    context.setLineDash([]);
    const xs = model.get("x");
    const ys = model.get("y");
    const kinds = model.get("kind");
    const categories = model.get("categories");
    screen = new Array(xs.length);
    const jitter = model.get("jitter");
    for (let kind = 0; kind < categories.length; kind++) {
      context.fillStyle = categories[kind].color;
      context.globalAlpha = xs.length > 2000 ? 0.45 : 0.75;
      context.beginPath();
      for (let index = 0; index < xs.length; index++) {
        if (kinds[index] !== kind || xs[index] === null || ys[index] === null) continue;
        // A small deterministic jitter: many items share a (claims, questions) fraction.
        const dx = jitter * (((index * 7919) % 97) / 97 - 0.5);
        const dy = jitter * (((index * 104729) % 89) / 89 - 0.5);
        const x = px(xs[index]) + dx;
        const y = py(ys[index]) + dy;
        screen[index] = [x, y];
        context.moveTo(x + 3, y);
        context.arc(x, y, 3, 0, 2 * Math.PI);
      }
      context.fill();
    }
    context.globalAlpha = 1;
    // The legend, inside the plot's upper left corner.
    const rowHeight = 16;
    context.font = "11px sans-serif";
    const counts = categories.map((_, kind) => kinds.filter((k) => k === kind).length);
    const labels = categories.map((category, kind) => `${category.name} (${counts[kind]})`);
    const boxWidth = 18 + Math.max(...labels.map((text) => context.measureText(text).width)) + 10;
    context.fillStyle = "rgba(255,255,255,0.9)";
    context.strokeStyle = "#bbb";
    context.fillRect(MARGIN.left + 6, MARGIN.top + 6, boxWidth, rowHeight * labels.length + 6);
    context.strokeRect(MARGIN.left + 6, MARGIN.top + 6, boxWidth, rowHeight * labels.length + 6);
    labels.forEach((text, kind) => {
      const y = MARGIN.top + 6 + rowHeight * kind + 12;
      context.fillStyle = categories[kind].color;
      context.beginPath();
      context.arc(MARGIN.left + 16, y - 4, 4, 0, 2 * Math.PI);
      context.fill();
      context.fillStyle = "#222";
      context.fillText(text, MARGIN.left + 26, y);
    });
    drawOverlay();
    model.set("render_ms", performance.now() - started);
    model.set("drawn_points", screen.filter((point) => point).length);
    model.save_changes();
  }

  let brush = null;
  function drawOverlay() {
    const context = overlay.getContext("2d");
    context.clearRect(0, 0, width, height);
    context.strokeStyle = "#000";
    context.lineWidth = 1.5;
    for (const index of model.get("brushed")) {
      const point = screen[index];
      if (!point) continue;
      context.beginPath();
      context.arc(point[0], point[1], 4.5, 0, 2 * Math.PI);
      context.stroke();
    }
    const highlight = model.get("highlight");
    if (highlight >= 0 && screen[highlight]) {
      const [x, y] = screen[highlight];
      context.strokeStyle = "#d00";
      context.lineWidth = 2.5;
      context.beginPath();
      context.arc(x, y, 8, 0, 2 * Math.PI);
      context.stroke();
    }
    if (brush) {
      context.fillStyle = "rgba(60,120,220,0.15)";
      context.strokeStyle = "rgba(60,120,220,0.8)";
      context.lineWidth = 1;
      const [x0, y0, x1, y1] = brush;
      context.fillRect(Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0));
      context.strokeRect(Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0));
    }
  }

  function nearest(x, y) {
    let best = -1;
    let bestDistance = 64;
    for (let index = 0; index < screen.length; index++) {
      const point = screen[index];
      if (!point) continue;
      const distance = (point[0] - x) ** 2 + (point[1] - y) ** 2;
      if (distance < bestDistance) {
        bestDistance = distance;
        best = index;
      }
    }
    return best;
  }

  const position = (event) => {
    const box = overlay.getBoundingClientRect();
    return [event.clientX - box.left, event.clientY - box.top];
  };
  let pending = false;
  overlay.addEventListener("mousemove", (event) => {
    const [x, y] = position(event);
    if (brush) {
      brush[2] = x;
      brush[3] = y;
      drawOverlay();
      return;
    }
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      const index = nearest(x, y);
      if (index < 0) {
        tip.style.display = "none";
        return;
      }
      const xs = model.get("x");
      const ys = model.get("y");
      tip.textContent = `${model.get("ids")[index]} · ${model.get("x_label")} ` +
        `${xs[index].toFixed(2)} · ${model.get("y_label")} ${ys[index].toFixed(2)}`;
      tip.style.left = Math.min(x + 10, width - 200) + "px";
      tip.style.top = Math.max(0, y - 30) + "px";
      tip.style.display = "block";
    });
  });
  overlay.addEventListener("mouseleave", () => {
    tip.style.display = "none";
  });
  overlay.addEventListener("mousedown", (event) => {
    const [x, y] = position(event);
    brush = [x, y, x, y];
  });
  overlay.addEventListener("mouseup", (event) => {
    if (!brush) return;
    const [x0, y0] = brush;
    const [x1, y1] = position(event);
    brush = null;
    if (Math.abs(x1 - x0) < 4 && Math.abs(y1 - y0) < 4) {
      const index = nearest(x1, y1);
      if (index >= 0) {
        model.set("clicked", index);
        model.save_changes();
      }
      drawOverlay();
      return;
    }
    const [left, right] = [Math.min(x0, x1), Math.max(x0, x1)];
    const [top, bottom] = [Math.min(y0, y1), Math.max(y0, y1)];
    const inside = [];
    screen.forEach((point, index) => {
      if (point && point[0] >= left && point[0] <= right && point[1] >= top && point[1] <= bottom) {
        inside.push(index);
      }
    });
    model.set("brushed", inside);
    model.save_changes();
    drawOverlay();
  });

  drawBase();
  model.on("change:x", drawBase);
  model.on("change:threshold", drawBase);
  model.on("change:kind", drawBase);
  model.on("change:highlight", drawOverlay);
  model.on("change:brushed", drawOverlay);
}

export default { render };
"""


class AxisScatter(anywidget.AnyWidget):
    """A scatter of items on two axes in [0, 1], drawn on a canvas in the browser.

    ``x`` and ``y`` hold one value per item (None for an item without axes), ``kind`` the
    index of its category in ``categories`` (``{"name", "color"}``), ``ids`` its id as text.
    ``clicked`` is the position of the last point clicked (-1: none), ``brushed`` the
    positions inside the last rectangle dragged, ``highlight`` the point ringed in red.
    """

    _esm = _ESM

    x: traitlets.List[float | None] = traitlets.List().tag(sync=True)
    y: traitlets.List[float | None] = traitlets.List().tag(sync=True)
    kind = traitlets.List(traitlets.Int()).tag(sync=True)
    ids = traitlets.List(traitlets.Unicode()).tag(sync=True)
    categories = traitlets.List(traitlets.Dict()).tag(sync=True)
    x_label = traitlets.Unicode("alignment").tag(sync=True)
    y_label = traitlets.Unicode("coverage").tag(sync=True)
    threshold = traitlets.Float(0.3).tag(sync=True)
    width = traitlets.Int(460).tag(sync=True)
    height = traitlets.Int(430).tag(sync=True)
    jitter = traitlets.Float(6.0).tag(sync=True)
    highlight = traitlets.Int(-1).tag(sync=True)
    clicked = traitlets.Int(-1).tag(sync=True)
    brushed = traitlets.List(traitlets.Int()).tag(sync=True)
    render_ms = traitlets.Float(-1.0).tag(sync=True)
    drawn_points = traitlets.Int(-1).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
