"""AxisExplorer, PromptTuner and Annotator in a real JupyterLab page, driven in headless Chromium.

The test starts JupyterLab on 127.0.0.1 (free port, token, isolated HOME and Jupyter
directories), opens a notebook that renders both views on offline-judged demo results plus an
item whose summary holds a script/img payload, runs every cell through the Run menu, and then
checks that the widgets rendered, that clicks in the page reach the kernel (the page changes
with what the kernel computed), that the payload stayed text, and that the page asked nothing
of any host but 127.0.0.1. In the same server, a second notebook opens the Annotator: three
items labelled with the keyboard (the labels file checked on disk after each), the judge's
verdict hidden before labelling and shown after, a payload item shown as text, then a kernel
restart and a rerun that resumes at the fourth item. Screenshots go to ``artifacts/browser/``
(gitignored); the test
prints the folder. See ../shared/notes/browser-tests.md for the set-up and the pitfalls.
"""

from __future__ import annotations

import json
import os
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
# Generous per-step limits; a healthy run takes 15-25 s in all.
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


def _notebook() -> dict[str, Any]:
    payload = {
        "id": PAYLOAD_ID,
        "doc_id": "harbour-bridge",
        "output": (
            f"The council voted to replace the Harbour Bridge. {SCRIPT} {IMG} "
            "Engineers found corrosion in 14 of 22 supports."
        ),
        "fault": "payload",
        "human_score": 1,
    }
    setup = f"""
        import json, sys
        sys.path.insert(0, {str(REPO)!r})
        import evaltoolkit as et
        from evaltoolkit.widgets import AxisExplorer, PromptTuner

        with open({str(REPO / "data" / "demo_summaries.jsonl")!r}) as lines:
            rows = [json.loads(line) for line in lines]
        rows.append({{**{payload!r}, "input": rows[0]["input"]}})
        result = et.run_evals(rows, et.create_summarization_scorer(), progress=False)
        print("scored", len(result), "items")
    """
    explorer = """
        explorer = AxisExplorer(result, threshold=0.3)
        explorer.select("payload-item")
        explorer
    """
    tuner = """
        tuner = PromptTuner(et.create_summarization_scorer(), rows, labels="human_score", sample=8)
        tuner
    """
    # Run again after pressing Run in the page: says how the kernel ran the rescoring.
    how_it_ran = """
        print("run:", type(tuner.task).__name__, "done" if tuner.task and tuner.task.done() else "")
        print("verdict:", tuner.verdict)
    """
    return {
        "cells": [
            _code_cell(setup),
            _code_cell(explorer),
            _code_cell(tuner),
            _code_cell(how_it_ran),
        ],
        "metadata": {
            "kernelspec": {
                "name": "python3",
                "display_name": KERNEL_DISPLAY_NAME,
                "language": "python",
            },
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


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
            pytest.fail(f"JupyterLab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(status_url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    pytest.fail(f"JupyterLab did not answer within {SERVER_START_S} s:\n{log.read_text()[-3000:]}")


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


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    _require_prerequisites()
    environment = _isolated_environment(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    _write_json(work / "widgets.ipynb", _notebook())
    _write_json(work / "annotator.ipynb", _annotator_notebook())
    port, token = _free_port(), "evaltoolkit-browser-test"
    log = tmp_path / "jupyterlab.log"
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
    pytest.fail(f"the kernel never became idle; the status bar says {text!r}")


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


def test_widgets_render_respond_and_stay_safe_in_jupyterlab(lab: Lab) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=PAGE_STEP_MS)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {SCREENSHOTS}")
    requests: list[str] = []
    dialogs: list[str] = []
    browser_home = lab.home / "chromium"
    browser_home.mkdir(exist_ok=True)
    started = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            env={**os.environ, "HOME": str(browser_home)},
        )
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1900})
            page.set_default_timeout(PAGE_STEP_MS)
            page.on("request", lambda request: requests.append(request.url))
            page.on("websocket", lambda socket: requests.append(socket.url))

            def on_dialog(dialog: Any) -> None:
                dialogs.append(dialog.message)
                dialog.dismiss()

            page.on("dialog", on_dialog)
            page.goto(lab.notebook_url("widgets.ipynb"))
            _wait_for_idle_kernel(page)
            _run_all_cells(page)

            notebook = page.locator(".jp-NotebookPanel:visible")
            explorer = notebook.locator(".jp-OutputArea-output .evaltoolkit-axis-explorer")
            tuner = notebook.locator(".jp-OutputArea-output .evaltoolkit-prompt-tuner")
            expect(explorer).to_be_visible()
            expect(tuner).to_be_visible()
            _check_explorer_rendered(explorer)
            _check_payload_is_text(page, explorer)
            page.screenshot(path=str(SCREENSHOTS / "jupyterlab-page.png"))
            explorer.screenshot(path=str(SCREENSHOTS / "axis-explorer-payload.png"))

            _pick_another_item(explorer)
            _move_the_threshold(explorer)
            verdict = _edit_run_and_export(tuner)
            _check_the_run_was_a_kernel_task(page, notebook, verdict)
            tuner.screenshot(path=str(SCREENSHOTS / "prompt-tuner-after-run.png"))

            _check_payload_never_ran(page, dialogs)
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


def _check_explorer_rendered(explorer: Any) -> None:
    from playwright.sync_api import expect

    expect(explorer.locator("img.widget-image")).to_have_count(1)
    expect(explorer.locator(".widget-slider .widget-readout")).to_have_text("0.30")
    expect(explorer.locator(".widget-select select option").first).to_be_attached()
    detail = explorer.locator(".widget-html .widget-html-content", has_text="Item payload-item")
    expect(detail).to_be_visible()
    expect(detail).to_contain_text("Claims: alignment")
    expect(detail).to_contain_text("Questions: coverage")


def _check_payload_is_text(page: Any, explorer: Any) -> None:
    from playwright.sync_api import expect

    detail = explorer.locator(".widget-html-content", has_text="Item payload-item")
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


def _pick_another_item(explorer: Any) -> None:
    """Choose another item in the list; the kernel renders its detail and a new figure."""
    from playwright.sync_api import expect

    image = explorer.locator("img.widget-image")
    figure_before = image.get_attribute("src")
    select = explorer.locator(".widget-select select")
    option = select.locator("option").nth(1)
    item_id = option.inner_text().split()[0]
    assert item_id != PAYLOAD_ID
    select.select_option(index=1)
    expect(explorer.locator(".widget-html-content", has_text=f"Item {item_id}")).to_be_visible()
    expect(image).not_to_have_attribute("src", figure_before or "")


def _move_the_threshold(explorer: Any) -> None:
    """Type a threshold into the slider's readout; the kernel relists the items."""
    from playwright.sync_api import expect

    note = explorer.locator(".widget-html-content", has_text="items disagree by at least")
    expect(note).to_contain_text("at least 0.30")
    options_before = explorer.locator(".widget-select select option").count()
    readout = explorer.locator(".widget-slider .widget-readout")
    readout.click()
    readout.press("Control+A")
    readout.type("0.9")
    readout.press("Enter")
    expect(note).to_contain_text("at least 0.90")
    expect(readout).to_have_text("0.90")
    options_after = explorer.locator(".widget-select select option").count()
    assert options_after < options_before


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

    last_cell = notebook.locator(".jp-CodeCell").nth(3)
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
        "metadata": _notebook()["metadata"],
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
