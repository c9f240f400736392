"""The notebook views, built from real offline-judge results and driven from Python."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _support import DATA, REPO
from fake_judge import FAIL_MARK, CoverageFailingJudge
from judge_script import requests_for, script_steps
from markupsafe import escape

import evaltoolkit as et
from evaltoolkit import ConfigurationError, EvalResult
from evaltoolkit._internal.html import CELL_STYLE as CELL
from evaltoolkit.widgets import AxisExplorer, PromptTuner, ResultBrowser

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
PAYLOAD_ID = "payload-item"
BROKEN_REPLY = '{"verdicts": [oops <b>bold</b>'


def _demo_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / "demo_summaries.jsonl").read_text().splitlines()]


def _payload_row(source: str) -> dict[str, Any]:
    return {
        "id": PAYLOAD_ID,
        "doc_id": "harbour-bridge",
        "input": source,
        "output": (
            f"The council voted to replace the Harbour Bridge. {SCRIPT} {IMG} "
            "Engineers found corrosion in 14 of 22 supports."
        ),
        "fault": "payload",
        "human_score": 1,
    }


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    demo = _demo_rows()
    return [*demo, _payload_row(demo[0]["input"])]


@pytest.fixture(scope="module")
def summaries(rows: list[dict[str, Any]]) -> EvalResult:
    """Offline-judged summarization results on the demo summaries plus the payload item."""
    return et.run_evals(rows, et.create_summarization_scorer(), progress=False)


@pytest.fixture(scope="module")
def with_failures(rows: list[dict[str, Any]]) -> EvalResult:
    """Two scorers over the demo summaries, one item failing at input, one at coverage."""
    failing = [
        {"id": "no-output", "input": rows[0]["input"], "output": None},
        {"id": "bad-coverage", "input": rows[0]["input"], "output": f"{FAIL_MARK} {SCRIPT}"},
    ]
    summarization = et.create_summarization_scorer(CoverageFailingJudge(BROKEN_REPLY))
    return et.run_evals(
        [*rows, *failing],
        [summarization, et.create_textual_difference_scorer()],
        progress=False,
    )


def _expected_listing(result: EvalResult, threshold: float) -> list[Any]:
    gaps = [
        (item.item_id, abs(score.details["alignment_score"] - score.details["coverage_score"]))
        for item in result
        for score in [item.scorer_results["summarization"]]
        if not score.failed
    ]
    kept = [(item_id, gap) for item_id, gap in gaps if gap >= threshold - 1e-9]
    return [item_id for item_id, _ in sorted(kept, key=lambda entry: -entry[1])]


def _assert_escaped(markup: str) -> None:
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup
    assert "&lt;img src=x onerror=alert(1)&gt;" in markup
    assert "<script" not in markup.lower()
    assert "<img" not in markup.lower()


def _table_rows(markup: str, css_class: str) -> list[list[str]]:
    """The text of each body cell of the table with ``css_class``, row by row."""
    table = re.search(rf"<table class='[^']*{css_class}[^']*'.*?</table>", markup, re.S)
    assert table is not None, f"no table {css_class} in the HTML"
    body = re.search(r"<tbody>(.*)</tbody>", table.group(0), re.S)
    assert body is not None
    return [
        [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)
    ]


# The paged table ---------------------------------------------------------------------------


def _paged(values: list[Any], page_size: int = 3) -> Any:
    from evaltoolkit.widgets._paged_table import Column, PagedTable

    table = PagedTable(
        [Column("name", "name"), Column("value", "value", numeric=True)], page_size=page_size
    )
    frame = pd.DataFrame({"name": [f"row-{i}" for i in range(len(values))], "value": values})
    table.set_frame(frame)
    return table


def test_the_paged_table_sorts_with_missing_values_last_both_ways() -> None:
    table = _paged([0.5, float("nan"), 0.1, None, 0.9, "n/a"])
    assert table.total == 6 and table.row_keys == [0, 1, 2]  # data order, one page
    table.sort_key = "value"
    assert table.order == [2, 0, 4, 5, 1, 3]  # numbers, then text, then missing
    table.descending = True
    assert table.order[:3] == [5, 4, 0] and set(table.order[-2:]) == {1, 3}
    assert table.rows[0] == ["row-5", "n/a"]


def test_the_paged_table_pages_filters_and_shows_a_row() -> None:
    table = _paged([float(i) for i in range(10)])
    table.page = 3
    assert table.row_keys == [9] and table.rows == [["row-9", "9.000"]]
    table.page = 99  # past the end: the last page
    assert table.page == 3
    table.set_mask([i % 2 == 0 for i in range(10)])  # a view's own filter
    assert table.order == [0, 2, 4, 6, 8] and table.page == 0
    table.query = "ROW-6"  # the filter box, case-insensitive, over text columns
    assert table.order == [6]
    table.query = ""
    table.show_row(8)
    assert (table.page, table.selected) == (1, 8)
    assert table.page_of(3) is None  # left out by the mask


# AxisExplorer ------------------------------------------------------------------------------


def test_axis_explorer_lists_the_disagreeing_items_most_disagreeing_first(
    summaries: EvalResult,
) -> None:
    explorer = AxisExplorer(summaries, threshold=0.3)
    assert explorer.items == _expected_listing(summaries, 0.3)
    gaps = [explorer.disagreement(item_id) for item_id in explorer.items]
    assert gaps == sorted(gaps, reverse=True)
    assert all(gap >= 0.3 - 1e-9 for gap in gaps)
    assert explorer.selected == explorer.items[0]
    assert f"{len(explorer.items)} of 17 items disagree by at least 0.30" in (
        explorer.listing_note.value
    )


def _ids_in_table(view: Any) -> list[str]:
    """The item ids of every row the view's paged table keeps, in table order."""
    return [str(view._rows[key].item_id) for key in view.table.order]


def test_moving_the_slider_relists_and_moves_the_band(summaries: EvalResult) -> None:
    explorer = AxisExplorer(summaries, threshold=0.3)
    explorer.threshold.value = 0.8
    assert explorer.items == _expected_listing(summaries, 0.8)
    assert len(explorer.items) < len(_expected_listing(summaries, 0.3))
    # The table pages through the listed items, most disagreeing first.
    assert _ids_in_table(explorer) == [str(item_id) for item_id in explorer.items]
    assert explorer.table.rows[0][0] == str(explorer.items[0])
    assert explorer.scatter.threshold == 0.8  # the band drawn in the page moved
    explorer.threshold.value = 0.0
    assert len(explorer.items) == 17


