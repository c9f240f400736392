"""The sqlite judge cache: round trips, location, threads and several processes."""

from __future__ import annotations

import multiprocessing
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from evaltoolkit.judge._cache import CACHE_FILE_NAME, JudgeCache, default_cache_dir
from evaltoolkit.records import Usage


def test_put_then_get_round_trips(judge_cache_dir: Path) -> None:
    cache = JudgeCache(judge_cache_dir)
    cache.put(
        "key-1",
        model="openai/x",
        step="coverage",
        value={"verdicts": [1, "é"]},
        raw_reply='{"verdicts": [1, "é"]}',
        usage=Usage(12, 3),
        cost=0.25,
    )
    cache.put("key-2", model="openai/x", step="coverage", value={}, raw_reply=None)

    stored = cache.get("key-1")
    assert stored is not None
    assert stored.value == {"verdicts": [1, "é"]}
    assert stored.raw_reply == '{"verdicts": [1, "é"]}'
    assert stored.usage == Usage(12, 3)
    assert stored.cost == 0.25
    no_usage = cache.get("key-2")
    assert no_usage is not None
    assert (no_usage.usage, no_usage.cost) == (None, None)
    assert cache.get("missing") is None
    assert "key-1" in cache
    assert len(cache) == 2


def test_entries_persist_across_instances(judge_cache_dir: Path) -> None:
    JudgeCache(judge_cache_dir).put("k", model="m", step="s", value={"a": 1}, raw_reply="{}")

    reopened = JudgeCache(judge_cache_dir)

    stored = reopened.get("k")
    assert stored is not None
    assert stored.value == {"a": 1}
    assert reopened.path == judge_cache_dir / CACHE_FILE_NAME


def test_a_file_path_is_used_as_it_is(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "mine.sqlite3")

    assert cache.path == tmp_path / "mine.sqlite3"
    assert cache.path.exists()


def test_the_database_is_in_wal_mode(judge_cache_dir: Path) -> None:
    cache = JudgeCache(judge_cache_dir)

    with sqlite3.connect(cache.path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_clear_and_close(judge_cache_dir: Path) -> None:
    cache = JudgeCache(judge_cache_dir)
    cache.put("k", model="m", step="s", value={}, raw_reply=None)

    cache.clear()
    assert len(cache) == 0
    cache.close()
    with pytest.raises(RuntimeError, match="closed"):
        cache.get("k")


def test_default_directory_honours_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("EVALTOOLKIT_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "explicit"

    monkeypatch.delenv("EVALTOOLKIT_CACHE_DIR")
    assert default_cache_dir() == tmp_path / "xdg" / "evaltoolkit"

    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "evaltoolkit"


def test_threads_share_one_cache(judge_cache_dir: Path) -> None:
    cache = JudgeCache(judge_cache_dir)

    def work(worker: int) -> int:
        for index in range(50):
            key = f"{worker}-{index}"
            cache.put(key, model="m", step="s", value={"worker": worker, "i": index}, raw_reply="")
            stored = cache.get(key)
            assert stored is not None
            assert stored.value == {"worker": worker, "i": index}
        return worker

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sorted(pool.map(work, range(8))) == list(range(8))

    assert len(cache) == 400


def _write_entries(directory: str, writer: int, start: multiprocessing.synchronize.Event) -> None:
    cache = JudgeCache(directory)
    start.wait(timeout=30)
    for index in range(200):
        # Keys below 100 are written by both processes; the rest by one each.
        key = f"shared-{index}" if index < 100 else f"own-{writer}-{index}"
        cache.put(key, model="m", step="s", value={"index": index}, raw_reply=str(writer))
        assert cache.get(key) is not None


def test_two_processes_write_at_once(judge_cache_dir: Path) -> None:
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    writers = [
        context.Process(target=_write_entries, args=(str(judge_cache_dir), writer, start))
        for writer in (1, 2)
    ]
    for process in writers:
        process.start()
    start.set()
    for process in writers:
        process.join(timeout=60)

    assert [process.exitcode for process in writers] == [0, 0]
    cache = JudgeCache(judge_cache_dir)
    assert len(cache) == 100 + 2 * 100
    for index in range(100):
        stored = cache.get(f"shared-{index}")
        assert stored is not None
        assert stored.value == {"index": index}
        assert stored.raw_reply in {"1", "2"}
