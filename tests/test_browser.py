"""The views in a real JupyterLab page, driven in headless Chromium, at 800 and 10,000 items.

The test starts JupyterLab on 127.0.0.1 (free port, token, isolated HOME and Jupyter
directories) once, and opens two notebooks in it, in a 1440 x 900 viewport:

- ``views.ipynb`` renders the ResultBrowser, the AxisExplorer, the PromptTuner (after a run)
  and the Annotator on synthetic results of 800 and of 10,000 items (tests/view_data.py: no
  judge calls), and the offline-judged demo tuner. It checks that each view is at most 900 px
  tall, that the ResultBrowser's scorer filter shows its choice and filters, that a click on a
  row opens the item beside the table, that the scatter shows an id in full on hover and
  that a rectangle dragged over points keeps those rows, that the tuner's verdict is on
  screen without scrolling, that a script/img payload stays text, and that clicks reach the
  kernel (edit, Run, Export, offline settings on the demo tuner).
- ``annotator.ipynb``: three items labelled with the keyboard (the labels file checked on disk
  after each), the judge's verdict hidden before labelling and shown after, a payload item
  shown as text, then a kernel restart and a rerun that resumes at the fourth item.

No page asks anything of a host but 127.0.0.1. Screenshots go to ``artifacts/browser/``
(gitignored). benchmarks/views.py reuses the server and page helpers to time the views. See
../shared/notes/browser-tests.md for the set-up and the pitfalls.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from _support import CHROMIUM, CHROMIUM_FLAGS, REPO, skip_or_fail

from evaltoolkit.meta import VERDICTS

pytestmark = pytest.mark.browser

KERNEL_DISPLAY_NAME = "Python 3 (ipykernel)"
SCREENSHOTS = REPO / "artifacts" / "browser"
PAYLOAD_ID = "payload-item"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
SIZES = (800, 10_000)
VIEWPORT = {"width": 1440, "height": 900}
MAX_VIEW_HEIGHT = 900
VIEW_CLASSES = {
    "browser": "evaltoolkit-result-browser",
    "explorer": "evaltoolkit-axis-explorer",
    "tuner": "evaltoolkit-prompt-tuner",
    "annotator": "evaltoolkit-annotator",
}
# Generous per-step limits; a healthy run takes 30-40 s in all.
SERVER_START_S = 60.0
PAGE_STEP_MS = 60_000
LOCAL_HOSTS = {"127.0.0.1"}


def _require_prerequisites() -> None:
    if not CHROMIUM.exists():
        skip_or_fail(
            "Debian's Chromium is not at /usr/bin/chromium; install it with "
            "`apt-get install -y chromium` (Playwright's own browser download is not needed)"
        )
    for module, package in (
        ("playwright.sync_api", "playwright"),
        ("jupyterlab", "jupyterlab"),
        ("ipykernel", "ipykernel"),
        ("ipywidgets", "ipywidgets"),
    ):
        try:
            __import__(module)
        except ImportError:
            skip_or_fail(f"the Python package {package} is not installed; pip install {package}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1))


def _code_cell(source: str) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": textwrap.dedent(source).strip(),
    }


def _metadata() -> dict[str, Any]:
    return {
        "kernelspec": {
            "name": "python3",
            "display_name": KERNEL_DISPLAY_NAME,
            "language": "python",
        },
        "language_info": {"name": "python"},
    }


_VIEWS_SETUP = '''
import json, sys, time
sys.path[:0] = [REPO, TESTS]
import evaltoolkit as et
from evaltoolkit.widgets import Annotator, AxisExplorer, PromptTuner, ResultBrowser
from view_data import brevity_scorer, demo_rows, synthetic_result, synthetic_rows

sizes, TUNER_SAMPLE, RUN_TUNER = SIZES, SAMPLE, RUN
results = {size: synthetic_result(size) for size in sizes}
rows = {size: synthetic_rows(size) for size in sizes}
rubric = {1: "contradicts the source", 3: "some claims unsupported", 5: "all supported"}
built = {}


def make(kind, size):
    """Build a view on the data of this size; note how long it took in the kernel."""
    started = time.perf_counter()
    if kind == "browser":
        view = ResultBrowser(results[size])
    elif kind == "explorer":
        view = AxisExplorer(results[size])
    elif kind == "tuner":
        view = PromptTuner(brevity_scorer(), rows[size], labels="human_score",
                           sample=min(size, TUNER_SAMPLE), n_bootstrap=20)
        if RUN_TUNER:
            view.run()
    else:
        view = Annotator(results[size], label="consistency", scale=(1, 5),
                         path=f"labels_{size}.jsonl", annotator="alice",
                         rubric=rubric, highlight_shared=True)
    built[f"{kind}_{size}"] = time.perf_counter() - started
    return view


print("ready", sizes)
'''

_VIEWS_REPORT = """
print(json.dumps({
    "built_s": built,
    "render_ms": {name: view.scatter.render_ms for name, view in list(globals().items())
                  if name.startswith("explorer_")},
    "drawn_points": {name: view.scatter.drawn_points for name, view in list(globals().items())
                     if name.startswith("explorer_")},
}))
"""

_DEMO_TUNER = """
demo = demo_rows()
tuner = PromptTuner(et.create_summarization_scorer(), demo, labels="human_score", sample=8)
tuner
"""

# Run again after pressing Run in the page: says how the kernel ran the rescoring.
_HOW_IT_RAN = """
done = "done" if tuner.task and tuner.task.done() else ""
print("run:", type(tuner.task).__name__, done)
print("verdict:", tuner.verdict)
"""


def views_notebook(
    sizes: tuple[int, ...] = SIZES,
    *,
    demo_tuner: bool = True,
    tuner_sample: int = 2_000,
    run_tuner: bool = True,
) -> dict[str, Any]:
    """A notebook that renders every view on synthetic results of each size.

    Cell 0 builds the data; then, per size, one cell per view (``browser_800``,
    ``explorer_800``, ``tuner_800``, ``annotator_800``, ...); the tuner runs in its cell (unless
    ``run_tuner`` is False; on
    at most ``tuner_sample`` items: rescoring 10,000 items twice takes 13 s on 2 cores, which
    benchmarks/views.py spends and the test does not). Then the offline-judged demo tuner
    (pressed in the page), and a cell printing, as JSON, how long each view took to build in
    the kernel and each scatter's draw time in the page.
    """
    setup = _VIEWS_SETUP.replace("REPO, TESTS", f"{str(REPO)!r}, {str(REPO / 'tests')!r}").replace(
        "SIZES, SAMPLE, RUN", f"{sizes!r}, {tuner_sample!r}, {run_tuner!r}"
    )
    cells = [_code_cell(setup)]
    for size in sizes:
        cells += [
            _code_cell(f"{kind}_{size} = make({kind!r}, {size})\n{kind}_{size}")
            for kind in VIEW_CLASSES
        ]
    if demo_tuner:
        cells += [_code_cell(_DEMO_TUNER), _code_cell(_HOW_IT_RAN)]
    cells.append(_code_cell(_VIEWS_REPORT))
    return {"cells": cells, "metadata": _metadata(), "nbformat": 4, "nbformat_minor": 5}


@dataclass
class Lab:
    """A running JupyterLab server."""

    url: str
    token: str
    home: Path
    log: Path
    work: Path

    def notebook_url(self, name: str, *, workspace: str | None = None) -> str:
        # A workspace of its own opens the notebook alone (the default one reopens old tabs).
        where = f"lab/workspaces/{workspace}" if workspace else "lab"
        return f"{self.url}/{where}/tree/{name}?token={self.token}"


def _isolated_environment(root: Path) -> dict[str, str]:
    home = root / "home"
    config = root / "jupyter-config"
    data = root / "jupyter-data"
    environment = {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_DATA_DIR": str(data),
        "JUPYTER_RUNTIME_DIR": str(root / "jupyter-runtime"),
        "IPYTHONDIR": str(root / "ipython"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / "lab-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / "lab-workspaces"),
        "EVALTOOLKIT_CACHE_DIR": str(root / "judge-cache"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "MPLBACKEND": "Agg",
        "PYTHONUNBUFFERED": "1",
    }
    environment.pop("JUPYTER_PATH", None)
    for folder in (home, config, data):
        folder.mkdir(parents=True, exist_ok=True)
    settings = root / "lab-settings"
    _write_json(
        settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
        {"fetchNews": "false", "checkForUpdates": False},
    )
    _write_json(
        settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings",
        {"autoStartDefaultKernel": True, "windowingMode": "none"},
    )
    # The kernel runs this interpreter, whatever `python` on PATH is.
    _write_json(
        data / "kernels" / "python3" / "kernel.json",
        {
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": KERNEL_DISPLAY_NAME,
            "language": "python",
        },
    )
    return environment


def _wait_until_up(process: subprocess.Popen[bytes], status_url: str, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"JupyterLab exited with {process.returncode}:\n{log.read_text()[-3000:]}"
            )
        try:
            with urllib.request.urlopen(status_url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    raise RuntimeError(
        f"JupyterLab did not answer within {SERVER_START_S} s:\n{log.read_text()[-3000:]}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    # The server runs in its own session: the signal reaches its group (kernels too) only.
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


@contextlib.contextmanager
def running_lab(root: Path, notebooks: dict[str, dict[str, Any]]) -> Iterator[Lab]:
    """JupyterLab serving ``notebooks`` (by file name) from ``root / "work"``, stopped after."""
    environment = _isolated_environment(root)
    work = root / "work"
    work.mkdir(exist_ok=True)
    for name, notebook in notebooks.items():
        _write_json(work / name, notebook)
    port, token = _free_port(), "evaltoolkit-browser-test"
    log = root / "jupyterlab.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--allow-root",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                f"--ServerApp.root_dir={work}",
                f"--IdentityProvider.token={token}",
                "--LabApp.extension_manager=readonly",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            cwd=work,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_until_up(process, f"{url}/api/status?token={token}", log)
        yield Lab(url=url, token=token, home=Path(environment["HOME"]), log=log, work=work)
    finally:
        _stop(process)


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    _require_prerequisites()
    with running_lab(
        tmp_path, {"views.ipynb": views_notebook(), "annotator.ipynb": _annotator_notebook()}
    ) as running:
        yield running


def _wait_for_idle_kernel(page: Any) -> None:
    """Wait until the status bar names the kernel and says Idle (the toolbar says so too early).

    A "Select Kernel" or similar dialog, should one appear, is accepted.
    """
    status_bar = page.locator("#jp-main-statusbar")
    deadline = time.monotonic() + PAGE_STEP_MS / 1000
    while time.monotonic() < deadline:
        text = status_bar.inner_text() if status_bar.count() else ""
        if f"{KERNEL_DISPLAY_NAME} | Idle" in text:
            return
        accept = page.locator(".jp-Dialog .jp-mod-accept")
        if accept.count() and accept.first.is_visible():
            accept.first.click()
        page.wait_for_timeout(200)
    raise AssertionError(f"the kernel never became idle; the status bar says {text!r}")


def _run_all_cells(page: Any) -> None:
    page.locator("#jp-MainMenu .lm-MenuBar-item", has_text="Run").first.click()
    page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").click()


def _non_local(urls: list[str]) -> list[str]:
    outside = []
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            continue
        if parts.hostname not in LOCAL_HOSTS:
            outside.append(url)
    return outside


def launch_browser(playwright: Any, home: Path) -> Any:
    """Debian's headless Chromium, with a HOME of its own."""
    browser_home = home / "chromium"
    browser_home.mkdir(exist_ok=True)
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM),
        headless=True,
        args=CHROMIUM_FLAGS,
        env={**os.environ, "HOME": str(browser_home)},
    )