def test_selecting_an_item_shows_its_texts_claims_questions_and_reason(
    summaries: EvalResult,
) -> None:
    explorer = AxisExplorer(summaries)
    item = next(item for item in summaries if item.item_id == "harbour-bridge-0")
    score = item.scorer_results["summarization"]
    explorer.select("harbour-bridge-0")
    detail = explorer.detail.value
    assert explorer.selected == "harbour-bridge-0"
    assert "Item harbour-bridge-0" in detail
    assert "Source" in detail and "Summary" in detail
    assert "display:flex" in detail  # side by side
    assert "Rita Okafor" in detail  # only in the source
    details = score.details
    supported = details["claims"] - details["unsupported_claims"]
    answered = details["questions"] - details["unanswered_questions"]
    assert (
        f"Claims: alignment {details['alignment_score']:.3f} "
        f"({supported} of {details['claims']} supported)"
    ) in detail
    assert (
        f"Questions: coverage {details['coverage_score']:.3f} "
        f"({answered} of {details['questions']} answered by the summary)"
    ) in detail
    assert score.preprocess_step_result is not None and score.analyze_step_result is not None
    claims = _table_rows(detail, "evaltoolkit-claims")
    assert claims == [
        [
            str(position),
            str(escape(claim["claim"])),
            "supported" if claim["supported"] else "not supported",
            claim["rule"],
            str(escape(claim["reason"])),
        ]
        for position, claim in enumerate(score.preprocess_step_result["alignment"], start=1)
    ]
    assert [row[2] for row in claims].count("not supported") == details["unsupported_claims"]
    questions = _table_rows(detail, "evaltoolkit-questions")
    assert questions == [
        [
            str(position),
            str(escape(verdict["question"])),
            "answered" if verdict["answered"] else "not answered",
            verdict["rule"],
            str(escape(verdict["reason"])),
        ]
        for position, verdict in enumerate(score.analyze_step_result["coverage"], start=1)
    ]
    assert [row[2] for row in questions].count("not answered") == details["unanswered_questions"]
    assert f"<td style='{CELL}'>{score.score:.3f}</td>" in detail
    assert f"<td style='{CELL}'>{details['decided_by']}</td>" in detail
    assert str(escape(str(score.reason))) in detail


def test_clicking_a_row_or_a_point_selects_the_item(summaries: EvalResult) -> None:
    explorer = AxisExplorer(summaries, threshold=0.3)
    second = explorer.table.row_keys[1]
    explorer.table.selected = second  # what a click on the row sends
    assert explorer.selected == explorer.items[1]
    assert f"Item {explorer.items[1]}" in explorer.detail.value
    assert explorer.scatter.highlight == second  # the ring moved to the new item
    third = explorer.table.row_keys[2]
    explorer.scatter.clicked = third  # what a click on the point sends
    assert explorer.selected == explorer.items[2]
    assert explorer.table.selected == third


def test_a_rectangle_over_points_keeps_those_rows(summaries: EvalResult) -> None:
    explorer = AxisExplorer(summaries, threshold=0.0)
    chosen = explorer.items[3:6]
    explorer.select_points(chosen)  # as a rectangle dragged over them sends
    assert explorer.items == chosen
    assert _ids_in_table(explorer) == [str(item_id) for item_id in chosen]
    assert explorer.selected == chosen[0]
    assert "among the 3 selected in the scatter" in explorer.listing_note.value
    explorer.clear_button.click()
    assert len(explorer.items) == 17


def test_the_scatter_is_readable_and_carries_every_point_and_full_id() -> None:
    from view_data import synthetic_result

    result = synthetic_result(10_000)
    explorer = AxisExplorer(result)
    scatter = explorer.scatter
    assert scatter.width >= 400 and scatter.height >= 400
    assert len(scatter.x) == len(scatter.y) == len(scatter.ids) == 10_000
    long_id = str(result.items[5].item_id)
    assert len(long_id) > 40 and scatter.ids[5] == long_id  # whole, for the hover
    assert [c["name"] for c in scatter.categories] == ["alignment", "coverage", "tie", "failed"]
    assert scatter.x[1] is None and scatter.kind[1] == 3  # the failed item: no axes
    assert len(explorer.table.rows) == explorer.table.page_size  # one page reaches the page


def test_the_payload_shows_as_text(summaries: EvalResult) -> None:
    explorer = AxisExplorer(summaries, threshold=0.0)
    assert PAYLOAD_ID in explorer.items
    explorer.select(PAYLOAD_ID)
    _assert_escaped(explorer.detail.value)
    claims = _table_rows(explorer.detail.value, "evaltoolkit-claims")
    assert any("&lt;script&gt;" in row[1] for row in claims)


def test_the_list_is_capped_to_the_most_disagreeing(summaries: EvalResult) -> None:
    explorer = AxisExplorer(summaries, threshold=0.0, max_listed=3)
    assert explorer.items == _expected_listing(summaries, 0.0)[:3]
    assert "17 of 17 items disagree by at least 0.00" in explorer.listing_note.value
    assert "The list holds the first 3." in explorer.listing_note.value
    with pytest.raises(ConfigurationError, match="max_listed"):
        AxisExplorer(summaries, max_listed=0)


def test_a_frame_gives_the_same_view_as_the_result(summaries: EvalResult) -> None:
    from_result = AxisExplorer(summaries, threshold=0.2)
    from_frame = AxisExplorer(summaries.to_frame(), threshold=0.2)
    assert from_frame.items == from_result.items
    from_frame.select(PAYLOAD_ID)
    from_result.select(PAYLOAD_ID)
    assert from_frame.detail.value == from_result.detail.value


def test_failed_items_are_counted_not_listed(with_failures: EvalResult) -> None:
    explorer = AxisExplorer(with_failures, threshold=0.0)
    assert "no-output" not in explorer.items and "bad-coverage" not in explorer.items
    assert len(explorer.items) == 17
    assert "2 failed items not listed" in explorer.listing_note.value
    explorer.select("bad-coverage")
    assert "Failed at step coverage (JudgeReplyError)" in explorer.detail.value


def test_axis_explorer_reprs_and_errors(summaries: EvalResult, with_failures: EvalResult) -> None:
    explorer = AxisExplorer(summaries, threshold=0.8)
    listed = _expected_listing(summaries, 0.8)
    assert repr(explorer) == (
        f"AxisExplorer(summarization: 17 items, {len(listed)} with |alignment - coverage| "
        f">= 0.80, selected={listed[0]!r})"
    )
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"] == repr(explorer)
    assert "application/vnd.jupyter.widget-view+json" in bundle
    with pytest.raises(KeyError, match="no item 'nope'"):
        explorer.select("nope")
    with pytest.raises(ConfigurationError, match="no results of scorer 'other'"):
        AxisExplorer(summaries, scorer="other")
    with pytest.raises(ConfigurationError, match="the result holds no items; score some"):
        AxisExplorer(EvalResult(items=[], scorer_ids=[]))
    every_item_failed = et.run_evals(
        [{"input": "", "output": "x"}], et.create_summarization_scorer(), progress=False
    )
    assert repr(AxisExplorer(every_item_failed)).startswith("AxisExplorer(summarization: 1 items")
    with pytest.raises(ConfigurationError, match="no alignment and coverage scores"):
        AxisExplorer(with_failures, scorer="textual-difference")


