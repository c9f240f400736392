"""`evaltoolkit compare` speaks the command line's language and names the scorer it compares."""

from __future__ import annotations

from pathlib import Path

import pytest
from loopback_server import LoopbackServer, invalid_json

import evaltoolkit as et
from evaltoolkit.cli import main
from evaltoolkit.errors import ConfigurationError

DATA = "data/demo_answers.jsonl"


@pytest.fixture(scope="module")
def two_scorer_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("runs")
    scorers = [et.create_textual_difference_scorer(), et.create_answer_similarity_scorer()]
    a = et.run_evals(DATA, scorers, progress=False)
    b = et.run_evals(
        DATA,
        [et.create_textual_difference_scorer(scale=2), et.create_answer_similarity_scorer()],
        progress=False,
    )
    return a.to_parquet(folder / "a.parquet"), b.to_parquet(folder / "b.parquet")


def test_runs_sharing_two_scorers_need_one_named(
    two_scorer_runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = two_scorer_runs

    status = main(["compare", str(first), str(second), "--n-bootstrap", "50"])

    err = capsys.readouterr().err
    assert status == 2
    assert "the runs share 2 scorers (textual-difference, answer-similarity)" in err
    assert "--scorer textual-difference" in err
    assert "scorer=" not in err
    with pytest.raises(ConfigurationError, match=r"name the one to compare with scorer="):
        et.compare_runs(first, second)


def test_the_compared_scorer_is_named_in_the_output(
    two_scorer_runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = two_scorer_runs

    status = main(
        [
            "compare",
            str(first),
            str(second),
            "--scorer",
            "textual-difference",
            "--n-bootstrap",
            "50",
        ]
    )

    out = capsys.readouterr().out
    assert status == 0
    assert "scorer: textual-difference" in out.splitlines()[2]


def test_hints_are_given_in_command_line_syntax(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = et.run_evals(DATA, {"before": et.create_textual_difference_scorer()}, progress=False)
    b = et.run_evals(DATA, {"after": et.create_textual_difference_scorer()}, progress=False)
    first, second = a.to_parquet(tmp_path / "a.parquet"), b.to_parquet(tmp_path / "b.parquet")

    assert main(["compare", str(first), str(second)]) == 2
    err = capsys.readouterr().err
    assert "--scorer before after" in err
    assert "scorer=" not in err

    assert (
        main(["compare", str(first), str(second), "--scorer", "before", "after", "--group", "nope"])
        == 2
    )
    err = capsys.readouterr().err
    assert "no 'nope' field" in err
    assert "group=None" not in err and "leave out --group" in err


def test_no_python_only_remedy_on_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(
        [
            "run",
            DATA,
            "--scorer",
            "answer-similarity",
            "--model",
            "openai/not-a-priced-model-xyz",
            "--api-base",
            "http://127.0.0.1:9/v1",
            "--max-cost",
            "1",
            "--no-cache",
        ]
    )

    err = capsys.readouterr().err
    assert status == 2
    assert "--max-cost needs the judge model's price" in err
    assert "register_model" not in err and "max_cost" not in err


def test_a_reply_that_never_validates_names_remedies_the_command_line_has(
    loopback_server: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-000")
    loopback_server.set_responder(lambda _: invalid_json())

    status = main(
        [
            "run",
            DATA,
            "--limit",
            "1",
            "--scorer",
            "answer-similarity",
            "--model",
            "openai/loopback",
            "--api-base",
            loopback_server.url,
            "--max-repairs",
            "0",
            "--max-tokens",
            "300",
            "--no-cache",
            "--no-progress",
        ]
    )

    printed = capsys.readouterr()
    assert status == 1
    assert loopback_server.requests_total == 1  # --max-repairs 0: no follow-up request
    assert loopback_server.requests[0]["max_tokens"] == 300
    assert "--max-repairs" in printed.out and "--max-tokens" in printed.out