def open_notebook(
    browser: Any, lab: Lab, name: str, requests: list[str], dialogs: list[str]
) -> Any:
    """A 1440 x 900 page on the notebook, its kernel idle, the left sidebar closed."""
    page = browser.new_page(viewport=VIEWPORT)
    page.set_default_timeout(PAGE_STEP_MS)
    page.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda socket: requests.append(socket.url))

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(lab.notebook_url(name, workspace=name.split(".")[0]))
    _wait_for_idle_kernel(page)
    sidebar = page.locator("#jp-left-stack")
    if sidebar.count() and sidebar.is_visible():
        page.keyboard.press("Control+b")  # a researcher's 1440 px go to the notebook
    return page


def view_locator(page: Any, kind: str, size: int | None = None) -> Any:
    """The root of a view in the notebook: the one in the cell of ``<kind>_<size>``."""
    notebook = page.locator(".jp-NotebookPanel:visible")
    views = notebook.locator(f".jp-OutputArea-output .{VIEW_CLASSES[kind]}")
    if size is None:
        return views.last
    return views.nth(SIZES.index(size))


def view_height(page: Any, view: Any) -> float:
    """The view's height in the page, scrolled to the top of the viewport."""
    view.scroll_into_view_if_needed()
    view.evaluate("(element) => element.scrollIntoView({block: 'start'})")
    box = view.bounding_box()
    assert box is not None
    return float(box["height"])