# ResultBrowser -----------------------------------------------------------------------------


def test_result_browser_filters_by_scorer(with_failures: EvalResult) -> None:
    browser = ResultBrowser(with_failures, max_rows=100)
    # The filter shows its choice (a value of None once rendered it blank).
    assert browser.scorer_filter.index == 0
    assert browser.scorer_filter.label == "all scorers"
    assert browser.matching == 2 * 19
    browser.scorer_filter.value = "textual-difference"
    assert browser.matching == 19
    assert {scorer for _, scorer in browser.visible} == {"textual-difference"}
    assert (browser.table.total, browser.table.all_rows) == (19, 38)
    assert {row[1] for row in browser.table.rows} == {"textual-difference"}
    browser.scorer_filter.label = "all scorers"
    assert browser.matching == 38


def test_result_browser_score_range_and_failed_only(with_failures: EvalResult) -> None:
    browser = ResultBrowser(with_failures, max_rows=100)
    browser.scorer_filter.value = "summarization"
    browser.score_range.value = (0.4, 1.0)
    frame = with_failures.to_frame()
    expected = frame[(frame.scorer == "summarization") & frame.score.between(0.4, 1.0)]
    assert sorted(item_id for item_id, _ in browser.visible) == sorted(expected.item_id)
    assert "no-output" not in {item_id for item_id, _ in browser.visible}

    browser.score_range.value = (browser.score_range.min, browser.score_range.max)
    browser.failed_only.value = True
    assert browser.visible == [("no-output", "summarization"), ("bad-coverage", "summarization")]
    assert "[coverage] the coverage reply never validated" in browser.table.rows[1][-1]


def test_result_browser_sorts_both_ways_with_missing_scores_last(
    with_failures: EvalResult,
) -> None:
    browser = ResultBrowser(with_failures, max_rows=100)
    browser.scorer_filter.value = "summarization"
    browser.sort_by.value = "score"
    browser.descending.value = True
    scores = _scores_of(browser, with_failures)
    finite = [score for score in scores if score == score]
    assert finite == sorted(finite, reverse=True)
    assert [item_id for item_id, _ in browser.visible[-2:]] == ["no-output", "bad-coverage"]
    browser.descending.value = False
    ascending = [score for score in _scores_of(browser, with_failures) if score == score]
    assert ascending == sorted(ascending)
    browser.sort_by.value = "alignment_score"
    assert browser.table.sort_key == "alignment_score"
    alignments = [with_failures_alignment(with_failures, key) for key in browser.visible]
    known = [value for value in alignments if value == value]
    assert known == sorted(known)
    assert all(value != value for value in alignments[-2:])  # the failed rows, last
    # A header clicked in the page sorts the same way and moves the controls.
    browser.table.sort_key = "score"
    assert browser.sort_by.value == "score"
    browser.table.descending = True
    assert browser.descending.value is True


def with_failures_alignment(result: EvalResult, key: tuple[Any, str]) -> float:
    item = next(item for item in result if item.item_id == key[0])
    value = item.scorer_results[key[1]].details.get("alignment_score")
    return float("nan") if value is None else float(value)


def _scores_of(browser: ResultBrowser, result: EvalResult) -> list[float]:
    by_key = {
        (item.item_id, name): score.score
        for item in result
        for name, score in item.scorer_results.items()
    }
    return [by_key[key] for key in browser.visible]


def test_result_browser_shows_the_rule_behind_each_verdict_escaped() -> None:
    score = et.ScoreResult(
        scorer="summarization",
        score=0.0,
        details={"alignment_score": 0.0, "coverage_score": 1.0},
        preprocess_step_result={
            "alignment": [
                {"claim": "A", "supported": False, "reason": "r", "rule": "changed_number"},
                {"claim": "B", "supported": False, "reason": "r", "rule": SCRIPT},
            ],
            "questions": ["Q?"],
        },
        analyze_step_result={
            "coverage": [{"question": "Q?", "answered": True, "reason": "r", "rule": "answered"}]
        },
    )
    item = et.ItemResult("x", 0, "source", "summary", scorer_results={"summarization": score})
    result = EvalResult([item], ["summarization"])
    browser = ResultBrowser(result)
    browser.show("x")
    detail = browser.detail.value
    claims = _table_rows(detail, "evaltoolkit-claims")
    assert [row[3] for row in claims] == ["changed_number", "&lt;script&gt;alert(1)&lt;/script&gt;"]
    assert "<th style='" in detail and ">rule</th>" in detail
    assert SCRIPT not in detail
    assert [row[3] for row in _table_rows(detail, "evaltoolkit-questions")] == ["answered"]


def test_result_browser_sends_one_page_at_a_time(with_failures: EvalResult) -> None:
    browser = ResultBrowser(with_failures, max_rows=5)
    assert len(browser.visible) == 38 and len(browser.page) == 5
    assert len(browser.table.rows) == 5
    browser.table.page = 7  # the last page holds the last 3 rows
    assert browser.page == browser.visible[35:]
    assert len(browser.table.rows) == 3
    browser.table.query = "bad-cov"  # the filter box
    assert browser.table.page == 0
    assert browser.page == [
        ("bad-coverage", "summarization"),
        ("bad-coverage", "textual-difference"),
    ]
    assert browser.matching == 2


def test_result_browser_detail_shows_the_error_and_the_raw_replies(
    with_failures: EvalResult,
) -> None:
    browser = ResultBrowser(with_failures)
    browser.show("bad-coverage", "summarization")
    detail = browser.detail.value
    assert "Failed at step coverage (JudgeReplyError): the coverage reply never validated" in detail
    assert "the model&#39;s last raw reply" in detail
    assert "{&#34;verdicts&#34;: [oops &lt;b&gt;bold&lt;/b&gt;" in detail
    assert "<b>bold</b>" not in detail
    _assert_escaped_payload_text(detail)

    browser.show("no-output", "summarization")
    assert "Failed at step input (InputError)" in browser.detail.value

    browser.show(PAYLOAD_ID, "summarization")
    detail = browser.detail.value
    assert "source_judgement: prompt" in detail and "source_judgement: raw reply" in detail
    assert "coverage: prompt" in detail and "reason: raw reply" in detail
    _assert_escaped(detail)
    assert browser.picked == (PAYLOAD_ID, "summarization")


def _assert_escaped_payload_text(markup: str) -> None:
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup
    assert "<script" not in markup.lower()


def test_result_browser_picker_and_frame_input(with_failures: EvalResult, tmp_path: Path) -> None:
    path = with_failures.to_parquet(tmp_path / "results.parquet")
    browser = ResultBrowser(pd.read_parquet(path))
    browser.scorer_filter.value = "summarization"
    browser.failed_only.value = True
    assert browser.visible == [("no-output", "summarization"), ("bad-coverage", "summarization")]
    browser.table.selected = browser.table.row_keys[1]  # a click on the second row
    assert browser.picked == ("bad-coverage", "summarization")
    detail = browser.detail.value
    assert "Failed at step coverage" in detail
    assert "[oops &lt;b&gt;bold&lt;/b&gt;" in detail  # the failed call's raw reply, from the frame
    assert "ResultBrowser(38 rows, 2 matching, 20 a page" in repr(browser)
    with pytest.raises(KeyError):
        browser.show("nope")
    with pytest.raises(ConfigurationError, match="max_rows"):
        ResultBrowser(with_failures, max_rows=0)


