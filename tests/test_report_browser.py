"""The HTML report in headless Chromium, opened from file://: safe, self-contained, filterable.

Builds a report of two runs (the demo summaries with script/img payloads in item text, a
judge's reasons and an item id, plus a failed item; and a larger made-up run so the table
pages), opens it from file:// in Debian's Chromium, and checks that the payloads show as text
and never run (no dialog), that the filters and the pager change the rows shown, that a link
of the disagreement table opens that item's drill-down, and that the page asked for nothing
but its own file. A screenshot goes to ``artifacts/browser/`` (gitignored).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _support import CHROMIUM, CHROMIUM_FLAGS, REPO, skip_or_fail
from test_report import BREAKOUT, IMG, SCRIPT, PayloadJudge, _benchmark, _rows, report_data

import evaltoolkit as et
from evaltoolkit.report import write_report

pytestmark = pytest.mark.browser

SCREENSHOTS = REPO / "artifacts" / "browser"
STEP_MS = 30_000
PAYLOAD_ID = f"payload-{IMG}"


def _require_prerequisites() -> None:
    if not CHROMIUM.exists():
        skip_or_fail(
            "Debian's Chromium is not at /usr/bin/chromium; install it with "
            "`apt-get install -y chromium` (Playwright's own browser download is not needed)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        skip_or_fail("the Python package playwright is not installed; pip install playwright")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    rows = _rows()
    rows.append(
        {
            "id": PAYLOAD_ID,
            "input": rows[0]["input"],
            "output": (
                "The city council of Port Alden voted on Tuesday to replace the 80-year-old "
                f"Harbour Bridge, PAYLOAD {SCRIPT} {BREAKOUT}"
            ),
        }
    )
    rows.append({"id": "no-output", "input": rows[0]["input"], "output": None})
    demo = et.run_evals(
        rows,
        [et.create_summarization_scorer(PayloadJudge()), et.create_textual_difference_scorer()],
        progress=False,
    )
    made_up = _benchmark().synthetic_run(250, failed_share=0.04, seed=3)
    folder = tmp_path_factory.mktemp("report")
    path = write_report(
        {"demo": demo, "made-up": made_up}, folder / "report.html", top_disagreements=20
    )
    return path, report_data(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    _require_prerequisites()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_FLAGS,
            env={"HOME": str(tmp_path_factory.mktemp("chromium-home"))},
        )
        yield launched
        launched.close()


def _visible_rows(page: Any) -> list[dict[str, str]]:
    cells: list[list[str]] = page.eval_on_selector_all(
        "#items-body tr", "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))"
    )
    names = ["#", "run", "item", "scorer", "score", "alignment", "coverage", "gap", "status"]
    return [dict(zip(names, row, strict=False)) for row in cells]


def _showing(page: Any) -> str:
    return str(page.inner_text("#showing"))


def _matching(page: Any) -> int:
    found = re.search(r"of (\d+) matching rows", _showing(page))
    return int(found.group(1)) if found else 0


def test_the_report_is_safe_self_contained_and_filterable(
    report: tuple[Path, dict[str, Any]], browser: Any
) -> None:
    path, data = report
    url = path.as_uri()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    dialogs: list[str] = []
    errors: list[str] = []
    context.on("request", lambda request: requests.append(request.url))

    def only_the_file(route: Any) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_the_file)
    page = context.new_page()
    page.set_default_timeout(STEP_MS)
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(url)
        page.wait_for_selector("#items-body tr")
        total = len(data["rows"])
        assert total == 36 + 250
        assert _showing(page) == (
            f"Showing 1–100 of {total} matching rows ({total} in all), page 1 of 3."
        )
        assert len(_visible_rows(page)) == 100

        # The payloads are text: in the table, in the drill-down, nowhere as elements.
        payload_button = page.locator("#items-body button.open", has_text=PAYLOAD_ID).first
        assert payload_button.inner_text() == PAYLOAD_ID
        payload_button.click()
        detail = page.inner_text("#detail")
        assert f"Item {PAYLOAD_ID} · summarization · demo" in detail
        assert SCRIPT in detail and BREAKOUT in detail
        assert page.locator("#detail script, #detail img").count() == 0
        assert page.locator("img").count() == 0
        assert page.locator("script").count() == 2
        assert page.locator("#detail table.claims tbody tr").count() >= 1
        assert "Questions: coverage" in detail

        # Scorer filter.
        page.select_option("#f-scorer", label="textual-difference")
        shown = _visible_rows(page)
        expected = sum(1 for row in data["rows"] if data["scorers"][row[2]] == "textual-difference")
        assert _matching(page) == expected == len(shown) == 18
        assert {row["scorer"] for row in shown} == {"textual-difference"}
        page.select_option("#f-scorer", value="")

        # Failed only.
        page.check("#f-failed")
        shown = _visible_rows(page)
        failed = sum(row[6] for row in data["rows"])
        assert _matching(page) == failed == len(shown)
        assert {row["status"] for row in shown} == {"failed"}
        page.click("#items-body button.open >> nth=0")
        assert "Failed at step" in page.inner_text("#detail")
        page.uncheck("#f-failed")

        # Minimum disagreement.
        page.fill("#f-gap", "0.5")
        page.dispatch_event("#f-gap", "change")
        shown = _visible_rows(page)
        expected = sum(
            1
            for row in data["rows"]
            if row[4] is not None and row[5] is not None and abs(row[4] - row[5]) >= 0.5 - 1e-9
        )
        assert 0 < _matching(page) == expected < total
        assert all(float(row["gap"]) >= 0.5 for row in shown)
        page.fill("#f-gap", "0")
        page.dispatch_event("#f-gap", "change")
        assert _matching(page) == total

        # Run filter and pager.
        page.select_option("#f-run", label="made-up")
        assert _matching(page) == 250
        assert {row["run"] for row in _visible_rows(page)} == {"made-up"}
        first_page = [row["item"] for row in _visible_rows(page)]
        page.click("#next")
        assert _showing(page).startswith("Showing 101–200 of 250 matching rows")
        second_page = [row["item"] for row in _visible_rows(page)]
        assert second_page and not set(first_page) & set(second_page)
        page.select_option("#f-run", value="")

        # A link of the disagreement table opens that row's drill-down.
        link = page.locator("section#run-1 table.disagreements a").first
        linked = link.inner_text()
        link.click()
        page.wait_for_function(
            "id => document.getElementById('detail').textContent.includes('Item ' + id)",
            arg=linked,
        )
        assert page.url.endswith(str(link.get_attribute("href")))

        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "report.png"), full_page=False)
    finally:
        context.close()
    assert dialogs == []
    assert errors == []
    # Nothing but the file itself was asked for: no script, style, font, image or host.
    assert requests == [url]


def test_skips_cleanly_without_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    import _support

    monkeypatch.setattr(_support, "REQUIRE_ALL", False)
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", Path("/nonexistent/chromium"))
    with pytest.raises(pytest.skip.Exception, match="Chromium is not at"):
        _require_prerequisites()


def test_fails_instead_of_skipping_when_every_test_is_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import _support

    monkeypatch.setattr(_support, "REQUIRE_ALL", True)
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", Path("/nonexistent/chromium"))
    with pytest.raises(pytest.fail.Exception, match="required under EVALTOOLKIT_REQUIRE_ALL=1"):
        _require_prerequisites()