def test_widgets_render_respond_and_stay_safe_in_jupyterlab(lab: Lab) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=PAGE_STEP_MS)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {SCREENSHOTS}")
    requests: list[str] = []
    dialogs: list[str] = []
    started = time.monotonic()
    with sync_playwright() as playwright:
        browser = launch_browser(playwright, lab.home)
        try:
            page = open_notebook(browser, lab, "views.ipynb", requests, dialogs)
            print(f"page open after {time.monotonic() - started:.1f} s")
            _run_all_cells(page)
            notebook = page.locator(".jp-NotebookPanel:visible")
            expect(
                notebook.locator(".jp-CodeCell").last.locator(".jp-OutputArea-output")
            ).to_contain_text("render_ms")
            print(f"cells ran after {time.monotonic() - started:.1f} s")
            print(
                notebook.locator(".jp-CodeCell").last.locator(".jp-OutputArea-output").inner_text()
            )
            heights = {}
            for size in SIZES:
                for kind in VIEW_CLASSES:
                    view = view_locator(page, kind, size)
                    expect(view).to_be_visible()
                    if kind == "explorer":  # the scatter has drawn before the shot
                        expect(view.locator("canvas").first).to_be_visible()
                    heights[f"{kind}_{size}"] = view_height(page, view)
                    view.screenshot(path=str(SCREENSHOTS / f"{kind}-{size}.png"))
                _check_browser(page, view_locator(page, "browser", size), size)
                _check_explorer(page, view_locator(page, "explorer", size), size)
                _check_tuner_verdict_on_screen(page, view_locator(page, "tuner", size))
                _check_annotator_aids(view_locator(page, "annotator", size))
            print("view heights (px):", heights)
            _check_every_point_was_drawn(page, notebook)
            print(f"views checked after {time.monotonic() - started:.1f} s")
            too_tall = {
                name: height for name, height in heights.items() if height > MAX_VIEW_HEIGHT
            }
            assert too_tall == {}, f"views taller than the {MAX_VIEW_HEIGHT} px screen: {too_tall}"
            page.screenshot(path=str(SCREENSHOTS / "jupyterlab-page.png"))

            tuner = view_locator(page, "tuner")
            verdict = _edit_run_and_export(tuner)
            _check_the_run_was_a_kernel_task(page, notebook, verdict)
            tuner.screenshot(path=str(SCREENSHOTS / "prompt-tuner-after-run.png"))
            _check_payload_never_ran(page, dialogs)
            page.close()

            annotating = time.monotonic()
            _annotate_restart_and_resume(browser, lab, requests, dialogs)
            print(f"annotator part took {time.monotonic() - annotating:.1f} s")
            assert not any(urlsplit(url).path.endswith("/x") for url in requests), (
                "the payload's <img src=x> was fetched"
            )
        finally:
            browser.close()
    outside = _non_local(requests)
    assert requests, "no request was recorded"
    assert outside == [], f"the page made requests beyond 127.0.0.1: {outside[:10]}"
    print(f"browser part took {time.monotonic() - started:.1f} s, {len(requests)} requests")