# PromptTuner -------------------------------------------------------------------------------


def test_prompt_tuner_says_the_offline_judge_ignores_prompts(rows: list[dict[str, Any]]) -> None:
    tuner = PromptTuner(et.create_summarization_scorer(), rows, sample=5)
    note = tuner.offline_note.value
    assert "offline judge" in note and "ignores prompts" in note
    assert "&#39;offline settings&#39; tab" in note  # the summarization judge has settings
    assert "create_summarization_scorer(model=&#34;openai/gpt-4o-mini&#34;)" in note
    assert "api_base=&#34;http://127.0.0.1:8000/v1&#34;" in note
    assert set(tuner.textareas) == {"system", "source_judgement", "coverage", "reason"}
    assert tuner.textareas["coverage"].value == et.create_summarization_scorer().prompts["coverage"]
    answers = [{"id": 1, "input": "q", "output": "Paris", "ground_truth": "Paris"}]
    cites = et.Step(
        name="cites",
        prompt="Does it cite a source? {{output}}",
        schema={
            "type": "object",
            "properties": {"cites": {"type": "boolean"}},
            "required": ["cites"],
        },
        offline=lambda output: {"cites": "http" in output},
    )
    custom = et.create_judged_scorer(
        id="cites", steps=[cites], score=lambda context: float(context.replies["cites"]["cites"])
    )
    no_settings = PromptTuner(custom, answers, sample=1)
    assert "scores before and after" in no_settings.offline_note.value
    assert no_settings.sliders == {}
    assert "offline settings" not in no_settings.tabs.titles


def test_the_answer_similarity_thresholds_are_tuned_in_the_offline_settings_tab() -> None:
    answers = [
        {
            "id": 1,
            "input": "Which games?",
            "output": "the summer games",
            "ground_truth": "1960 summer olympics in Rome",
        },
        {"id": 2, "input": "Capital?", "output": "Paris", "ground_truth": "Paris"},
    ]
    scorer = et.create_answer_similarity_scorer()
    tuner = PromptTuner(scorer, answers, sample=2)
    assert tuner.tabs.titles[0] == "offline settings"
    assert set(tuner.sliders) == {spec.name for spec in scorer.offline_setting_specs}
    assert tuner.sliders["semantic_fuzz"].value == 88.0
    tuner.sliders["partial_coverage"].value = 0.1
    tuned = tuner.tuned_scorer()
    assert tuned.offline_settings.partial_coverage == pytest.approx(0.1)
    comparison = tuner.run().set_index("item_id")
    assert comparison.loc[1, "after"] > comparison.loc[1, "before"]
    assert comparison.loc[2, "after"] == comparison.loc[2, "before"]
    tuner.export()
    assert "create_answer_similarity_scorer(offline_settings=offline_settings)" in (
        tuner.export_view.value
    )


def test_the_offline_settings_tab_reruns_and_reports_the_agreement(
    rows: list[dict[str, Any]],
) -> None:
    scorer = et.create_summarization_scorer()
    tuner = PromptTuner(scorer, rows, labels="human_score", sample=16, n_bootstrap=0)
    assert tuner.tabs.titles[0] == "offline settings"
    specs = {spec.name: spec for spec in scorer.offline_setting_specs}
    assert set(tuner.sliders) == set(specs)
    for name, slider in tuner.sliders.items():
        assert (slider.min, slider.max) == (specs[name].minimum, specs[name].maximum)
        assert slider.value == getattr(scorer.offline_settings, name)

    tuner.sliders["claim_support"].value = 1.0
    tuner.sliders["answer_share"].value = 1.0
    comparison = tuner.run()

    # The same run, by hand, with the settings the sliders now hold.
    strict = scorer.with_offline_settings({"claim_support": 1.0, "answer_share": 1.0})
    expected = et.run_evals(tuner._data, strict, progress=False)
    by_item = {item.item_id: item.scorer_results["summarization"].score for item in expected}
    assert comparison.set_index("item_id")["after"].to_dict() == pytest.approx(by_item)
    assert (comparison["change"] != 0).any()
    assert tuner.agreement is not None
    assert list(tuner.agreement.part) == ["tune"] * 3 + ["test"] * 3
    assert list(tuner.agreement.metric) == ["spearman", "kendall", "pearson"] * 2
    assert (tuner.agreement.before != tuner.agreement.after).any()
    status = tuner.status.value
    assert "Changed settings: claim_support=1, answer_share=1." in status
    assert "offline judge ignores prompts" not in status
    assert tuner.export() == {}
    assert tuner.exported_settings == {"claim_support": 1.0, "answer_share": 1.0}
    assert "create_summarization_scorer(offline_settings=offline_settings)" in (
        tuner.export_view.value
    )
    # Rules switched off on the scorer stay off in the tuned scorer and in the export.
    ablated = scorer.with_offline_settings({"disabled_rules": ["joined_apart"]})
    tuner = PromptTuner(ablated, rows, labels="human_score", sample=2, n_bootstrap=0)
    tuner.sliders["claim_support"].value = 1.0
    assert tuner.tuned_scorer().offline_settings.disabled_rules == {"joined_apart"}
    tuner.export()
    assert tuner.exported_settings == {"claim_support": 1.0, "disabled_rules": ["joined_apart"]}


