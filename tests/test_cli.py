"""The evaltoolkit command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from _support import DATA

from evaltoolkit.cli import main


def test_help_lists_the_commands() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "evaltoolkit", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("demo", "run"):
        assert command in completed.stdout


def test_run_prints_a_summary_and_writes_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.parquet"
    status = main(
        [
            "run",
            str(DATA / "demo_answers.jsonl"),
            "--scorer",
            "textual-difference",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "textual-difference" in printed and "scored" in printed and "failed" in printed
    frame = pd.read_parquet(out)
    assert len(frame) == 16
    assert frame["score"].between(0, 1).all()


def test_run_with_custom_columns_and_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pairs.csv"
    pd.DataFrame(
        {"q": ["x", "y", "z"], "answer": ["Paris", None, "Rome"], "gold": ["Paris", "Rome", "Rome"]}
    ).to_csv(path, index=False)
    out = tmp_path / "out.csv"
    status = main(
        [
            "run",
            str(path),
            "--scorer",
            "textual-difference",
            "--input-col",
            "q",
            "--output-col",
            "answer",
            "--ground-truth-col",
            "gold",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "failed: item 1" in printed
    frame = pd.read_csv(out)
    assert frame["score"].tolist()[0] == 1.0
    assert frame["error"].notna().tolist() == [False, True, False]


def test_unreadable_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["run", str(tmp_path / "nope.jsonl"), "--scorer", "textual-difference"])
    assert status == 2
    assert "no such file" in capsys.readouterr().err
