"""The command line of reports and judge leaderboards: `report` and `meta-eval --model ...`."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from _support import DATA
from loopback_server import Action, LoopbackServer
from test_compare_judges import GOOD, NOISY, _frame, _judge
from test_report import report_data

import evaltoolkit as et
from evaltoolkit.cli import main


def _cli_judge(body: dict[str, Any]) -> Action:
    model = str(body.get("model"))
    chosen = {"good": _judge(GOOD), "noisy": _judge(NOISY)}[model]
    return chosen(body)


def test_meta_eval_with_several_models_prints_and_writes_the_leaderboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "labelled.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in _frame().to_dict("records")))
    out, report = tmp_path / "board.csv", tmp_path / "report.html"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-in-env-123")
    with LoopbackServer(responder=_cli_judge) as server:
        status = main(
            [
                "meta-eval",
                str(data),
                "--task",
                "summarization",
                "--label",
                "consistency",
                "--model",
                "openai/noisy",
                "--model",
                "openai/good",
                "--model",
                "offline",
                "--api-base",
                server.url,
                "--no-cache",
                "--bootstrap",
                "50",
                "--out",
                str(out),
                "--report",
                str(report),
                "--no-progress",
            ]
        )
    assert status == 0
    printed = capsys.readouterr().out
    assert "leaderboard: agreement with 'consistency'" in printed
    ranked = [line.split()[1] for line in printed.splitlines() if re.match(r"\s*\d+=?\s+\S+", line)]
    assert ranked == list(pd.read_csv(out)["judge"])
    assert ranked.index("openai/good") < ranked.index("openai/noisy")
    assert "pairwise agreement" in printed
    board = pd.read_csv(out)
    assert board["judge"].iloc[0] == "openai/good"
    assert list(board["judge"]) == ["openai/good", "openai/noisy", "offline"]
    assert board["agreement"].iloc[:2].between(-1, 1).all()
    assert math.isnan(board["agreement"].iloc[2])  # constant offline scores: ranked last
    page = report.read_text()
    assert "openai/good" in page and "Judge leaderboard" in page
    assert "sk-planted-in-env-123" not in page


def test_meta_eval_with_one_model_keeps_its_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "labelled.csv"
    _frame().to_csv(data, index=False)
    status = main(
        [
            "meta-eval",
            str(data),
            "--task",
            "summarization",
            "--label",
            "consistency",
            "--model",
            "offline",
            "--bootstrap",
            "0",
            "--no-progress",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "12 labelled items scored, 0 failed" in printed
    assert "agreement with 'consistency' (summarization, judge offline)" in printed
    assert "leaderboard" not in printed


def test_report_reads_saved_results_and_writes_one_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summaries = tmp_path / "summaries.parquet"
    answers = tmp_path / "answers.csv"
    assert (
        main(
            [
                "run",
                str(DATA / "demo_summaries.jsonl"),
                "--scorer",
                "summarization",
                "--out",
                str(summaries),
                "--no-progress",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "run",
                str(DATA / "demo_answers.jsonl"),
                "--scorer",
                "answer-similarity",
                "--scorer",
                "textual-difference",
                "--out",
                str(answers),
                "--no-progress",
            ]
        )
        == 0
    )
    capsys.readouterr()
    out = tmp_path / "site" / "report.html"
    status = main(
        [
            "report",
            str(summaries),
            str(answers),
            "-o",
            str(out),
            "--title",
            "Both runs",
            "--max-items",
            "10",
        ]
    )
    assert status == 0
    assert f"wrote {out}" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    data = report_data(page)
    assert data["runs"] == ["summaries.parquet", "answers.csv"]
    assert len(data["rows"]) == 16 + 2 * 16
    assert sum(1 for row in data["rows"] if row[7] >= 0) == 10
    assert "<title>Both runs</title>" in page
    assert "This report holds drill-downs for 10 of 48 rows (max_items=10)" in page
    expected = et.read_results(summaries).scores["summarization"].mean
    assert data["rows"][0][3] is not None
    assert any(f"{expected:.3f}" in cell for cell in re.findall(r"<td[^>]*>([^<]*)</td>", page))


def test_report_of_a_file_that_is_not_results_says_which_columns_lack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["report", str(DATA / "demo_answers.jsonl"), "-o", str(tmp_path / "r.html")])
    assert status == 2
    error = capsys.readouterr().err
    assert "not an evaltoolkit results export" in error and "'scorer'" in error
    assert not (tmp_path / "r.html").exists()


def test_help_lists_the_report_command() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "evaltoolkit", "report", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--max-items" in completed.stdout and "RESULTS" in completed.stdout.upper()


def test_meta_eval_with_one_model_and_a_report_keeps_its_output_and_adds_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "labelled.csv"
    _frame().to_csv(data, index=False)
    out, report = tmp_path / "agreement.csv", tmp_path / "report.html"
    status = main(
        [
            "meta-eval",
            str(data),
            "--task",
            "summarization",
            "--label",
            "consistency",
            "--bootstrap",
            "20",
            "--out",
            str(out),
            "--report",
            str(report),
            "--no-progress",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "12 labelled items scored, 0 failed" in printed
    assert "agreement with 'consistency' (summarization, judge offline)" in printed
    assert "leaderboard" not in printed
    table = pd.read_csv(out)
    # The agreement table: each score column, then the baseline block.
    assert set(table["score"]) == {"alignment", "coverage", "score", "baseline"}
    page = report.read_text(encoding="utf-8")
    assert "Judge leaderboard" not in page
    assert len(report_data(page)["rows"]) == 12


@pytest.mark.parametrize("name", ["empty.jsonl", "header_only.csv"])
def test_report_of_a_results_file_without_items_says_so_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    results = tmp_path / name
    empty = et.EvalResult(items=[], scorer_ids=[])
    if name.endswith(".jsonl"):
        empty.to_jsonl(results)
    else:
        empty.to_csv(results)
    page = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(page)]) == 2
    assert f"{str(results)!r} holds no items" in capsys.readouterr().err
    assert not page.exists()


def test_report_of_an_edited_csv_groups_rows_by_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = [
        {"id": f"i{n}", "input": "q", "output": "a b" * n, "ground_truth": "a b"} for n in range(4)
    ]
    scorer = et.create_textual_difference_scorer()
    result = et.run_evals(data, {"one": scorer, "two": scorer}, progress=False)
    results = result.to_csv(tmp_path / "results.csv")
    rows = pd.read_csv(results).sort_values("score").iloc[1:]  # sorted, one row deleted
    rows.to_csv(results, index=False)
    page = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(page)]) == 0
    captured = capsys.readouterr()
    assert "1 for 'one'" in captured.err or "1 for 'two'" in captured.err
    assert len(report_data(page.read_text(encoding="utf-8"))["rows"]) == 2 * 4  # one per score