def test_run_rescores_the_sample_and_shows_the_change_and_agreement(
    rows: list[dict[str, Any]],
) -> None:
    tuner = PromptTuner(
        et.create_summarization_scorer(), rows, labels="human_score", sample=16, seed=None
    )
    assert tuner.items == [row["id"] for row in rows[:16]]
    tuner.textareas["coverage"].value += "\nAnswer strictly."
    tuner.run_button.click()  # no event loop here: the run completes before click() returns

    comparison = tuner.comparison
    assert comparison is not None
    assert list(comparison.columns) == [
        "item_id",
        "before",
        "after",
        "change",
        "human_score",
        "doc_id",
        "part",
    ]
    assert sorted(comparison.item_id) == sorted(tuner.items)
    assert (comparison.change == 0).all()  # the offline judge ignores prompts
    assert tuner.progress.value == tuner.progress.max == 32  # before and after runs
    table = tuner.items_table  # below the verdict, a page at a time
    assert (table.total, len(table.rows)) == (16, 8)
    first = comparison.iloc[0]
    assert [column["key"] for column in table.columns] == list(comparison.columns)
    assert table.rows[0] == [
        str(first.item_id),
        f"{first.before:.3f}",
        f"{first.after:.3f}",
        "0.000",
        str(first.human_score),
        first.doc_id,
        first.part,
    ]
    # The verdict comes first, then the agreement on each part.
    results = tuner.results.value
    assert results.index("evaltoolkit-verdict") < results.index("evaltoolkit-agreement")
    children = tuner.widget.children
    assert children.index(tuner.results) < next(
        position for position, child in enumerate(children) if _holds(child, tuner.items_table)
    )
    status = tuner.status.value
    assert "Scored 16 items before and after: 0 changed" in status
    assert "Edited templates: coverage" in status
    assert "offline judge ignores prompts" in status

    agreement = tuner.agreement
    assert agreement is not None
    assert list(agreement.metric) == ["spearman", "kendall", "pearson"] * 2
    assert (agreement.before == agreement.after).all()
    sizes = comparison["part"].value_counts()
    shown = _table_rows(tuner.results.value, "evaltoolkit-agreement")
    assert [row[:2] for row in shown] == [
        [part, metric] for part in ("tune", "test") for metric in ("Spearman", "Kendall", "Pearson")
    ]
    assert set(agreement.level) == {"per_group"}  # summarization: per document by default
    for part, _, _, _, change, n, verdict, _ in shown:
        assert change.startswith("0.000") and int(n) <= sizes[part]
        assert verdict == ("cannot tell" if part == "test" else "")
    assert tuner.verdict == "cannot tell"  # no change is no reason to keep the edit

    tuner.run_button.click()  # the "before" scores are computed once
    assert tuner.progress.max == 16


def test_boolean_labels_add_auroc(tmp_path: Path) -> None:
    tuner = PromptTuner(
        et.create_answer_similarity_scorer(),
        DATA / "demo_answers.jsonl",
        labels="human_correct",
        sample=10,
        n_bootstrap=0,
    )
    comparison = tuner.run()
    assert len(comparison) == 10
    assert tuner.agreement is not None
    assert list(tuner.agreement.metric) == ["spearman", "kendall", "pearson", "auroc"] * 2
    assert "AUROC" in tuner.results.value
    assert tuner.group is None  # no doc_id: each answer is its own group
    assert "Verdict (pooled AUROC of the final score)" in tuner.results.value


def test_export_returns_only_the_changed_templates(rows: list[dict[str, Any]]) -> None:
    scorer = et.create_summarization_scorer()
    tuner = PromptTuner(scorer, rows, sample=3)
    assert tuner.export() == {}
    assert "Nothing to export" in tuner.export_view.value
    edited = scorer.prompts["coverage"] + "\nUse <b>only</b> the summary."
    tuner.textareas["coverage"].value = edited
    tuner.export_button.click()
    assert tuner.exported == {"coverage": edited}
    assert tuner.export() == {"coverage": edited}
    shown = tuner.export_view.value
    assert "prompts = {&#39;coverage&#39;:" in shown
    assert "create_summarization_scorer(model=..., prompts=prompts)" in shown
    assert "&lt;b&gt;only&lt;/b&gt;" in shown and "<b>only</b>" not in shown
    rebuilt = et.create_summarization_scorer(prompts=tuner.exported)
    assert rebuilt.prompts["coverage"] == edited
    assert rebuilt.prompts["source_judgement"] == scorer.prompts["source_judgement"]


def test_export_keeps_the_scorers_own_overrides(rows: list[dict[str, Any]]) -> None:
    defaults = et.create_summarization_scorer().prompts
    scorer = et.create_summarization_scorer(prompts={"reason": defaults["reason"] + " Be brief."})
    tuner = PromptTuner(scorer, rows, sample=3)
    assert tuner.textareas["reason"].value == scorer.prompts["reason"]
    assert tuner.edited_prompts() == {}
    tuner.textareas["coverage"].value = defaults["coverage"] + " Be strict."
    assert tuner.edited_prompts() == {"coverage": defaults["coverage"] + " Be strict."}
    # What create_summarization_scorer(prompts=...) needs to rebuild the tuned scorer:
    assert tuner.export() == {
        "coverage": defaults["coverage"] + " Be strict.",
        "reason": defaults["reason"] + " Be brief.",
    }


def test_a_broken_template_is_reported_not_run(rows: list[dict[str, Any]]) -> None:
    tuner = PromptTuner(et.create_summarization_scorer(), rows, sample=3)
    tuner.textareas["coverage"].value = "No placeholders at all <script>x</script>"
    tuner.run_button.click()
    assert tuner.comparison is None
    assert "Not run:" in tuner.status.value and "missing the placeholder" in tuner.status.value
    assert "<script>" not in tuner.status.value
    tuner.export_button.click()
    assert "Cannot export" in tuner.export_view.value
    with pytest.raises(ConfigurationError, match="missing the placeholder"):
        tuner.export()


def _holds(container: Any, widget: Any) -> bool:
    if container is widget:
        return True
    return any(_holds(child, widget) for child in getattr(container, "children", ()))


async def test_the_run_button_starts_a_task_and_run_blocks(rows: list[dict[str, Any]]) -> None:
    tuner = PromptTuner(et.create_summarization_scorer(), rows, labels="human_score", sample=6)
    tuner.run_button.click()
    task = tuner.task
    assert isinstance(task, asyncio.Task)
    assert not task.done()  # scheduled on the running loop; click() returned at once
    assert tuner.start() is task  # a second press while running joins the same run
    comparison = await task
    # run() blocks like every other run, here too, and says nothing; run_sync() is deprecated.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        blocked = tuner.run()
    with pytest.warns(DeprecationWarning, match=r"run\(\) blocks now"):
        assert list(tuner.run_sync().item_id) == list(comparison.item_id)
    assert isinstance(blocked, pd.DataFrame)
    assert list(blocked.item_id) == list(comparison.item_id)
    assert len(comparison) == 6
    assert tuner.run_button.disabled is False
    again = await tuner.arun()
    assert list(again.item_id) == list(comparison.item_id)
    with pytest.warns(DeprecationWarning, match=r"arun\(\)"):
        old_name = await tuner.run_async()
    assert list(old_name.item_id) == list(comparison.item_id)


def test_a_large_run_sends_about_a_hundred_progress_updates() -> None:
    # Each widget update is a message to the page; 20,000 of them held a 10,000-item run in
    # JupyterLab for minutes.
    from view_data import brevity_scorer, synthetic_rows

    tuner = PromptTuner(brevity_scorer(), synthetic_rows(1_000), sample=1_000, n_bootstrap=0)
    values: list[int] = []
    tuner.progress.observe(lambda change: values.append(change["new"]), names="value")
    tuner.run()
    assert values[-1] == tuner.progress.max == 2_000  # the bar ends full
    assert values == sorted(values) and 95 <= len(values) <= 102
    assert tuner.progress.description == "2000/2000"


