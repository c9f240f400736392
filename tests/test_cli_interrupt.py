"""Ctrl-C on the command line: prompt, one line, nothing half-written, exit status 130."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _support import evaltoolkit_command
from judge_script import script_steps
from loopback_server import LoopbackServer

from evaltoolkit.cli import main
from evaltoolkit.judge._cache import JudgeCache

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")

REPO = Path(__file__).resolve().parent.parent
ITEMS = 24
# A generous bound that only guards against a hang; the measured figure is well under 2 s.
STOP_BOUND_S = 10.0
INTERRUPTED_LINE = re.compile(
    r"evaltoolkit: interrupted after (\d+) of (\d+) items; "
    r"rerun the same command to resume from the cache"
)
# The offline judge with --no-cache keeps nothing to resume from, and says so.
NOTHING_CACHED_LINE = re.compile(
    r"evaltoolkit: interrupted after (\d+) of (\d+) items; nothing was cached \(no model "
    r"judge, or --no-cache\): rerun the same command to score again"
)


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [environment.get("PYTHONPATH")])]
    )
    environment["OPENAI_API_KEY"] = "sk-loopback-test"
    environment["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return environment


def _script_answers(server: LoopbackServer) -> None:
    script_steps(
        server,
        {
            "extract": {"output_units": ["red"], "ground_truth_units": ["red"]},
            "analyze": {
                "matches": [
                    {
                        "ground_truth_unit": "red",
                        "output_unit": "red",
                        "match_type": "exact",
                        "explanation": "same",
                    }
                ],
                "contradictions": [],
                "extra_info": [],
            },
            "reason": {"reason": "Scripted reason."},
        },
    )


def _command(data: Path, out: Path, cache: Path, server: LoopbackServer) -> list[str]:
    return evaltoolkit_command(
        "run",
        str(data),
        "--scorer",
        "answer-similarity",
        "--model",
        "openai/loopback",
        "--api-base",
        server.url,
        "--cache-dir",
        str(cache),
        "--concurrency",
        "2",
        "--no-progress",
        "--out",
        str(out),
    )


def _wait_for(condition: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def test_ctrl_c_stops_promptly_with_one_line_and_resumes_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "answers.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"q{n}",
                    "input": f"colour {n}?",
                    "output": f"red {n}",
                    "ground_truth": "red",
                }
            )
            + "\n"
            for n in range(ITEMS)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "scores.csv"
    out.write_text("previous results\n", encoding="utf-8")
    cache = tmp_path / "cache"
    with LoopbackServer(latency_s=0.2) as server:
        _script_answers(server)
        process = subprocess.Popen(
            _command(data, out, cache, server),
            env=_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            # Three judge calls per item: wait until a few items are through.
            _wait_for(lambda: server.requests_total >= 12, timeout=60)
            sent = time.monotonic()
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
            stopped_after = time.monotonic() - sent
        finally:
            if process.poll() is None:
                process.kill()
        requests_before = server.requests_total

        assert process.returncode == 130, stderr
        assert stopped_after < STOP_BOUND_S
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1, stderr
        match = INTERRUPTED_LINE.fullmatch(lines[0])
        assert match is not None, stderr
        done, total = int(match.group(1)), int(match.group(2))
        assert total == ITEMS
        assert 1 <= done < ITEMS
        assert "Traceback" not in stderr
        assert out.read_text(encoding="utf-8") == "previous results\n"
        assert sorted(path.name for path in tmp_path.iterdir()) == [
            "answers.jsonl",
            "cache",
            "scores.csv",
        ]
        completed_calls = len(JudgeCache(cache, max_bytes=None))
        assert completed_calls > 0

        # The same command again: the replies already cached are not asked for again. It runs
        # in this process (a second child would import litellm again, seconds of CPU); the
        # cache it reads was written by the interrupted child.
        server.latency_s = 0.0
        monkeypatch.setenv("OPENAI_API_KEY", _environment()["OPENAI_API_KEY"])
        status = main(_command(data, out, cache, server)[3:])
        assert status == 0, capsys.readouterr().err
        asked_again = server.requests_total - requests_before
        # Every request of the rerun was a reply missing from the cache, and it is there now.
        assert asked_again == len(JudgeCache(cache, max_bytes=None)) - completed_calls
    assert "previous results" not in out.read_text(encoding="utf-8")


def _long_document(words: int) -> str:
    vocabulary = [
        "the", "council", "voted", "to", "replace", "bridge", "cost", "million", "dollars",
        "open", "engineers", "found", "corrosion", "supports", "new", "design", "adds", "lane",
        "ferry", "shop", "owners", "schedule",
    ]  # fmt: skip
    sentences = [
        " ".join(vocabulary[(n * 7 + k * 3) % len(vocabulary)] for k in range(12)).capitalize()
        for n in range(words // 12)
    ]
    return ". ".join(sentences) + "."


def test_ctrl_c_during_a_long_offline_step_stops_promptly(tmp_path: Path) -> None:
    data = tmp_path / "long.jsonl"
    # One item that takes over a second (so that the progress bar, which waits half a
    # second, shows it done), then one whose offline judge step runs for several seconds (1.7
    # million characters of source, 190,000 of summary, under the offline judge's limits):
    # Ctrl-C arrives while it runs.
    short, long = _long_document(150_000), _long_document(250_000)
    data.write_text(
        json.dumps({"input": short, "output": short[:3000]})
        + "\n"
        + json.dumps({"input": long, "output": long[:190_000]})
        + "\n"
    )
    out = tmp_path / "scores.parquet"
    process = subprocess.Popen(
        evaltoolkit_command(
            "run",
            str(data),
            "--scorer",
            "summarization",
            "--no-cache",
            "--concurrency",
            "1",
            "--out",
            str(out),
        ),
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # The progress bar first shows when the first item is done: the long one has begun.
        assert process.stderr is not None
        seen = b""
        while b"scoring" not in seen:
            chunk = process.stderr.read1(4096)  # type: ignore[attr-defined]
            assert chunk, "the run ended before it could be interrupted"
            seen += chunk
        time.sleep(0.3)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=120)
        stopped_after = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
    stderr = (seen + rest).decode()
    assert process.returncode == 130, stderr
    assert stopped_after < STOP_BOUND_S
    assert "Traceback" not in stderr
    last = stderr.replace("\r", "\n").splitlines()[-1]
    match = NOTHING_CACHED_LINE.fullmatch(last)
    assert match is not None, stderr
    assert match.groups() == ("1", "2")
    assert not out.exists()
    assert [path.name for path in tmp_path.iterdir()] == ["long.jsonl"]
