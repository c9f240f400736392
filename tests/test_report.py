"""The self-contained HTML report: content, escaping, no network, limits (read from the page)."""

from __future__ import annotations

import importlib.util
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _support import DATA, REPO

import evaltoolkit as et
from evaltoolkit import ConfigurationError, EvalResult, ItemResult, ModelCall, ScoreResult
from evaltoolkit.report import build_report, write_report

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
BREAKOUT = "</script><script>alert(2)</script><!--"
MB = 1_000_000


class _Page(HTMLParser):
    """Every element of a page, with its attributes, and the text of its script elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    return parser


def report_data(page: str) -> dict[str, Any]:
    parsed = parse(page)
    [block] = [
        text
        for (tag, attrs), text in zip(
            [t for t in parsed.tags if t[0] == "script"], parsed.scripts, strict=True
        )
        if attrs.get("type") == "application/json"
    ]
    data: dict[str, Any] = json.loads(block)
    return data


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / "demo_summaries.jsonl").read_text().splitlines()]


class PayloadJudge:
    """The offline judge, whose claim reasons carry a payload for one summary."""

    def __init__(self) -> None:
        from evaltoolkit.judge._internal import OfflineJudge

        self._offline = OfflineJudge()

    @property
    def model(self) -> str:
        return "offline"

    @property
    def offline(self) -> bool:
        return True

    async def complete(self, request: Any) -> Any:
        reply = await self._offline.complete(request)
        if request.step == "source_judgement" and "PAYLOAD" in str(request.inputs):
            for claim in reply.value["claims"]:
                claim["reason"] = f"{claim['reason']} {SCRIPT} {BREAKOUT}"
                claim["rule"] = f"{claim['rule']} {BREAKOUT}"
        return reply


@pytest.fixture(scope="module")
def run() -> EvalResult:
    rows = _rows()
    rows.append(
        {
            "id": f"payload-{IMG}",
            "input": rows[0]["input"],
            "output": (
                "The city council of Port Alden voted on Tuesday to replace the 80-year-old "
                f"Harbour Bridge, PAYLOAD {SCRIPT} {BREAKOUT}"
            ),
            "doc_id": IMG,
        }
    )
    rows.append({"id": "no-output", "input": rows[0]["input"], "output": None})
    return et.run_evals(
        rows,
        [et.create_summarization_scorer(PayloadJudge()), et.create_textual_difference_scorer()],
        progress=False,
    )


@pytest.fixture(scope="module")
def page(run: EvalResult) -> str:
    return build_report(run, title=f"Demo {SCRIPT}", top_disagreements=20)


def test_the_page_shows_the_runs_metadata_summary_and_prompts(run: EvalResult, page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>Demo &lt;script&gt;alert(1)&lt;/script&gt;</title>" in page
    assert run.run_id in page
    assert "summarization: offline; textual-difference: no model" in page
    assert "18 items, 36 results" in page
    assert "34 scored, 2 failed" in page
    assert "not reported (the offline judge, or no model call)" in page
    assert "not saved (the report was built from a result in memory)" in page
    summary = re.search(r"<table class='evaltoolkit-table scorer-summary'.*?</table>", page, re.S)
    assert summary is not None
    mean = run.scores["summarization"].mean
    assert f"<td style='{et._internal.html.CELL_STYLE}'>{mean:.3f}</td>" in summary.group(0)
    # Prompts used: one collapsed block per judge step, as sent for the first scored item.
    for step in ("source_judgement", "coverage", "reason"):
        assert f"summarization · {step} (as sent for item harbour-bridge-0)" in page


def test_the_figures_are_inline_svg(page: str) -> None:
    parsed = parse(page)
    svgs = [attrs for tag, attrs in parsed.tags if tag == "svg"]
    assert len(svgs) == 2  # the histograms and the alignment-vs-coverage scatter
    assert "summarization: alignment vs coverage (17 items)" in page
    assert "1 failed item not shown" in page
    assert "textual-difference (17 scored, 1 failed)" in page


def test_nothing_in_the_page_points_outside_it(page: str) -> None:
    parsed = parse(page)
    tags = {tag for tag, _ in parsed.tags}
    assert not tags & {"img", "link", "iframe", "object", "embed", "video", "audio", "source"}
    for tag, attrs in parsed.tags:
        for name in ("src", "href", "xlink:href", "action", "srcset", "poster"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith("#"), (tag, name, value)
        assert tag != "script" or "src" not in attrs
    # The only web addresses are the SVG namespace names (identifiers, never fetched).
    assert set(re.findall(r"https?://[^\"' ]+", page)) == {
        "http://www.w3.org/1999/xlink",
        "http://www.w3.org/2000/svg",
    }
    policy = next(a for t, a in parsed.tags if a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in str(policy["content"])
    assert "connect-src 'none'" in str(policy["content"])


def test_the_data_and_the_script_cannot_be_broken_out_of(page: str) -> None:
    parsed = parse(page)
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert len(scripts) == 2  # the JSON data and the page's own script; the payload added none
    assert page.count("</script>") == 2
    assert "alert(2)" not in parsed.scripts[1]
    data = report_data(page)
    assert any(BREAKOUT in text for text in data["texts"])  # the payload is data, intact
    rules = [
        row[3]
        for detail in data["details"]
        for table in detail.get("tables", [])
        if table["cls"] == "claims"
        for row in table["rows"]
    ]
    assert any(rule.endswith(BREAKOUT) for rule in rules)  # the rule column too


def test_payloads_in_the_server_rendered_parts_are_escaped(page: str) -> None:
    body = page.split("<script type='application/json'")[0]
    assert "<img" not in body
    assert body.count("<script") == 0
    assert "payload-&lt;img src=x onerror=alert(1)&gt;" in body  # in the disagreement table


def test_every_row_and_its_drill_down_are_in_the_data(run: EvalResult, page: str) -> None:
    data = report_data(page)
    assert data["runs"] == ["run 1"]
    assert data["scorers"] == ["summarization", "textual-difference"]
    assert len(data["rows"]) == 36
    texts = data["texts"]
    first = run[0].scorer_results["summarization"]
    row = data["rows"][0]
    assert row[1] == "harbour-bridge-0" and row[3] == pytest.approx(first.score)
    detail = data["details"][row[7]]
    blocks = {label: texts[index] for label, index in detail["blocks"]}
    assert blocks["Source"] == run[0].input
    assert blocks["Summary"] == run[0].output
    claims, questions = detail["tables"]
    assert first.preprocess_step_result is not None and first.analyze_step_result is not None
    assert claims["head"] == ["#", "claim", "verdict", "rule", "reason"]
    assert [[texts[r[1]], r[2], r[3], texts[r[4]]] for r in claims["rows"]] == [
        [c["claim"], c["supported"], c["rule"], c["reason"]]
        for c in first.preprocess_step_result["alignment"]
    ]
    assert [[texts[r[1]], r[2], r[3]] for r in questions["rows"]] == [
        [v["question"], v["answered"], v["rule"]] for v in first.analyze_step_result["coverage"]
    ]
    failed = next(r for r in data["rows"] if r[1] == "no-output" and r[2] == 0)
    assert failed[6] == 1 and failed[3] is None
    error = data["details"][failed[7]]["error"]
    assert texts[error["text"]].startswith("Failed at step input")


def test_the_judged_source_is_shown_as_the_source() -> None:
    document = "The Lumen dam was completed in 1998. It serves 40,000 homes."
    result = ScoreResult(
        scorer="summarization",
        score=1.0,
        details={"alignment_score": 1.0, "coverage_score": 1.0, "source": document},
        preprocess_step_result={"alignment": [], "questions": []},
        analyze_step_result={"coverage": []},
    )
    item = ItemResult(
        item_id="dam",
        index=0,
        input="Please summarise the attached report.",
        output="The dam dates from 1998.",
        scorer_results={"summarization": result},
    )
    data = report_data(build_report(EvalResult(items=[item], scorer_ids=["summarization"])))
    detail = data["details"][0]
    blocks = {label: data["texts"][index] for label, index in detail["blocks"]}
    assert blocks["Source (the text judged)"] == document
    assert blocks["Input"] == "Please summarise the attached report."


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "report_size", REPO / "benchmarks" / "report_size.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("per_document", [16, 1], ids=["shared-sources", "distinct-sources"])
def test_ten_thousand_items_stay_under_twenty_megabytes(per_document: int, tmp_path: Path) -> None:
    big = _benchmark().synthetic_run(10_000, summaries_per_document=per_document)
    path = write_report(big, tmp_path / "big.html")
    size = path.stat().st_size
    assert size < 20 * MB
    page = path.read_text(encoding="utf-8")
    data = report_data(page)
    assert len(data["rows"]) == 10_000  # every row is listed, with its scores
    detailed = sum(1 for row in data["rows"] if row[7] >= 0)
    assert 0 < detailed <= 2000
    assert f"This report holds drill-downs for {detailed:,} of 10,000 rows" in page
    # The most disagreeing rows and the failed ones have drill-downs first.
    failed = [row for row in data["rows"] if row[6]]
    assert failed and all(row[7] >= 0 for row in failed)
    links = [int(n) for n in re.findall(r"<a href='#row-(\d+)'>", page)]
    assert len(links) == 15 and all(data["rows"][n][7] >= 0 for n in links)
    if per_document == 1:
        assert "size budget was reached" in page
        assert size > 10 * MB  # the budget was used, not a small fixed count


def test_long_texts_are_cut_and_say_so() -> None:
    long = "word " * 10_000
    result = et.run_evals(
        [{"input": long, "output": long, "ground_truth": "x"}],
        et.create_textual_difference_scorer(),
        progress=False,
    )
    page = build_report(result, max_text_chars=1000)
    data = report_data(page)
    assert any(text.endswith("[49,000 more characters not shown]") for text in data["texts"])
    assert "1 long text is cut to max_text_chars" in page
    assert len(page) < 60_000


def test_api_keys_of_the_environment_never_reach_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "sk-planted-REPORT-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    leaked = ScoreResult(
        scorer="s",
        score=0.5,
        reason=f"the model echoed {secret}",
        calls=(
            ModelCall(
                step="a", stage="preprocess", model="m", prompt=f"key {secret}", raw_reply=secret
            ),
        ),
    )
    item = ItemResult(item_id=1, index=0, input=secret, output="o", scorer_results={"s": leaked})
    page = build_report(EvalResult(items=[item], scorer_ids=["s"]))
    assert secret not in page
    assert "[secret removed]" in page


def test_several_runs_and_a_leaderboard(run: EvalResult, tmp_path: Path) -> None:
    first = run.to_parquet(tmp_path / "first.parquet")
    answers = et.run_evals(
        DATA / "demo_answers.jsonl", et.create_answer_similarity_scorer(), progress=False
    )
    second = answers.to_jsonl(tmp_path / "second.jsonl")
    board = et.compare_judges(
        DATA / "demo_summaries.jsonl",
        {
            "5 questions": et.create_summarization_scorer(max_questions=5),
            "10 questions": et.create_summarization_scorer(max_questions=10),
        },
        label="human_score",
        input_col="input",
        output_col="output",
        n_bootstrap=50,
        progress=False,
    )
    page = build_report([first, second], leaderboard=board)
    data = report_data(page)
    assert data["runs"] == ["first.parquet", "second.jsonl"]
    assert len(data["rows"]) == 36 + len(answers)
    assert "Run: first.parquet" in page and "Run: second.jsonl" in page
    assert re.search(r"saved \d{4}-\d\d-\d\d \d\d:\d\d UTC", page)
    assert "<section id='leaderboard'><h2>Judge leaderboard</h2>" in page
    board_table = re.search(r"<table class='evaltoolkit-table leaderboard'.*?</table>", page, re.S)
    assert board_table is not None
    for name in board["judge"]:
        assert name in board_table.group(0)
    assert "Agreement between the judges" in page
    assert "agreement with human_score vs cost" in page  # the leaderboard's figure
    assert page.count("<svg") == 2 + 1 + 1  # run 1: 2, run 2: histogram, leaderboard: 1


def test_write_report_into_a_new_folder_and_bad_arguments(run: EvalResult, tmp_path: Path) -> None:
    path = write_report(run, tmp_path / "nested" / "report.html", title="From write_report")
    assert path.is_file() and "From write_report" in path.read_text(encoding="utf-8")
    with pytest.raises(ConfigurationError, match="max_items"):
        build_report(run, max_items=-1)
    with pytest.raises(ConfigurationError, match="nothing to report"):
        build_report([])
    with pytest.raises(ConfigurationError, match="results must be"):
        build_report(42)
    empty_scores = math.isnan(run.scores["summarization"].mean)
    assert not empty_scores


def test_a_results_file_without_items_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    from evaltoolkit.errors import DataLoadError

    empty = et.EvalResult(items=[], scorer_ids=[]).to_jsonl(tmp_path / "empty.jsonl")
    page = tmp_path / "report.html"
    with pytest.raises(DataLoadError, match="holds no items"):
        write_report(empty, page)
    assert not page.exists()