def test_the_sample_is_seeded_and_in_data_order(rows: list[dict[str, Any]]) -> None:
    scorer = et.create_summarization_scorer()
    first = PromptTuner(scorer, rows, sample=5, seed=0).items
    assert first == PromptTuner(scorer, rows, sample=5, seed=0).items
    assert first != PromptTuner(scorer, rows, sample=5, seed=1).items
    order = [row["id"] for row in rows]
    assert [order.index(item_id) for item_id in first] == sorted(
        order.index(item_id) for item_id in first
    )
    assert PromptTuner(scorer, rows, sample=100).items == order
    assert "on 5 of 17 items (drawn with seed 0)" in PromptTuner(scorer, rows, sample=5).intro.value


def test_prompt_tuner_rejects_bad_arguments(rows: list[dict[str, Any]]) -> None:
    with pytest.raises(ConfigurationError, match="no prompt templates"):
        PromptTuner(et.create_textual_difference_scorer(), rows)
    with pytest.raises(ConfigurationError, match="labels field 'missing'"):
        PromptTuner(et.create_summarization_scorer(), rows, labels="missing")
    with pytest.raises(ConfigurationError, match="numbers or booleans"):
        PromptTuner(et.create_summarization_scorer(), rows, labels="fault")
    renamed = [{**row, "change": row["human_score"]} for row in rows]
    with pytest.raises(ConfigurationError, match="labels field 'change' has the name of a column"):
        PromptTuner(et.create_summarization_scorer(), renamed, labels="change")
    with pytest.raises(ConfigurationError, match="sample"):
        PromptTuner(et.create_summarization_scorer(), rows, sample=0)
    parted = [{**row, "part": row["human_score"]} for row in rows]
    with pytest.raises(ConfigurationError, match="labels field 'part' has the name of the col"):
        PromptTuner(et.create_summarization_scorer(), parted, labels="part")
    with pytest.raises(ConfigurationError, match="group='human_score' is the labels field"):
        PromptTuner(
            et.create_summarization_scorer(), rows, labels="human_score", group="human_score"
        )
    tuner = PromptTuner(et.create_summarization_scorer(), rows, sample=4)
    tuner.textareas["reason"].value += " Be brief."
    assert repr(tuner) == (
        "PromptTuner(summarization, judge='offline', 4 sampled items, 1 edited template(s))"
    )


# A rating judge whose edited prompt helps the tune part, and on the test part does nothing,
# helps as well, or hurts: the verdict must follow the test part alone.
_HELPFUL_EDIT = "Rate by how much of the source the answer keeps."
_RATING_STEP = et.Step(
    name="rate",
    prompt="Rate this answer from 0 to 15: {{output}}",
    schema={
        "type": "object",
        "properties": {"rating": {"type": "number"}},
        "required": ["rating"],
    },
)


def _rated_items() -> list[dict[str, Any]]:
    """40 answers on 20 documents, labelled 0 to 39."""
    return [
        {
            "id": f"answer-{i}",
            "doc_id": f"doc-{i // 2}",
            "input": "q",
            "output": f"answer-{i}",
            "label": float(i),
        }
        for i in range(40)
    ]


def _rating_tuner(on_test: str) -> PromptTuner:
    from fake_judge import FakeJudge
    from loopback_server import reply

    items = _rated_items()
    in_test = set(et.meta.tune_test_split(items, seed=0).pipe(lambda s: s[s == "test"]).index)
    labels = {item["id"]: item["label"] for item in items}

    def rate(body: dict[str, Any]) -> Any:
        prompt = "\n".join(str(message["content"]) for message in body["messages"])
        item_id = re.search(r"answer-\d+", prompt.split("Rate this answer")[-1])
        assert item_id is not None
        label = labels[item_id.group(0)]
        test_item = item_id.group(0) in in_test
        # Before the edit: a poor rating, except where the edit is to hurt a good one.
        rating = label if test_item and on_test == "hurts" else (7 * label) % 40
        if _HELPFUL_EDIT in prompt:
            if not test_item or on_test == "helps":
                rating = label
            elif on_test == "hurts":
                rating = -label
        return reply({"rating": rating})

    judge = FakeJudge()
    judge.set_responder(rate)
    scorer = et.create_judged_scorer(
        id="rating",
        steps=[_RATING_STEP],
        score=lambda context: float(context.replies["rate"]["rating"]),
        model=judge,
    )
    return PromptTuner(scorer, items, labels="label", sample=40)


@pytest.mark.parametrize(
    ("on_test", "verdict"),
    [
        ("nothing", "cannot tell"),
        ("helps", "better on test"),
        ("hurts", "worse on test"),
    ],
)
def test_an_edit_that_helps_the_tune_part_is_judged_on_the_test_part(
    on_test: str, verdict: str
) -> None:
    tuner = _rating_tuner(on_test)
    assert tuner.split is not None and tuner.group == "doc_id"
    tuner.textareas["rate"].value = _RATING_STEP.prompt + " " + _HELPFUL_EDIT
    comparison = tuner.run()
    # One document never sits on both sides of the split.
    assert comparison.groupby("doc_id")["part"].nunique().max() == 1
    assert set(comparison["part"]) == {"tune", "test"}
    agreement = tuner.agreement
    assert agreement is not None
    spearman = agreement[agreement.metric == "spearman"].set_index("part")
    tune, test = spearman.loc["tune"], spearman.loc["test"]
    # The edit helps the tune part: its Spearman ends at 1, the interval of the change above 0.
    assert tune.after == pytest.approx(1.0) and tune.change_ci_low > 0
    # On the test part the change is exactly what the judge was scripted to do.
    test_rows = comparison[comparison.part == "test"]
    expected_after = {
        "nothing": test_rows.before,
        "helps": test_rows.label,
        "hurts": -test_rows.label,
    }[on_test]
    assert list(test_rows.after) == pytest.approx(list(expected_after))
    if on_test == "nothing":
        assert (test.change, test.change_ci_low, test.change_ci_high) == (0.0, 0.0, 0.0)
    assert tuner.verdict == verdict == test.verdict
    shown = re.sub(r"<[^>]+>", "", tuner.results.value)
    # A custom scorer's agreement is pooled over the items (documents resampled whole).
    assert f"Verdict (pooled Spearman of the final score): {verdict}." in shown
    # Only an edit better on held-out documents reads as a reason to keep it.
    assert ("supports keeping the edit" in shown) == (verdict == "better on test")
    assert ("do not keep the edit" in shown) == (verdict == "worse on test")
    tune_interval = f"[{tune.change_ci_low:.2f}, {tune.change_ci_high:.2f}]"
    assert f"Tune part: {tune.change:+.3f} {tune_interval} over {int(tune.n)} items" in shown
    # The export carries the evidence it was chosen on.
    assert tuner.export() == {"rate": _RATING_STEP.prompt + " " + _HELPFUL_EDIT}
    record = tuner.exported_record
    assert record is not None
    assert record["verdict"] == verdict
    assert record["agreement"]["test"]["spearman"]["change"] == pytest.approx(test.change)
    assert record["agreement"]["tune"]["spearman"]["after"] == pytest.approx(1.0)
    assert record["split"] == {
        "group": "doc_id",
        "test_share": 0.5,
        "seed": 0,
        "tune_items": 20,
        "test_items": 20,
    }
    json.dumps(record)  # plain values, ready to save beside the prompts
    # Edited again after the run: the evidence no longer belongs to the export.
    tuner.textareas["rate"].value += " Again."
    tuner.export()
    assert tuner.exported_record is not None
    assert tuner.exported_record["agreement"] == {}
    assert tuner.exported_record["verdict"] is None