def _check_every_point_was_drawn(page: Any, notebook: Any) -> None:
    """Rerun the report cell: each scatter drew a point per scored item (the failed item has
    no axes) and said how long its draw took."""
    from playwright.sync_api import expect

    report_cell = notebook.locator(".jp-CodeCell").last
    output = report_cell.locator(".jp-OutputArea-output")
    report_cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    drawn = ", ".join(f'"explorer_{size}": {size - 1}' for size in SIZES)
    expect(output).to_contain_text(f'"drawn_points": {{{drawn}}}')
    report = json.loads(output.inner_text())
    print("scatter draw (ms):", report["render_ms"], "built in the kernel (s):", report["built_s"])
    assert all(value >= 0 for value in report["render_ms"].values()), report


def _table_info(view: Any) -> Any:
    return view.locator(".ept-info").first


def _check_browser(page: Any, view: Any, size: int) -> None:
    """The scorer filter shows its choice and filters; a click opens the row beside the table;
    the payload found with the filter box shows as text."""
    from playwright.sync_api import expect

    view.scroll_into_view_if_needed()
    scorer = view.locator(".widget-dropdown select").first
    # ipywidgets writes a label's spaces as no-break spaces.
    shown = scorer.evaluate("(select) => select.selectedOptions[0].textContent")
    assert shown.replace("\xa0", " ") == "all scorers"
    info = _table_info(view)
    expect(info).to_contain_text(f"of {2 * size}")
    scorer.select_option(label="textual-difference")
    expect(info).to_contain_text(f"of {size} matching ({2 * size} in all)")
    scorers = view.locator(".ept-table tbody tr td:nth-child(2)")
    assert set(scorers.all_inner_texts()) == {"textual-difference"}
    row = view.locator(".ept-table tbody tr").nth(2)
    item_id = row.locator("td").first.inner_text()
    row.click()
    detail = view.locator(".evaltoolkit-browser-detail")
    expect(detail).to_contain_text(f"{item_id} · textual-difference")
    table_box, detail_box = view.locator(".ept-table").bounding_box(), detail.bounding_box()
    assert detail_box["x"] >= table_box["x"] + table_box["width"] - 1, "the detail is not beside"
    assert detail_box["y"] < table_box["y"] + table_box["height"]
    scorer.select_option(index=0)
    expect(info).to_contain_text(f"of {2 * size}")
    view.locator(".ept-search").fill(PAYLOAD_ID)
    expect(info).to_contain_text("rows 1-2 of 2 matching")
    view.locator(".ept-table tbody tr").first.click()
    expect(detail).to_contain_text(f"{PAYLOAD_ID} · summarization")
    _check_payload_is_text(page, detail)
    view.locator(".ept-search").fill("")
    expect(info).to_contain_text(f"of {2 * size}")


