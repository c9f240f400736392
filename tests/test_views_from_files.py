"""A saved run opens again in the views and the plots; the judged source is shown as the source."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from _support import DATA
from fake_judge import FAIL_MARK, CoverageFailingJudge

import evaltoolkit as et
from evaltoolkit import EvalResult, ItemResult, ModelCall, ScoreResult, StepError, read_results
from evaltoolkit.plots import axis_points, axis_scatter, score_histograms, score_vs_label
from evaltoolkit.widgets import AxisExplorer, ResultBrowser

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
INSTRUCTION = "Please summarise the attached report."
DOCUMENT = (
    "The Lumen river dam was completed in 1998. It supplies water to 40,000 homes. "
    f"An inspection in May found cracks in its spillway. {SCRIPT} {IMG}"
)


@pytest.fixture(scope="module")
def run() -> EvalResult:
    rows = [json.loads(line) for line in (DATA / "demo_summaries.jsonl").read_text().splitlines()]
    source = rows[0]["input"]
    data = [
        {"id": "no-output", "input": source, "output": None},
        *rows,
        {"id": "bad-coverage", "input": source, "output": f"{FAIL_MARK} {SCRIPT}"},
    ]
    return et.run_evals(
        data,
        [
            et.create_summarization_scorer(CoverageFailingJudge(f'{{"verdicts": [oops {IMG}')),
            et.create_textual_difference_scorer(),
        ],
        progress=False,
    )


@pytest.fixture(scope="module", params=["parquet", "csv", "jsonl"])
def saved(
    request: pytest.FixtureRequest, run: EvalResult, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    folder = tmp_path_factory.mktemp("saved")
    path: Path = getattr(run, f"to_{request.param}")(folder / f"results.{request.param}")
    return path


def _assert_escaped(markup: str) -> None:
    assert "<script" not in markup.lower()
    assert "<img" not in markup.lower()


def _assert_text_cells(view: Any, *, payload_shown: bool = True) -> None:
    """The paged table's cells are plain text (the page sets them as textContent, never as
    HTML): a payload in an id reaches the page as the characters it is."""
    from evaltoolkit.widgets._paged_table import _ESM

    assert "innerHTML" not in _ESM and "insertAdjacentHTML" not in _ESM
    assert ".textContent = text" in _ESM or "node.textContent = text" in _ESM
    if not payload_shown:
        return
    table = view.table
    table.query = "<script>"
    cells = [cell for row in table.rows for cell in row]
    assert any(SCRIPT in cell for cell in cells), cells[:10]
    assert not any("&lt;" in cell for cell in cells)  # not escaped twice
    table.query = ""


def test_the_axis_explorer_shows_a_saved_run_as_it_showed_the_run(
    run: EvalResult, saved: Path
) -> None:
    live = AxisExplorer(run, threshold=0.2)
    again = AxisExplorer(read_results(saved), threshold=0.2)
    assert again.items == live.items and len(again.items) > 3
    assert again.listing_note.value == live.listing_note.value
    assert "2 failed items not listed" in again.listing_note.value
    for item_id in again.items[:3]:
        live.select(item_id)
        again.select(item_id)
        assert again.detail.value == live.detail.value
    for trait in ("x", "y", "kind", "ids"):  # the same scatter, point for point
        assert getattr(again.scatter, trait) == getattr(live.scatter, trait)
    again.select("bad-coverage")
    assert "Failed at step coverage" in again.detail.value
    _assert_escaped(again.detail.value)
    # Straight from the path, too.
    assert AxisExplorer(saved, threshold=0.2).items == live.items


def test_the_result_browser_filters_and_details_a_saved_run(run: EvalResult, saved: Path) -> None:
    browser = ResultBrowser(read_results(saved))
    assert "ResultBrowser(36 rows" in repr(browser)
    browser.scorer_filter.value = "summarization"
    browser.failed_only.value = True
    assert browser.visible == [("no-output", "summarization"), ("bad-coverage", "summarization")]
    browser.show("bad-coverage", "summarization")
    detail = browser.detail.value
    assert "Failed at step coverage" in detail
    # The failed step's raw reply comes back from the saved replies, escaped.
    assert "[oops &lt;img src=x onerror=alert(1)&gt;" in detail
    _assert_escaped(detail)
    _assert_text_cells(browser, payload_shown=False)
    browser.failed_only.value = False
    browser.sort_by.value = "score"
    browser.descending.value = True
    live = ResultBrowser(run)
    live.scorer_filter.value = "summarization"
    live.sort_by.value = "score"
    live.descending.value = True
    assert browser.visible == live.visible
    assert browser.table.rows == live.table.rows


def test_the_plots_draw_a_saved_run_as_they_drew_the_run(run: EvalResult, saved: Path) -> None:
    again = read_results(saved)

    def offsets(figure: Any) -> list[list[tuple[float, ...]]]:
        return [
            [tuple(point) for point in collection.get_offsets()]
            for collection in figure.axes[0].collections
        ]

    assert offsets(axis_scatter(again)) == offsets(axis_scatter(run))
    assert offsets(axis_scatter(saved)) == offsets(axis_scatter(run))
    assert axis_scatter(again).axes[0].get_title() == axis_scatter(run).axes[0].get_title()
    points = axis_points(again)
    assert [p.item_id for p in points] == [p.item_id for p in axis_points(run)]
    assert [p.decided_by for p in points].count("failed") == 2
    titles = [ax.get_title() for ax in score_histograms(again).axes]
    assert titles == [ax.get_title() for ax in score_histograms(run).axes]
    assert titles == [
        "summarization (16 scored, 2 failed)",
        "textual-difference (17 scored, 1 failed)",
    ]

    def against_labels(result: EvalResult) -> list[str]:
        frame = result.to_frame()
        frame = frame[frame["scorer"] == "summarization"]
        figure = score_vs_label(frame, ["alignment_score", "coverage_score"], "human_score")
        return [ax.get_title() for ax in figure.axes]

    assert against_labels(again) == against_labels(run)
    assert against_labels(again)[0].startswith("alignment_score vs human_score: Spearman")


def _judged_source_run() -> EvalResult:
    """A run whose scorer judged a document given by source_extractor, not the input."""
    claims = [
        {"claim": f"The dam was completed in 1998. {SCRIPT}", "supported": True, "reason": IMG},
        {"claim": "It supplies 50,000 homes.", "supported": False, "reason": "40,000 in source"},
    ]
    coverage = [
        {"question": f"Does it say {IMG}?", "answered": False, "reason": SCRIPT},
        {"question": "Does it say the spillway cracked?", "answered": True, "reason": "yes"},
    ]
    result = ScoreResult(
        scorer="summarization",
        score=0.5,
        reason=f"Alignment decided it. {SCRIPT}",
        preprocess_step_result={
            "alignment": claims,
            "questions": [q["question"] for q in coverage],
        },
        analyze_step_result={"coverage": coverage},
        details={
            "alignment_score": 0.5,
            "coverage_score": 0.5,
            "decided_by": "tie",
            "claims": 2,
            "unsupported_claims": 1,
            "questions": 2,
            "unanswered_questions": 1,
            "source": DOCUMENT,
        },
        calls=(
            ModelCall(
                step="source_judgement",
                stage="preprocess",
                model="openai/judge",
                prompt=f"[user]\nSOURCE: {DOCUMENT}",
                raw_reply=f'{{"claims": "{IMG}"}}',
            ),
        ),
        judge_model="openai/judge",
    )
    failed = ScoreResult(
        scorer="summarization",
        score=math.nan,
        error=StepError("coverage", f"the reply never validated {SCRIPT}", "JudgeReplyError"),
        judge_model="openai/judge",
    )
    items = [
        ItemResult(
            item_id=f"dam-{SCRIPT}",
            index=0,
            input=[{"role": "user", "content": INSTRUCTION}],
            output=[{"role": "assistant", "content": f"The dam dates from 1998. {IMG}"}],
            fields={"note": SCRIPT},
            scorer_results={"summarization": result},
        ),
        ItemResult(
            item_id="other",
            index=1,
            input=INSTRUCTION,
            output="x",
            scorer_results={"summarization": failed},
        ),
    ]
    return EvalResult(items=items, scorer_ids=["summarization"])


def _block(markup: str, label: str) -> str:
    """The text of the labelled text block (see evaltoolkit._internal.html.text_block)."""
    found = re.search(
        rf"<div style='font-weight:600'>{re.escape(label)}</div><div[^>]*>(.*?)</div>",
        markup,
        re.S,
    )
    assert found is not None, f"no block {label!r}"
    return found.group(1)


@pytest.mark.parametrize("saved_as", [None, "parquet", "csv", "jsonl"])
def test_the_views_show_the_judged_source_not_the_input(
    saved_as: str | None, tmp_path: Path
) -> None:
    result = _judged_source_run()
    if saved_as is not None:
        result = read_results(getattr(result, f"to_{saved_as}")(tmp_path / f"r.{saved_as}"))
    item_id = f"dam-{SCRIPT}"
    escaped_document = "The Lumen river dam was completed in 1998."
    browser = ResultBrowser(result)
    browser.show(item_id)
    detail = browser.detail.value
    source_block = _block(detail, "Source (the text judged)")
    assert escaped_document in source_block and "&lt;script&gt;" in source_block
    assert INSTRUCTION not in source_block
    assert INSTRUCTION in detail  # still there, as the collapsed input
    assert "<td style" not in source_block
    explorer = AxisExplorer(result, threshold=0.0)
    explorer.select(item_id)
    explorer_source = _block(explorer.detail.value, "Source")
    assert escaped_document in explorer_source
    assert INSTRUCTION not in explorer.detail.value
    for markup in (detail, explorer.detail.value):
        _assert_escaped(markup)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup
    _assert_text_cells(browser)


def test_a_payload_anywhere_stays_text_in_every_view() -> None:
    result = _judged_source_run()
    browser = ResultBrowser(result)
    explorer = AxisExplorer(result, threshold=0.0)
    _assert_text_cells(browser)
    _assert_text_cells(explorer)
    shown = [explorer.listing_note.value]
    for item_id in ("other", f"dam-{SCRIPT}"):
        browser.show(item_id)
        explorer.select(item_id)
        shown += [browser.detail.value, explorer.detail.value]
    shown += [result._repr_html_(), result[0].scorer_results["summarization"]._repr_html_()]
    joined = "\n".join(shown)
    _assert_escaped(joined)
    # Every kind of text arrived, escaped: claim, reason, question, error, reply, field, id.
    for text in (
        "The dam was completed in 1998. &lt;script&gt;",
        "Alignment decided it. &lt;script&gt;",
        "Does it say &lt;img src=x onerror=alert(1)&gt;?",
        "the reply never validated &lt;script&gt;",
        "{&#34;claims&#34;: &#34;&lt;img src=x onerror=alert(1)&gt;&#34;}",
        "dam-&lt;script&gt;alert(1)&lt;/script&gt;",
    ):
        assert text in joined, text
