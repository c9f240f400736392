"""A damaged judge cache file is moved aside and replaced, never fatal, never silent."""

from __future__ import annotations

import os
import sqlite3
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from judge_script import script_steps
from loopback_server import LoopbackServer

from evaltoolkit import create_answer_similarity_scorer, run_evals
from evaltoolkit.cli import main
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.judge import _cache
from evaltoolkit.judge._cache import CACHE_FILE_NAME, JudgeCache
from evaltoolkit.judge._litellm import LiteLLMJudge
from evaltoolkit.judge._shards import ShardedJudgeCache, merge_cache_shards, shard_dir

REPLY = {"verdicts": ["x" * 1500]}
ANSWERS = {
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
}


def _filled(folder: Path, count: int = 40) -> Path:
    """A cache of ``count`` entries, checkpointed into its file; the file's path."""
    cache = JudgeCache(folder)
    for n in range(count):
        cache.put(f"k{n}", model="m", step="s", value=REPLY, raw_reply="r" * 500)
    cache.vacuum()  # also folds the write-ahead log into the file
    cache.close()
    return folder / CACHE_FILE_NAME


def _overwrite(path: Path) -> bytes:
    garbage = os.urandom(path.stat().st_size)
    path.write_bytes(garbage)
    return garbage


def _garble_middle(path: Path) -> None:
    """8 KB of garbage in the middle of the file, its header left intact."""
    data = bytearray(path.read_bytes())
    middle = max(4096, len(data) // 2 - 4096)
    data[middle : middle + 8192] = os.urandom(8192)
    path.write_bytes(bytes(data))


def _damage_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "was damaged" in str(w.message)]


@pytest.mark.parametrize("damage", ["overwritten", "garbage in the middle"])
def test_opening_a_damaged_file_moves_it_aside_and_starts_afresh(
    judge_cache_dir: Path, damage: str
) -> None:
    path = _filled(judge_cache_dir)
    if damage == "overwritten":
        _overwrite(path)
    else:
        _garble_middle(path)
    damaged_bytes = path.read_bytes()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = JudgeCache(judge_cache_dir)
        cache.put("new", model="m", step="s", value={"a": 1}, raw_reply=None)
        hit = cache.get("new")

    assert hit is not None and hit.value == {"a": 1}
    assert len(cache) == 1
    said = _damage_warnings(caught)
    assert len(said) == 1, said
    [copy] = cache.damaged_copies()
    assert copy.name.startswith(f"{CACHE_FILE_NAME}.damaged-20")
    assert copy.read_bytes() == damaged_bytes  # kept as it was, not deleted
    assert str(copy) in said[0] and str(path) in said[0]
    cache.close()