def _check_explorer(page: Any, view: Any, size: int) -> None:
    """A readable scatter, an id in full on hover, a rectangle that keeps its points' rows,
    a row click that opens the item."""
    from playwright.sync_api import expect

    view.scroll_into_view_if_needed()
    overlay = view.locator("canvas.evaltoolkit-scatter-overlay")
    box = overlay.bounding_box()
    assert box["width"] >= 400 and box["height"] >= 400, box
    # Hover the point at alignment 1, coverage 1 (the plot's upper right corner).
    right, top = box["x"] + box["width"] - 12, box["y"] + 12
    page.mouse.move(right - 2, top + 2)
    tip = view.locator(".evaltoolkit-scatter-tip")
    expect(tip).to_be_visible()
    assert re.search(r"dm-test-[0-9a-f]+(a7f3)+-M\d\d · alignment", tip.inner_text()), (
        tip.inner_text()
    )
    info = _table_info(view)
    all_listed = info.inner_text()
    # Drag a rectangle over the lower right quarter: alignment high, coverage low.
    page.mouse.move(box["x"] + box["width"] * 0.75, box["y"] + box["height"] * 0.6)
    page.mouse.down()
    page.mouse.move(right, box["y"] + box["height"] - 40, steps=4)
    page.mouse.up()
    note = view.locator(".widget-html-content", has_text="selected in the scatter")
    expect(note).to_be_visible()
    expect(info).not_to_have_text(all_listed)
    row = view.locator(".ept-table tbody tr").nth(1)
    item_id = row.locator("td").first.inner_text()
    row.click()
    expect(view.locator(".widget-html-content", has_text=f"Item {item_id}")).to_be_visible()
    view.locator(".widget-button", has_text="clear selection").click()
    expect(info).to_have_text(all_listed)


