"""Both model-judged scorers over the demo data, through run_evals and the command line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from _support import DATA
from judge_script import script_steps
from loopback_server import LoopbackServer

from evaltoolkit import (
    create_answer_similarity_scorer,
    create_summarization_scorer,
    create_textual_difference_scorer,
    run_evals,
)
from evaltoolkit.cli import main

AXIS_COLUMNS = [
    "alignment_score",
    "coverage_score",
    "decided_by",
    "claims",
    "unsupported_claims",
    "questions",
    "unanswered_questions",
]


def test_summarization_over_the_demo_exports_axis_columns(tmp_path: Path) -> None:
    result = run_evals(DATA / "demo_summaries.jsonl", create_summarization_scorer(), progress=False)
    frame = result.to_frame()
    assert len(frame) == 16
    assert frame["error"].isna().all()
    assert set(AXIS_COLUMNS) <= set(frame.columns)
    assert (frame["score"] == frame[["alignment_score", "coverage_score"]].min(axis=1)).all()
    assert set(frame["judge_model"]) == {"offline"}
    assert {"doc_id", "fault", "human_score"} <= set(frame.columns)
    exported = pd.read_parquet(result.to_parquet(tmp_path / "summaries.parquet"))
    assert set(AXIS_COLUMNS) <= set(exported.columns)
    faithful = frame[frame["fault"] == "none"]["alignment_score"].mean()
    omissions = frame[frame["fault"] == "omission"]
    assert omissions["coverage_score"].mean() < omissions["alignment_score"].mean()
    assert (
        faithful
        > frame[frame["fault"].isin(["wrong number", "wrong name"])]["alignment_score"].mean()
    )


def test_answer_similarity_over_the_demo(tmp_path: Path) -> None:
    result = run_evals(
        DATA / "demo_answers.jsonl",
        [create_answer_similarity_scorer(), create_textual_difference_scorer()],
        progress=False,
    )
    frame = result.to_frame()
    assert len(frame) == 32
    assert frame["error"].isna().all()
    similarity = frame[frame["scorer"] == "answer-similarity"]
    assert {"base_similarity", "exact_matches", "contradictions", "extra_info"} <= set(
        frame.columns
    )
    right = similarity[similarity["human_correct"]]["score"].mean()
    wrong = similarity[~similarity["human_correct"].astype(bool)]["score"].mean()
    assert right > wrong
    wide = result.to_wide()
    assert {"answer-similarity.score", "textual-difference.score"} <= set(wide.columns)


def test_cli_runs_a_model_judge_through_an_openai_compatible_server(
    loopback_server: LoopbackServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    script_steps(
        loopback_server,
        {
            "source_judgement": {
                "claims": [{"claim": "c", "supported": True, "reason": "r"}],
                "questions": ["Q1?", "Q2?"],
            },
            "coverage": {
                "verdicts": [
                    {"question": "Q1?", "answered": True, "reason": "r"},
                    {"question": "Q2?", "answered": False, "reason": "r"},
                ]
            },
            "reason": {"reason": "Coverage decided."},
        },
    )
    out = tmp_path / "scored.jsonl"
    status = main(
        [
            "run",
            str(DATA / "demo_summaries.jsonl"),
            "--scorer",
            "summarization",
            "--model",
            "openai/loopback",
            "--api-base",
            loopback_server.url,
            "--cache-dir",
            str(tmp_path / "cache"),
            "--limit",
            "3",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    steps = [body["response_format"]["json_schema"]["name"] for body in loopback_server.requests]
    assert steps.count("source_judgement") == steps.count("coverage") == 3
    # The three reason prompts are identical: the cache may answer the later ones.
    assert 1 <= steps.count("reason") <= 3
    first_run = loopback_server.requests_total
    frame = pd.read_json(out, lines=True)
    assert frame["score"].tolist() == [0.5, 0.5, 0.5]
    assert set(frame["judge_model"]) == {"openai/loopback"}
    assert "summarization" in capsys.readouterr().out
    assert "sk-from-the-environment" not in out.read_text()
    status = main(
        [
            "run",
            str(DATA / "demo_summaries.jsonl"),
            "--scorer",
            "summarization",
            "--model",
            "openai/loopback",
            "--api-base",
            loopback_server.url,
            "--cache-dir",
            str(tmp_path / "cache"),
            "--limit",
            "3",
            "--no-progress",
        ]
    )
    assert status == 0
    assert loopback_server.requests_total == first_run  # the rerun is answered by the cache