def test_damage_found_while_running_warns_once_and_later_calls_are_cached(
    judge_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file over the size checked on opening: the first read that meets the damage repairs.
    monkeypatch.setattr(_cache, "_CHECK_ON_OPEN_MAX_BYTES", 0)
    path = _filled(judge_cache_dir)
    _garble_middle(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = JudgeCache(judge_cache_dir, max_bytes=None)
        stored_after_the_repair = []
        for n in range(40):  # what a run of 16 items does: read, then write, each call
            if cache.get(f"k{n}") is None:  # entries on sound pages still answer
                cache.put(f"k{n}", model="m", step="s", value={"n": n}, raw_reply=None)
                if caught:
                    stored_after_the_repair.append(f"k{n}")

    assert len(_damage_warnings(caught)) == 1
    assert len(cache.damaged_copies()) == 1
    assert len(stored_after_the_repair) > 10
    assert all(key in cache for key in stored_after_the_repair)  # the fresh file works
    cache.close()


def test_the_integrity_check_on_opening_is_done_once_per_unchanged_file(
    judge_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[str] = []
    real = _cache._integrity_problem

    def counting(connection: sqlite3.Connection, pragma: str) -> str | None:
        checks.append(pragma)
        return real(connection, pragma)

    monkeypatch.setattr(_cache, "_integrity_problem", counting)
    _filled(judge_cache_dir, count=3)
    checks.clear()
    JudgeCache(judge_cache_dir).close()
    JudgeCache(judge_cache_dir).close()
    assert checks == ["quick_check"]


def test_check_reports_a_sound_file_and_repairs_a_damaged_one(judge_cache_dir: Path) -> None:
    path = _filled(judge_cache_dir)
    cache = JudgeCache(judge_cache_dir)
    assert cache.check() is None
    cache.close()

    _garble_middle(path)
    # Opened without the check on opening, so that check() itself meets the damage.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_cache, "_CHECK_ON_OPEN_MAX_BYTES", 0)
        cache = JudgeCache(judge_cache_dir, max_bytes=None)
    repair = cache.check()
    assert repair is not None
    assert repair.path == path and repair.moved_to.exists()
    assert repair.problem and str(repair.moved_to) in str(repair)
    assert len(cache) == 0
    cache.close()


def test_the_python_api_names_python_options_and_the_command_line_names_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    with pytest.raises(ConfigurationError, match=r"cache=<a writable directory> or cache=False"):
        JudgeCache(blocked / "cache")
    unopenable = tmp_path / "folder.sqlite3"
    unopenable.mkdir()
    with pytest.raises(ConfigurationError, match=r"cache=<another directory> or cache=False"):
        JudgeCache(unopenable)

    for location in (blocked / "cache", unopenable):
        status = main(
            [
                "run",
                "data/demo_answers.jsonl",
                "--scorer",
                "answer-similarity",
                "--model",
                "openai/loopback",
                "--api-base",
                "http://127.0.0.1:9/v1",
                "--cache-dir",
                str(location),
                "--no-progress",
            ]
        )
        error = capsys.readouterr().err
        assert status == 2
        assert "--cache-dir" in error and "--no-cache" in error
        assert "cache=" not in error


# -- the command ----------------------------------------------------------------------------


def test_cache_commands_work_on_an_overwritten_file(
    judge_cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _filled(judge_cache_dir)
    _overwrite(path)

    assert main(["cache", "info", "--cache", str(judge_cache_dir)]) == 0
    captured = capsys.readouterr()
    assert "entries: 0" in captured.out
    assert "quick check: damaged: the judge cache" in captured.out
    assert "damaged copies moved aside: 1" in captured.out
    assert captured.out.count("was damaged") == 1 and not captured.err
    assert main(["cache", "info", "--cache", str(judge_cache_dir)]) == 0
    assert "quick check: ok" in capsys.readouterr().out

    assert main(["cache", "clear", "--cache", str(judge_cache_dir), "--yes"]) == 0
    printed = capsys.readouterr().out
    assert "removed the damaged copy" in printed
    assert not list(judge_cache_dir.glob("*.damaged-*"))


@pytest.mark.parametrize("command", ["clear", "prune"])
def test_clear_and_prune_work_on_a_file_with_garbage_in_the_middle(
    judge_cache_dir: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    _garble_middle(_filled(judge_cache_dir))
    extra = ["--yes"] if command == "clear" else ["--older-than", "1d"]
    assert main(["cache", command, "--cache", str(judge_cache_dir), *extra]) == 0
    captured = capsys.readouterr()
    assert "removed " in captured.out
    assert captured.err.count("was damaged") == 1
    assert len(JudgeCache(judge_cache_dir).damaged_copies()) == (0 if command == "clear" else 1)


def test_cache_check_says_ok_or_moves_the_damaged_file_aside(
    judge_cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _filled(judge_cache_dir)
    assert main(["cache", "check", "--cache", str(judge_cache_dir)]) == 0
    assert "ok (40 entries)" in capsys.readouterr().out

    _garble_middle(path)
    assert main(["cache", "check", "--cache", str(judge_cache_dir)]) == 1
    printed = capsys.readouterr().out
    assert "was damaged" in printed and "moved it to" in printed
    assert len(JudgeCache(judge_cache_dir).damaged_copies()) == 1
    assert main(["cache", "check", "--cache", str(judge_cache_dir)]) == 0


def test_clear_in_a_script_needs_yes(
    judge_cache_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _filled(judge_cache_dir, count=3)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    assert main(["cache", "clear", "--cache", str(judge_cache_dir)]) == 2
    assert "pass --yes" in capsys.readouterr().err
    assert len(JudgeCache(judge_cache_dir)) == 3
    assert main(["cache", "clear", "--cache", str(judge_cache_dir), "--yes"]) == 0
    assert "removed 3 entries" in capsys.readouterr().out
    assert len(JudgeCache(judge_cache_dir)) == 0
    with pytest.raises(SystemExit):
        main(["cache", "clear", "--help"])
    assert "exits with status 2 unless --yes" in " ".join(capsys.readouterr().out.split())


# -- Dask shards ------------------------------------------------------------------------------


def test_a_damaged_worker_shard_is_moved_aside_and_merging_skips_nothing_else(
    judge_cache_dir: Path,
) -> None:
    for worker in ("w0", "w1"):
        shard = ShardedJudgeCache(judge_cache_dir, shard=worker)
        shard.put(f"from-{worker}", model="m", step="s", value={"w": worker}, raw_reply=None)
        shard.close()
    damaged = shard_dir(judge_cache_dir) / "w1.sqlite3"
    _overwrite(damaged)

    reader = ShardedJudgeCache(judge_cache_dir, shard="w0")
    assert reader.get("from-w1") is None  # read-only: another worker's file is left alone
    reader.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert merge_cache_shards(judge_cache_dir) == 1
    assert len(_damage_warnings(caught)) == 1
    assert JudgeCache(judge_cache_dir).get("from-w0") is not None
    kept = list(shard_dir(judge_cache_dir).glob("w1.sqlite3.damaged-*"))
    assert len(kept) == 1


def test_a_run_on_a_damaged_cache_warns_once_and_its_rerun_is_free(
    judge_cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    make_judge: Callable[..., LiteLLMJudge],
    loopback_server: LoopbackServer,
) -> None:
    monkeypatch.setattr(_cache, "_CHECK_ON_OPEN_MAX_BYTES", 0, raising=False)  # met running
    script_steps(loopback_server, ANSWERS)
    items = [{"input": f"q{n}", "output": "red", "ground_truth": "red"} for n in range(8)]

    def run() -> None:
        judge = make_judge(cache=judge_cache_dir)
        scorer = create_answer_similarity_scorer(judge)
        assert run_evals(items, [scorer], progress=False).scores["answer-similarity"].failed == 0
        judge.cache.close()

    run()
    _garble_middle(_filled(judge_cache_dir, count=0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    assert len(_damage_warnings(caught)) == 1
    assert not [r for r in caplog.records if "judge cache" in r.getMessage()]
    paid = len(loopback_server.requests)
    run()
    assert len(loopback_server.requests) == paid  # the fresh cache holds every call