def _check_tuner_verdict_on_screen(page: Any, view: Any) -> None:
    """With the tuner's top at the top of the screen, its verdict is on screen."""
    view.evaluate("(element) => element.scrollIntoView({block: 'start'})")
    verdict = view.locator(".evaltoolkit-verdict")
    top = view.bounding_box()["y"]
    box = verdict.bounding_box()
    assert box is not None and box["y"] + box["height"] <= top + VIEWPORT["height"], (top, box)
    assert box["y"] + box["height"] <= VIEWPORT["height"]
    assert "Verdict (" in verdict.inner_text()


def _check_annotator_aids(view: Any) -> None:
    from playwright.sync_api import expect

    expect(view.locator(".evaltoolkit-rubric-table")).to_contain_text("contradicts the source")
    assert view.locator(".evaltoolkit-item mark").count() > 0


def _check_payload_is_text(page: Any, detail: Any) -> None:
    from playwright.sync_api import expect

    expect(detail).to_contain_text(SCRIPT)
    expect(detail).to_contain_text(IMG)
    assert detail.locator("script").count() == 0
    assert detail.locator("img").count() == 0
    _check_no_payload_elements(page)


def _check_no_payload_elements(page: Any) -> None:
    found = page.evaluate(
        """() => ({
            scripts: [...document.querySelectorAll('script')]
                .filter((s) => (s.textContent || '').includes('alert(1)')).length,
            images: document.querySelectorAll('img[src="x"], img[onerror]').length,
        })"""
    )
    assert found == {"scripts": 0, "images": 0}, found


def _check_payload_never_ran(page: Any, dialogs: list[str]) -> None:
    _check_no_payload_elements(page)
    assert dialogs == [], f"a payload ran: dialogs {dialogs}"


def _read_verdict(tuner: Any) -> str:
    """The verdict line under the agreement table: tune and test parts, and the verdict."""
    from playwright.sync_api import expect

    heading = "Verdict (per-document Spearman of the final score): "
    line = tuner.locator(".evaltoolkit-verdict")
    expect(line).to_contain_text(heading)
    expect(line).to_contain_text("Tune part: ")
    expect(line).to_contain_text("; test part: ")
    text: str = line.inner_text()
    verdict = text.split(heading, 1)[1].split(".", 1)[0]
    assert verdict in VERDICTS, text
    return verdict


def _check_agreement_parts(tuner: Any) -> None:
    """The agreement table has the three metrics on the tune part, then on the test part."""
    from playwright.sync_api import expect

    rows = tuner.locator(".evaltoolkit-agreement tbody tr")
    expect(rows).to_have_count(6)
    parts = [rows.nth(index).locator("td").first.inner_text() for index in range(6)]
    assert parts == ["tune"] * 3 + ["test"] * 3