def test_an_edit_that_flattens_every_test_document_says_so() -> None:
    # Issue 32: notebook 03's stricter settings take the test part's pooled Spearman from
    # 0.851 to 0.101 while each of its 2 documents scores all its summaries alike; the
    # verdict read "not confirmed".
    scorer = et.create_summarization_scorer()
    for level in ("per_group", "pooled"):
        tuner = PromptTuner(
            scorer, DATA / "demo_summaries.jsonl", labels="human_score", sample=16, level=level
        )
        tuner.sliders["claim_support"].value = 1.0
        tuner.sliders["answer_share"].value = 0.9
        comparison = tuner.run()
        test = comparison[comparison.part == "test"]
        assert test.groupby("doc_id")["after"].nunique().max() == 1
        assert test.groupby("doc_id")["before"].nunique().max() > 1
        assert tuner.verdict == "lost all discrimination on test"
        shown = re.sub(r"<[^>]+>", "", tuner.results.value)
        assert "each of the 2 test documents gives all its items one score" in shown
        assert "do not keep the edit" in shown


def test_the_verdict_reads_the_axis_and_level_the_user_chose() -> None:
    # Issue 32: the tuner measured pooled Spearman of the final score, while notebook 04 and
    # the rest of the toolkit read summarization per document; the verdict did not say which.
    from scipy import stats

    scorer = et.create_summarization_scorer()
    data = DATA / "demo_summaries.jsonl"
    default = PromptTuner(scorer, data, labels="human_score", sample=16, n_bootstrap=0)
    assert (default.axis, default.level) == ("score", "per_group")
    assert "agreement read on the final score, per document (doc_id)" in default.intro.value
    coverage = PromptTuner(
        scorer, data, labels="human_score", sample=16, n_bootstrap=0, axis="coverage"
    )
    coverage.sliders["answer_share"].value = 0.9
    comparison = coverage.run()
    run = et.run_evals(data, scorer, progress=False)
    by_id = {item.item_id: item.scorer_results["summarization"] for item in run}
    assert list(comparison.before) == [
        by_id[item_id].details["coverage_score"] for item_id in comparison.item_id
    ]
    assert coverage.agreement is not None
    rows = coverage.agreement.query("metric == 'spearman'").set_index("part")
    for part in ("tune", "test"):
        chosen = comparison[comparison.part == part]
        per_document = [
            stats.spearmanr(group.before, group.human_score).statistic
            if group.before.nunique() > 1
            else 0.0
            for _, group in chosen.groupby("doc_id")
            if group.human_score.nunique() > 1 and len(group) >= 3
        ]
        assert rows.loc[part, "before"] == pytest.approx(np.mean(per_document))
        assert rows.loc[part, "level"] == "per_group"
    shown = re.sub(r"<[^>]+>", "", coverage.results.value)
    assert "Verdict (per-document Spearman of the coverage axis)" in shown
    pooled = PromptTuner(
        scorer, data, labels="human_score", sample=16, n_bootstrap=0, level="pooled"
    )
    pooled.run()
    assert "Verdict (pooled Spearman of the final score)" in pooled.results.value
    assert pooled.agreement is not None and set(pooled.agreement.level) == {"pooled"}
    with pytest.raises(ConfigurationError, match="no axis 'relevance'; choose one of score"):
        PromptTuner(scorer, data, labels="human_score", axis="relevance")
    with pytest.raises(ConfigurationError, match="level='system' needs a 'system_id' field"):
        PromptTuner(scorer, data, labels="human_score", level="system")
    with pytest.raises(ConfigurationError, match="unknown level 'document'"):
        PromptTuner(scorer, data, labels="human_score", level="document")


def test_the_axis_and_level_pickers_reread_the_last_run_without_rescoring() -> None:
    scorer = et.create_summarization_scorer()
    data = DATA / "demo_summaries.jsonl"
    tuner = PromptTuner(scorer, data, labels="human_score", sample=16, n_bootstrap=0)
    # The choice is on screen: the scorer's axes, and the levels these items support.
    assert list(tuner.axis_picker.options) == ["score", "alignment", "coverage"]
    assert [value for _, value in tuner.level_picker.options] == ["per_group", "pooled"]
    assert "The verdict reads the final score, per document (doc_id)." in tuner.choice_note.value
    tuner.sliders["answer_share"].value = 0.9
    tuner.run()
    scored = tuner.progress.value
    tuner.axis_picker.value = "coverage"
    tuner.level_picker.value = "pooled"
    assert (tuner.axis, tuner.level) == ("coverage", "pooled")
    assert tuner.progress.value == scored  # read again, not rescored
    assert "Verdict (pooled Spearman of the coverage axis)" in tuner.results.value
    assert tuner.agreement is not None and set(tuner.agreement.level) == {"pooled"}
    fresh = PromptTuner(
        scorer,
        data,
        labels="human_score",
        sample=16,
        n_bootstrap=0,
        axis="coverage",
        level="pooled",
    )
    fresh.sliders["answer_share"].value = 0.9
    fresh.run()
    assert fresh.comparison is not None and tuner.comparison is not None
    assert list(tuner.comparison.before) == list(fresh.comparison.before)
    assert fresh.agreement is not None
    assert list(tuner.agreement.after) == list(fresh.agreement.after)
    with pytest.raises(ConfigurationError, match="level 'system' is not available"):
        tuner.choose(level="system")


def test_the_tuner_says_what_it_cannot_measure(rows: list[dict[str, Any]]) -> None:
    scorer = et.create_summarization_scorer()
    unlabelled = PromptTuner(scorer, rows, sample=16)
    assert unlabelled.split is None
    assert "cannot measure agreement with human labels" in unlabelled.split_view.value
    unlabelled.run()
    assert unlabelled.agreement is None and unlabelled.verdict is None
    assert "evaltoolkit-agreement" not in unlabelled.results.value
    # The first 8 demo summaries come from 3 documents: too few for two parts of 2.
    few = PromptTuner(scorer, rows, labels="human_score", sample=8, seed=None, n_bootstrap=0)
    assert few.split is None
    assert "3 groups of &#39;doc_id&#39;" in few.split_view.value
    assert "it needs at least 4" in few.split_view.value
    few.run()
    assert few.agreement is not None and set(few.agreement.part) == {"all"}
    assert few.verdict is None
    assert "No verdict" in few.results.value
    # A larger test share needs more groups, and says so.
    assert (
        "needs at least 6"
        in PromptTuner(
            scorer, rows, labels="human_score", sample=16, test_share=0.7
        ).split_view.value
    )
    with pytest.raises(ConfigurationError, match="test_share"):
        PromptTuner(scorer, rows, labels="human_score", test_share=1.0)
    # Outside an event loop, run() returns the comparison too.
    assert list(unlabelled.run().columns)[:4] == ["item_id", "before", "after", "change"]
    with pytest.raises(ConfigurationError, match="no 'topic' field"):
        PromptTuner(scorer, rows, labels="human_score", group="topic")


