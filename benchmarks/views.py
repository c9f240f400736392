"""How fast the notebook views open in JupyterLab, and how tall they are, at 800 and 10,000 items.

Starts JupyterLab (as tests/test_browser.py does: 127.0.0.1, isolated directories) and opens a
notebook in headless Chromium (Debian's /usr/bin/chromium) in a 1440 x 900 viewport. The data
are tests/view_data.py's synthetic results (two scorers per item, no judge calls). For each
view and size it runs the view's cell alone and prints:

- first paint: from pressing Ctrl+Enter on the cell to the view's root visible in the page
  (the kernel builds the view, the page renders it);
- for the PromptTuner, run: from a click on Run to the verdict in the page, rescoring every
  item before and after (a cheap judged scorer, tests/view_data.py's ``brevity_scorer``)
  and 20 bootstrap resamples for the intervals;
- open an item: from a click on a table row to the item's detail in the page (ResultBrowser,
  AxisExplorer); the Annotator: from typing ``n`` to the next item shown; the tuner has no
  detail pane: from a click on "next" to the next page of its table;
- height: the view's height in pixels;
- and, for the AxisExplorer, the time the page took to draw its scatter (``render_ms``).

    python benchmarks/views.py                  # 800 and 10,000 items
    python benchmarks/views.py --sizes 800      # one size

The machine's other load shows in these times: say what ran beside it when quoting them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from test_browser import (  # noqa: E402
    VIEW_CLASSES,
    launch_browser,
    open_notebook,
    running_lab,
    views_notebook,
)

STEP_MS = 180_000


def _run_cell(page: Any, index: int) -> None:
    cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")


def _wait_until_idle(page: Any) -> None:
    status = page.locator("#jp-main-statusbar")
    page.wait_for_function(
        "(bar) => bar.innerText.includes('| Idle')", arg=status.element_handle(), timeout=STEP_MS
    )


def _open_item(page: Any, kind: str, view: Any) -> float:
    """Seconds from the action that opens an item (or turns a page) to its result shown."""
    if kind == "annotator":
        progress = view.locator(".evaltoolkit-progress")
        keys = view.locator(".evaltoolkit-keys input")
        keys.click()
        started = time.perf_counter()
        keys.type("n")
        progress.filter(has_text="item 2 of").wait_for(timeout=STEP_MS)
        return time.perf_counter() - started
    if kind == "tuner":
        info = view.locator(".ept-info").first
        started = time.perf_counter()
        view.locator(".ept-next").first.click()
        info.filter(has_text="rows 9-16").wait_for(timeout=STEP_MS)
        return time.perf_counter() - started
    row = view.locator(".ept-table tbody tr").nth(3)
    item_id = row.locator("td").first.inner_text()
    started = time.perf_counter()
    row.click()
    heading = f"Item {item_id}" if kind == "explorer" else f"{item_id} · "
    view.locator(".widget-html-content", has_text=heading).first.wait_for(timeout=STEP_MS)
    return time.perf_counter() - started


def _output_of(page: Any, index: int, text: str) -> str:
    """Run a cell and wait for its output to contain ``text``; return that output."""
    _run_cell(page, index)
    cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell").nth(index)
    output = cell.locator(".jp-OutputArea-output", has_text=text).last
    output.wait_for(timeout=STEP_MS)
    return str(output.inner_text())


def _render_ms(page: Any, cell_index: int) -> dict[str, float]:
    output = _output_of(page, cell_index, "render_ms")
    report = json.loads(output)
    return {name: float(value) for name, value in report["render_ms"].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[800, 10_000])
    arguments = parser.parse_args()
    sizes = tuple(arguments.sizes)
    from playwright.sync_api import sync_playwright

    notebook = views_notebook(sizes, demo_tuner=False, tuner_sample=max(sizes), run_tuner=False)
    rows = []
    with (
        tempfile.TemporaryDirectory() as folder,
        running_lab(Path(folder), {"views.ipynb": notebook}) as lab,
        sync_playwright() as playwright,
    ):
        browser = launch_browser(playwright, lab.home)
        requests: list[str] = []
        dialogs: list[str] = []
        page = open_notebook(browser, lab, "views.ipynb", requests, dialogs)
        page.set_default_timeout(STEP_MS)
        _output_of(page, 0, "ready")
        panel = page.locator(".jp-NotebookPanel:visible")
        index = 1
        for size in sizes:
            for kind in VIEW_CLASSES:
                view = (
                    panel.locator(".jp-CodeCell")
                    .nth(index)
                    .locator(f".jp-OutputArea-output .{VIEW_CLASSES[kind]}")
                )
                started = time.perf_counter()
                _run_cell(page, index)
                view.wait_for(state="visible", timeout=STEP_MS)
                if kind == "explorer":
                    view.locator("canvas").first.wait_for(state="visible", timeout=STEP_MS)
                paint = time.perf_counter() - started
                _wait_until_idle(page)
                run = float("nan")
                if kind == "tuner":
                    started = time.perf_counter()
                    view.locator(".widget-button", has_text="Run").click()
                    view.locator(".evaltoolkit-verdict", has_text="Verdict (").wait_for(
                        timeout=STEP_MS
                    )
                    run = time.perf_counter() - started
                view.evaluate("(element) => element.scrollIntoView({block: 'start'})")
                height = view.bounding_box()["height"]
                opened = _open_item(page, kind, view)
                rows.append((kind, size, paint, run, opened, height))
                ran = f", run {run:6.2f} s" if kind == "tuner" else ""
                print(
                    f"{kind:10} {size:>6} items: first paint {paint:6.2f} s{ran}, "
                    f"open an item {opened:5.2f} s, height {height:5.0f} px",
                    flush=True,
                )
                index += 1
        render = _render_ms(page, index)
        browser.close()
    print()
    print("| view | items | first paint (s) | run (s) | open an item (s) | height (px) |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind, size, paint, run, opened, height in rows:
        ran = f"{run:.2f}" if run == run else ""
        print(f"| {kind} | {size} | {paint:.2f} | {ran} | {opened:.2f} | {height:.0f} |")
    for name, value in render.items():
        print(f"{name}: scatter drawn in {value:.1f} ms in the page")


if __name__ == "__main__":
    main()