def _edit_run_and_export(tuner: Any) -> str:
    """Edit a template, press Run and Export; then move two offline settings and run again.

    Returns the verdict the page shows after the second run.
    """
    from playwright.sync_api import expect

    expect(tuner).to_contain_text("offline judge, which answers from the texts alone")
    expect(tuner).to_contain_text('model="openai/gpt-4o-mini"')
    tuner.locator(".lm-TabBar-tab", has_text="system").click()
    area = tuner.locator("textarea:visible").first
    area.click()
    area.press("End")
    area.press("Control+End")
    area.type(" Be strict.")
    area.blur()
    tuner.locator(".widget-button", has_text="Run").click()
    status = tuner.locator(".evaltoolkit-status")
    expect(status).to_contain_text("Scored 8 items before and after: 0 changed")
    expect(status).to_contain_text("Edited templates: system")
    expect(tuner.locator(".evaltoolkit-score-change tbody tr")).to_have_count(8)
    expect(tuner).to_contain_text("confirm on 4 held-out items")
    _check_agreement_parts(tuner)
    # The offline judge ignores the edit: no change, and no reason to keep it.
    assert _read_verdict(tuner) == "cannot tell"
    expect(tuner.locator(".progress-bar-success")).to_be_attached()
    tuner.locator(".widget-button", has_text="Export").click()
    expect(tuner.locator(".evaltoolkit-export")).to_contain_text("prompts = {'system':")
    expect(tuner.locator(".evaltoolkit-export")).to_contain_text("Be strict.")
    return _move_offline_settings_and_rerun(tuner)


def _move_offline_settings_and_rerun(tuner: Any) -> str:
    """Type two settings into their sliders' readouts; Run rescores and the scores move."""
    from playwright.sync_api import expect

    tuner.locator(".lm-TabBar-tab", has_text="offline settings").click()
    for name in ("claim_support", "answer_share"):
        readout = tuner.locator(f".evaltoolkit-setting-{name} .widget-readout")
        readout.click()
        readout.press("Control+A")
        readout.type("1")
        readout.press("Enter")
        expect(readout).to_have_text("1.00")
    tuner.locator(".widget-button", has_text="Run").click()
    status = tuner.locator(".evaltoolkit-status")
    expect(status).to_contain_text("Changed settings: claim_support=1, answer_share=1.")
    expect(status).not_to_contain_text(" 0 changed")
    _check_agreement_parts(tuner)
    verdict = _read_verdict(tuner)
    tuner.locator(".widget-button", has_text="Export").click()
    expect(tuner.locator(".evaltoolkit-export")).to_contain_text(
        "offline_settings = {'claim_support': 1.0, 'answer_share': 1.0}"
    )
    return verdict


def _check_the_run_was_a_kernel_task(page: Any, notebook: Any, verdict: str) -> None:
    """Rerun the last cell: the Run press scheduled an asyncio Task on the kernel's loop, and
    the verdict the page shows is the one the kernel's tuner holds."""
    from playwright.sync_api import expect

    last_cell = notebook.locator(".jp-CodeCell").nth(1 + len(VIEW_CLASSES) * len(SIZES) + 1)
    expect(last_cell.locator(".jp-OutputArea-output")).to_contain_text("run: NoneType")
    last_cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")  # run this cell in place
    expect(last_cell.locator(".jp-OutputArea-output")).to_contain_text("run: Task done")
    expect(last_cell.locator(".jp-OutputArea-output")).to_contain_text(f"verdict: {verdict}")


ANNOTATED_ITEMS = 7
PAYLOAD_POSITION = 4  # the fourth item, where the view resumes after three labels


