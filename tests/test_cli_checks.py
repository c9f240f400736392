"""The command line checks flags, columns and output paths before scoring, and exits honestly."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import evaltoolkit
from evaltoolkit.cli import main

SCORER = ["--scorer", "textual-difference", "--no-progress"]


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    rows = [
        {"id": f"q{n}", "input": f"question {n}", "output": "Paris", "ground_truth": "Paris"}
        for n in range(3)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if anything is scored: every check must come first."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scored before the checks")

    monkeypatch.setattr("evaltoolkit.runner.run_evals", refuse)
    monkeypatch.setattr("evaltoolkit.meta.meta_evaluate", refuse)


def _run(*argv: str) -> int:
    return main([*argv])


# -- the output path ------------------------------------------------------------------------


@pytest.mark.usefixtures("no_scoring")
def test_out_equal_to_the_input_is_refused_and_the_input_is_untouched(
    answers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = answers.read_bytes()
    link = answers.with_name("link.jsonl")
    link.symlink_to(answers)
    hard = answers.with_name("hard.jsonl")
    os.link(answers, hard)
    dotted = answers.parent / "sub" / ".." / answers.name
    for out in (answers, link, hard, dotted):
        assert _run("run", str(answers), *SCORER, "--out", str(out)) == 2
        assert "is the input file" in capsys.readouterr().err
    assert answers.read_bytes() == before


@pytest.mark.usefixtures("no_scoring")
@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("results.xlsx", "--out must end in one of .parquet, .csv, .jsonl"),
        ("results", "--out must end in one of"),
        ("a_file/results.csv", "is a file, not a folder"),
    ],
)
def test_a_bad_output_path_fails_before_scoring(
    answers: Path, capsys: pytest.CaptureFixture[str], out: str, message: str
) -> None:
    (answers.parent / "a_file").write_text("not a folder", encoding="utf-8")
    status = _run("run", str(answers), *SCORER, "--out", str(answers.parent / out))
    assert status == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


@pytest.mark.usefixtures("no_scoring")
@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_an_unwritable_folder_fails_before_scoring(
    answers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("run", str(answers), *SCORER, "--out", "/proc/results.csv") == 2
    assert "cannot write '/proc/results.csv'" in capsys.readouterr().err


def test_the_output_folder_is_created(answers: Path) -> None:
    out = answers.parent / "new" / "deeper" / "scores.csv"
    assert _run("run", str(answers), *SCORER, "--out", str(out)) == 0
    assert len(pd.read_csv(out)) == 3
    assert [p.name for p in out.parent.iterdir()] == ["scores.csv"]  # no temporary left


@pytest.mark.usefixtures("no_scoring")
def test_an_out_ending_in_a_slash_names_a_folder_and_is_refused(
    answers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = f"{answers.parent}{os.sep}outdir.csv{os.sep}"
    assert _run("run", str(answers), *SCORER, "--out", out) == 2
    message = capsys.readouterr().err
    assert "ends in a slash, so it names a folder; name a file, such as" in message
    assert f"such as {str(answers.parent / 'outdir.csv')!r}" in message
    assert not (answers.parent / "outdir.csv").exists()


@pytest.mark.usefixtures("no_scoring")
def test_no_cache_with_a_cache_dir_is_refused(
    answers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = answers.parent / "cache"
    assert _run("run", str(answers), *SCORER, "--no-cache", "--cache-dir", str(cache)) == 2
    assert "--no-cache and --cache-dir contradict each other" in capsys.readouterr().err


def _score_then(monkeypatch: pytest.MonkeyPatch, after: Any) -> None:
    """Run ``after`` once the scores are in, before they are written."""
    import evaltoolkit.cli._run as cli  # the run command, which calls _score

    score = cli._score

    def score_and_then(*args: Any, **kwargs: Any) -> Any:
        result = score(*args, **kwargs)
        after()
        return result

    monkeypatch.setattr(cli, "_score", score_and_then)


def test_the_output_folder_deleted_during_the_run_is_made_again(
    answers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = answers.parent / "results" / "scores.jsonl"
    _score_then(monkeypatch, lambda: out.parent.rmdir())
    assert _run("run", str(answers), *SCORER, "--out", str(out)) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3


def test_scores_that_cannot_go_to_out_are_written_beside_the_input(
    answers: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = answers.parent / "results" / "scores.csv"

    def folder_becomes_a_file() -> None:
        out.parent.rmdir()
        out.parent.write_text("in the way", encoding="utf-8")

    _score_then(monkeypatch, folder_becomes_a_file)
    assert _run("run", str(answers), *SCORER, "--out", str(out)) == 2
    [saved] = answers.parent.glob("scores-*.csv")
    assert len(pd.read_csv(saved)) == 3
    assert f"wrote the results to {str(saved)!r} instead" in capsys.readouterr().err


def test_an_infinite_label_is_written_to_json_lines_and_read_back(tmp_path: Path) -> None:
    data = tmp_path / "labelled.jsonl"
    data.write_text(
        '{"id": "a", "input": "q", "output": "x", "ground_truth": "x", "label": Infinity}\n'
        '{"id": "b", "input": "q", "output": "y", "ground_truth": "x", "label": 2}\n',
        encoding="utf-8",
    )
    out = tmp_path / "results.jsonl"
    assert _run("run", str(data), *SCORER, "--out", str(out)) == 0
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["label"] == "Infinity"
    again = evaltoolkit.read_results(out)
    assert [item.fields["label"] for item in again] == [float("inf"), 2]


@pytest.mark.usefixtures("no_scoring")
def test_meta_eval_refuses_unknown_suffixes_up_front(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled = tmp_path / "pairs.csv"
    labelled.write_text("sentence1,sentence2,score\na,a,5\nb,c,1\n", encoding="utf-8")
    assert (
        _run(
            "meta-eval",
            str(labelled),
            "--task",
            "textual-difference",
            "--label",
            "score",
            "--out",
            str(tmp_path / "agreement.xlsx"),
        )
        == 2
    )
    assert "--out must end in one of .csv, .parquet, .jsonl" in capsys.readouterr().err
    assert not (tmp_path / "agreement.xlsx").exists()
    assert (
        _run(
            "meta-eval",
            str(labelled),
            "--task",
            "textual-difference",
            "--label",
            "score",
            "--plot",
            str(tmp_path / "figure.docx"),
        )
        == 2
    )
    assert "--plot must end in one of" in capsys.readouterr().err
    assert (
        _run(
            "meta-eval",
            str(labelled),
            "--task",
            "textual-difference",
            "--label",
            "score",
            "--out",
            str(labelled),
        )
        == 2
    )
    assert "is the input file" in capsys.readouterr().err


# -- flags and columns ----------------------------------------------------------------------


@pytest.mark.usefixtures("no_scoring")
@pytest.mark.parametrize("limit", ["-1", "0"])
def test_a_limit_below_one_is_refused(
    answers: Path, capsys: pytest.CaptureFixture[str], limit: str
) -> None:
    assert _run("run", str(answers), *SCORER, "--limit", limit) == 2
    assert "--limit must be 1 or more" in capsys.readouterr().err


@pytest.mark.usefixtures("no_scoring")
@pytest.mark.parametrize("flag", ["--input-col", "--output-col", "--ground-truth-col", "--id-col"])
def test_an_absent_column_is_named_once_up_front(
    answers: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    assert _run("run", str(answers), *SCORER, flag, "articel") == 2
    error = capsys.readouterr().err
    assert f"no column 'articel' (from {flag})" in error
    assert "its columns are: id, input, output, ground_truth" in error


@pytest.mark.usefixtures("no_scoring")
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no items in"),
        (b"\n\n   \n", "no items in"),
        (b'[{"input": "a", "output": "b"}]', "holds one JSON array"),
    ],
)
def test_files_without_items_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(content)
    out = tmp_path / "out.csv"
    assert _run("run", str(path), *SCORER, "--out", str(out)) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


# -- exit status and what is printed --------------------------------------------------------


def test_every_item_failing_exits_one_but_keeps_the_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"input": "a", "output": null}\n{"input": "b", "output": null}\n')
    out = tmp_path / "out.csv"
    assert _run("run", str(path), *SCORER, "--out", str(out)) == 1
    captured = capsys.readouterr()
    [line] = [line for line in captured.err.splitlines() if "failed on all" in line]
    assert "textual-difference failed on all 2 items; first error:" in line
    assert pd.read_csv(out)["error"].notna().all()


def test_some_items_failing_exits_zero_and_says_how_many(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"input": "a", "output": "a"}\n{"input": "b", "output": null}\n')
    assert _run("run", str(path), *SCORER) == 0
    assert "1 of 2 items failed (see the error column)" in capsys.readouterr().out


def test_numbers_in_a_csv_are_scored_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "zip.csv"
    path.write_text("id,input,output,ground_truth\n1,zip?,02134,02134\n2,2+2,4,4\n")
    out = tmp_path / "out.csv"
    assert _run("run", str(path), *SCORER, "--out", str(out)) == 0
    exported = pd.read_csv(out, dtype=str)
    assert exported["output"].tolist() == ["02134", "4"]
    assert exported["score"].astype(float).tolist() == [1.0, 1.0]


def test_duplicate_ids_are_one_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        '{"id": 1, "input": "a", "output": "a"}\n{"id": "1", "input": "b", "output": "b"}\n'
    )
    out = tmp_path / "out.csv"
    assert _run("run", str(path), *SCORER, "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert err.count("evaltoolkit: warning: 1 item shares an id") == 1
    assert pd.read_csv(out)["item_index"].tolist() == [0, 1]


def test_constant_labels_explain_the_nan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled = tmp_path / "pairs.csv"
    labelled.write_text(
        "sentence1,sentence2,correct\na cat,a cat,true\na dog,a log,true\nsun,moon,true\n"
    )
    status = _run(
        "meta-eval",
        str(labelled),
        "--task",
        "textual-difference",
        "--label",
        "correct",
        "--bootstrap",
        "0",
        "--no-progress",
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "auroc" in printed and "nan" in printed
    assert "all labels are True: AUROC needs both classes" in printed


def test_meta_eval_keeps_numeric_text_as_text_and_labels_as_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled = tmp_path / "pairs.csv"
    labelled.write_text("sentence1,sentence2,score\n007,007,5\n12,21,1\n0042,0042,4.5\n")
    out = tmp_path / "agreement.csv"
    status = _run(
        "meta-eval",
        str(labelled),
        "--task",
        "textual-difference",
        "--label",
        "score",
        "--bootstrap",
        "0",
        "--no-progress",
        "--out",
        str(out),
    )
    assert status == 0
    assert "3 labelled items scored, 0 failed" in capsys.readouterr().out
    assert "spearman" in set(pd.read_csv(out)["metric"])


# -- help and version -----------------------------------------------------------------------


def test_version() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "evaltoolkit", "--version"], capture_output=True, text=True
    )
    assert completed.returncode == 0
    assert completed.stdout.strip() == f"evaltoolkit {evaltoolkit.__version__}"


def test_run_help_names_the_fields_formats_and_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for field in ("id", "input", "output", "ground_truth", "source"):
        assert f"\n  {field} " in text
    for suffix in (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet"):
        assert suffix in text
    flowing = " ".join(text.split())
    assert "(default: input)" in flowing and "(default: 32)" in flowing
    assert "(default: ground_truth or groundTruth)" in flowing
    assert "130 interrupted" in flowing  # the exit statuses are documented


def test_a_missing_input_is_reported_before_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.jsonl"
    assert _run("run", str(missing), *SCORER, "--out", str(missing)) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_folder_as_the_input_is_named_as_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "items"
    folder.mkdir()

    assert _run("run", str(folder), *SCORER) == 2
    assert f"'{folder}' is a folder: give the path of a data file" in capsys.readouterr().err


def test_a_scorer_named_twice_is_a_usage_error_in_cli_terms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"input": "a", "output": "a"}\n')

    assert _run("run", str(items), *SCORER, "--scorer", "textual-difference") == 2
    error = capsys.readouterr().err
    assert "--scorer textual-difference is given more than once" in error
    assert "dict" not in error  # the library's advice does not fit a command line


# -- Ctrl-C: what the interrupted line promises ---------------------------------------------


def _interrupted_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *flags: str
) -> str:
    def interrupt(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr("evaltoolkit.runner.run_evals", interrupt)
    status = main(["run", "data/demo_answers.jsonl", "--no-progress", *flags])
    assert status == 130
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "flags",
    [
        ("--scorer", "answer-similarity", "--model", "openai/x", "--no-cache"),
        ("--scorer", "answer-similarity"),  # the offline judge keeps no cache
        ("--scorer", "textual-difference", "--model", "openai/x"),  # no judge at all
    ],
)
def test_ctrl_c_without_a_judge_cache_does_not_promise_to_resume(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]
) -> None:
    err = _interrupted_run(monkeypatch, capsys, *flags)

    assert "interrupted after 0 of 16 items" in err
    assert "resume" not in err
    assert "nothing was cached" in err and "rerun the same command to score again" in err


def test_ctrl_c_with_a_judge_cache_says_it_resumes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    err = _interrupted_run(
        monkeypatch,
        capsys,
        "--scorer",
        "answer-similarity",
        "--model",
        "openai/x",
        "--cache-dir",
        str(tmp_path / "cache"),
    )

    assert "rerun the same command to resume from the cache" in err


def test_a_scheduler_that_refuses_connections_is_reported_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed")
    import distributed

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    class NoClient:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("Dask's Client waits 30 s on a closed port; never ask it")

    monkeypatch.setattr(distributed, "Client", NoClient)
    status = main(
        [
            "run",
            "data/demo_answers.jsonl",
            "--scorer",
            "textual-difference",
            "--scheduler",
            f"tcp://127.0.0.1:{port}",
        ]
    )

    err = capsys.readouterr().err
    assert status == 2
    assert f"cannot reach the Dask scheduler at 'tcp://127.0.0.1:{port}'" in err
    assert "refused" in err.lower()
    assert "pass a Client" not in err