def test_the_split_and_verdict_are_escaped() -> None:
    items = [
        {
            "id": f"{SCRIPT}-{i}",
            "doc_id": f"{IMG}-{i % 4}",
            "input": "q",
            "output": "a",
            "label": float(i),
        }
        for i in range(8)
    ]
    tuner = PromptTuner(
        et.create_answer_similarity_scorer(require_ground_truth=False),
        items,
        labels="label",
        group="doc_id",
        n_bootstrap=20,
    )
    tuner.run()
    for markup in (tuner.intro.value, tuner.results.value, tuner.status.value):
        assert "<script" not in markup.lower() and "<img" not in markup.lower()
    # The ids reach the page as text cells of the paged table (set as textContent there).
    assert any(row[0].startswith(SCRIPT) for row in tuner.items_table.rows)


def _model_judge_replies(strict_marker: str) -> Mapping[str, Callable[[dict[str, Any]], Any]]:
    from loopback_server import reply

    def source_judgement(body: dict[str, Any]) -> Any:
        return reply(
            {
                "claims": [
                    {"claim": "The bridge will be replaced.", "supported": True, "reason": "stated"}
                ],
                "questions": ["Is the bridge replaced?", "Does it cost 240 million dollars?"],
            }
        )

    def coverage(body: dict[str, Any]) -> Any:
        strict = strict_marker in "\n".join(str(m["content"]) for m in body["messages"])
        return reply(
            {
                "verdicts": [
                    {"question": "Is the bridge replaced?", "answered": True, "reason": "yes"},
                    {
                        "question": "Does it cost 240 million dollars?",
                        "answered": not strict,
                        "reason": "strict" if strict else "lenient",
                    },
                ]
            }
        )

    return {"source_judgement": source_judgement, "coverage": coverage}


def test_with_a_model_judge_edits_change_scores_and_unchanged_calls_are_cached(
    rows: list[dict[str, Any]],
    make_judge: Callable[..., Any],
    loopback_server: Any,
    judge_cache_dir: Path,
) -> None:
    marker = "Count a question answered only when the summary gives the exact figure."
    script_steps(loopback_server, _model_judge_replies(marker))
    scorer = et.create_summarization_scorer(make_judge(cache=judge_cache_dir), reason="template")
    tuner = PromptTuner(scorer, rows, sample=4, seed=None)
    assert tuner.offline_note.value == ""
    tuner.textareas["coverage"].value += "\n" + marker
    comparison = tuner.run()
    assert list(comparison.before) == [1.0] * 4
    assert list(comparison.after) == [0.5] * 4
    assert list(comparison.change) == [-0.5] * 4
    assert "4 changed, mean change -0.500" in tuner.status.value
    # The edited run asked only for coverage; the source judgement came from the cache.
    assert len(requests_for(loopback_server, "source_judgement")) == 4
    assert len(requests_for(loopback_server, "coverage")) == 8
    assert "4 of 8 judge calls of the edited run came from the judge cache" in tuner.status.value


# Packaging ---------------------------------------------------------------------------------


def test_importing_the_package_and_views_stays_light() -> None:
    code = (
        "import sys, evaltoolkit, evaltoolkit.widgets, evaltoolkit.plots; "
        "print(sorted(m for m in ('ipywidgets', 'matplotlib', 'pandas') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert done.stdout.strip() == "[]"


# Annotator: rubric and shared words ---------------------------------------------------------


def test_the_annotator_shows_the_users_rubric_beside_the_values(tmp_path: Path) -> None:
    from evaltoolkit.widgets import Annotator

    rubric = {
        1: f"contradicts the source {SCRIPT}",
        3: "some claims unsupported",
        5: "all supported",
    }
    view = Annotator(
        DATA / "demo_summaries.jsonl",
        label="consistency",
        scale=(1, 5),
        path=tmp_path / "labels.jsonl",
        annotator="alice",
        rubric=rubric,
    )
    shown = view.rubric_view.value
    cells = re.findall(r"<th[^>]*>(.*?)</th><td>(.*?)</td>", shown)
    assert cells == [("1", str(escape(rubric[1]))), ("3", rubric[3]), ("5", rubric[5])]
    assert "<script" not in shown
    tips = {button.description: button.tooltip for button in view.value_buttons}
    assert tips == {"1": rubric[1], "2": "", "3": rubric[3], "4": "", "5": rubric[5]}
    with pytest.raises(
        ConfigurationError, match=r"gives a meaning to 7, which is not on its scale"
    ):
        Annotator(
            DATA / "demo_summaries.jsonl",
            label="consistency",
            scale=(1, 5),
            path=tmp_path / "labels.jsonl",
            annotator="alice",
            rubric={7: "off the scale"},
        )
    two = Annotator(
        DATA / "demo_summaries.jsonl",
        labels={"consistency": (1, 5), "relevance": (1, 3)},
        path=tmp_path / "two.jsonl",
        annotator="bob",
        rubric={"relevance": {1: "off topic", 3: "the main points"}},
    )
    assert two.rubric_view.value == ""  # consistency has no rubric
    two.label_picker.value = "relevance"
    assert "off topic" in two.rubric_view.value


def test_the_annotator_marks_the_words_source_and_summary_share(tmp_path: Path) -> None:
    from evaltoolkit.widgets import Annotator

    items = [
        {
            "id": "x",
            "input": f"The harbour council voted on Monday. {SCRIPT}",
            "output": "Council voted to close the harbour <b>today</b>.",
        }
    ]
    plain = Annotator(
        items, label="consistency", scale=(1, 5), path=tmp_path / "a.jsonl", annotator="a"
    )
    assert "<mark" not in plain.item_view.value
    marked = Annotator(
        items,
        label="consistency",
        scale=(1, 5),
        path=tmp_path / "b.jsonl",
        annotator="a",
        highlight_shared=True,
    )
    shown = marked.item_view.value
    assert re.findall(r"<mark[^>]*>(\w+)</mark>", shown) == [
        "harbour",
        "council",
        "voted",
        "Council",
        "voted",
        "harbour",
    ]  # "the", "on", "today" are not shared or too common
    assert "&lt;script&gt;" in shown and "&lt;b&gt;today&lt;/b&gt;" in shown
    assert "<script" not in shown and "<b>today" not in shown