def _annotator_notebook() -> dict[str, Any]:
    setup = f"""
        import json, os, sys
        sys.path.insert(0, {str(REPO)!r})
        import evaltoolkit as et
        from evaltoolkit.widgets import Annotator

        with open({str(REPO / "data" / "demo_summaries.jsonl")!r}) as lines:
            rows = [json.loads(line) for line in lines][: {ANNOTATED_ITEMS - 1}]
        payload = {{"id": {PAYLOAD_ID!r}, "input": rows[0]["input"],
                    "output": "The council voted. " + {SCRIPT!r} + " " + {IMG!r}}}
        rows.insert({PAYLOAD_POSITION - 1}, payload)
        result = et.run_evals(rows, et.create_summarization_scorer(), progress=False)
        print("kernel", os.getpid())
    """
    view = """
        view = Annotator(result, label="consistency", scale=(1, 5), path="labels.jsonl",
                         annotator="alice", show="after")
        view
    """
    return {
        "cells": [_code_cell(setup), _code_cell(view)],
        "metadata": _metadata(),
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _labels_on_disk(lab: Lab) -> list[dict[str, Any]]:
    path = lab.work / "labels.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _annotate_restart_and_resume(
    browser: Any, lab: Lab, requests: list[str], dialogs: list[str]
) -> None:
    """Label three items with keys, restart the kernel, rerun: the view resumes at the fourth."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1500, "height": 1900})
    page.set_default_timeout(PAGE_STEP_MS)
    page.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda socket: requests.append(socket.url))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(lab.notebook_url("annotator.ipynb", workspace="annotator"))
    _wait_for_idle_kernel(page)
    _run_all_cells(page)
    notebook = page.locator(".jp-NotebookPanel:visible")
    view = notebook.locator(".jp-OutputArea-output .evaltoolkit-annotator")
    expect(view).to_be_visible()
    progress = view.locator(".evaltoolkit-progress")
    keys = view.locator(".evaltoolkit-keys input")
    expect(progress).to_contain_text(f"0 of {ANNOTATED_ITEMS} labelled by alice · item 1 of")
    # Blind before labelling: the judge's verdict is not in the page.
    expect(view.locator(".evaltoolkit-judge-hidden")).to_contain_text("hidden until you label")
    expect(view.locator(".evaltoolkit-judge")).to_have_count(0)

    def press(key: str) -> None:
        keys.click()
        keys.type(key)
        expect(keys).to_have_value("")  # the kernel read the key and emptied the box

    expected_values = []
    for done, value in enumerate((4, 2, 5), start=1):
        press(str(value))
        expected_values.append(value)
        expect(progress).to_contain_text(f"{done} of {ANNOTATED_ITEMS} labelled by alice")
        # The label was on disk before the view moved on.
        assert [record["value"] for record in _labels_on_disk(lab)] == expected_values
        if done == 1:  # back to the labelled item: show="after" reveals the judge now
            press("p")
            expect(progress).to_contain_text("item 1 of")
            expect(view.locator(".evaltoolkit-judge")).to_contain_text("summarization")
            press("n")
            expect(view.locator(".evaltoolkit-judge")).to_have_count(0)
    expect(progress).to_contain_text(f"item {PAYLOAD_POSITION} of {ANNOTATED_ITEMS}")
    _check_annotator_payload(page, view)
    view.screenshot(path=str(SCREENSHOTS / "annotator-before-restart.png"))

    setup_output = notebook.locator(".jp-CodeCell").first.locator(".jp-OutputArea-output")
    first_kernel = setup_output.inner_text()
    page.locator("#jp-MainMenu .lm-MenuBar-item", has_text="Kernel").first.click()
    page.locator("li.lm-Menu-item[data-command='kernelmenu:restart']").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    _wait_for_idle_kernel(page)
    _run_all_cells(page)
    expect(setup_output).to_contain_text("kernel")
    expect(setup_output).not_to_have_text(first_kernel)
    view = notebook.locator(".jp-OutputArea-output .evaltoolkit-annotator")
    expect(view.locator(".evaltoolkit-progress")).to_contain_text(
        f"3 of {ANNOTATED_ITEMS} labelled by alice · item {PAYLOAD_POSITION} of"
    )
    assert [record["value"] for record in _labels_on_disk(lab)] == [4, 2, 5]
    _check_annotator_payload(page, view)
    view.screenshot(path=str(SCREENSHOTS / "annotator-after-restart.png"))
    page.close()


def _check_annotator_payload(page: Any, view: Any) -> None:
    from playwright.sync_api import expect

    item = view.locator(".evaltoolkit-item")
    expect(item).to_contain_text(SCRIPT)
    expect(item).to_contain_text(IMG)
    assert item.locator("script").count() == 0
    assert item.locator("img").count() == 0
    _check_no_payload_elements(page)


def test_skips_cleanly_without_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The prerequisite check names what is missing (a skip here, a failure under CI)."""
    import _support

    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setattr(_support, "REQUIRE_ALL", False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        _require_prerequisites()
