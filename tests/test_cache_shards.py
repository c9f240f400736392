"""The judge cache across processes and hosts: pickling, and one shard per Dask worker."""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from evaltoolkit.judge import _shards as shards
from evaltoolkit.judge import merge_cache_shards
from evaltoolkit.judge._cache import JudgeCache, open_cache
from evaltoolkit.judge._litellm import LiteLLMJudge
from evaltoolkit.judge._shards import ShardedJudgeCache, cache_shard, shard_dir


def _put(cache: JudgeCache, key: str, value: int = 1) -> None:
    cache.put(key, model="m", step="s", value={"v": value}, raw_reply=f'{{"v": {value}}}')


def _rows(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as connection:
        return sorted(connection.execute("SELECT key, value FROM judge_calls").fetchall())


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_pickled_cache_carries_its_path_and_bound_only(judge_cache_dir: Path) -> None:
    cache = JudgeCache(judge_cache_dir, max_bytes=5_000_000)
    _put(cache, "k")

    blob = pickle.dumps(cache)
    cache.close()  # a pickled copy does not depend on the original's connections
    copy = pickle.loads(blob)

    assert type(copy) is JudgeCache
    assert copy.path == cache.path
    assert copy.max_bytes == 5_000_000
    assert str(cache.path).encode() in blob
    assert b"sqlite3" not in blob.replace(str(cache.path).encode(), b"")
    hit = copy.get("k")
    assert hit is not None and hit.value == {"v": 1}


def test_a_judge_with_a_cache_object_pickles_and_reads_it(judge_cache_dir: Path) -> None:
    cache = JudgeCache(judge_cache_dir)
    judge = LiteLLMJudge("openai/x", cache=cache)

    copy = pickle.loads(pickle.dumps(judge))

    assert copy.cache is not None and copy.cache is not cache
    assert copy.cache.path == cache.path


def test_on_a_worker_an_unpickled_cache_writes_its_own_shard(judge_cache_dir: Path) -> None:
    main = JudgeCache(judge_cache_dir)
    _put(main, "before")
    main_rows = _rows(main.path)

    with cache_shard("host-a-0"):
        on_worker = pickle.loads(pickle.dumps(main))
        by_path = open_cache(judge_cache_dir)
    _put(on_worker, "written-by-worker")

    assert isinstance(on_worker, ShardedJudgeCache)
    assert isinstance(by_path, ShardedJudgeCache)
    assert on_worker.max_bytes == main.max_bytes
    assert on_worker.path == shard_dir(judge_cache_dir) / "host-a-0.sqlite3"
    assert on_worker.main_path == main.path
    assert _rows(main.path) == main_rows  # the shared file is never written by a worker
    assert [key for key, _ in _rows(on_worker.path)] == ["written-by-worker"]
    hit = on_worker.get("before")  # ... but it is read
    assert hit is not None and hit.value == {"v": 1}
    # Outside the block, caches open the shared file again.
    assert type(open_cache(judge_cache_dir)) is JudgeCache


def test_shards_read_each_other_and_find_shards_created_later(
    judge_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shards, "_RESCAN_S", 0.0)
    first = ShardedJudgeCache(judge_cache_dir, shard="w0")
    assert first.get("missing") is None  # scans the folder while w1 does not exist yet

    second = ShardedJudgeCache(judge_cache_dir, shard="w1")
    _put(second, "from-w1", 7)
    _put(first, "from-w0", 3)

    from_second = first.get("from-w1")
    from_first = second.get("from-w0")
    assert from_second is not None and from_second.value == {"v": 7}
    assert from_first is not None and from_first.value == {"v": 3}
    assert "from-w1" in first
    assert len(first) == 1  # its own shard only


def test_shards_use_a_rollback_journal_and_readers_leave_other_files_alone(
    judge_cache_dir: Path,
) -> None:
    writer = ShardedJudgeCache(judge_cache_dir, shard="writer")
    _put(writer, "k")
    writer.close()
    with sqlite3.connect(writer.path) as connection:
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
    before = _digest(writer.path)

    reader = ShardedJudgeCache(judge_cache_dir, shard="reader")
    for _ in range(3):
        assert reader.get("k") is not None
    reader.close()

    assert mode == "delete"  # WAL needs shared memory, which hosts cannot share over NFS
    assert _digest(writer.path) == before
    leftovers = {path.name for path in shard_dir(judge_cache_dir).iterdir()}
    assert leftovers == {"writer.sqlite3", "reader.sqlite3"}


def test_an_unreadable_shard_is_a_miss_not_an_error(judge_cache_dir: Path) -> None:
    folder = shard_dir(judge_cache_dir)
    folder.mkdir(parents=True)
    (folder / "broken.sqlite3").write_bytes(b"this is not a database" * 100)
    cache = ShardedJudgeCache(judge_cache_dir, shard="ok")

    assert cache.get("k") is None
    _put(cache, "k")
    assert cache.get("k") is not None


# A worker that dies in the middle of a write: with the page cache this small, the inserts
# reach the file before the commit, and the process exits with its journal still hot.
_DIE_MID_WRITE = """
import os, sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA cache_size = 1")
connection.execute("BEGIN")
connection.executemany(
    "INSERT INTO judge_calls (key, model, step, value, created_at) VALUES (?, 'm', 's', ?, 0)",
    [(f"never-committed-{n}", "x" * 1000) for n in range(2000)],
)
os._exit(1)
"""


def test_a_shard_left_with_a_hot_journal_is_read_from_a_rolled_back_copy(
    judge_cache_dir: Path,
) -> None:
    dead = ShardedJudgeCache(judge_cache_dir, shard="killed")
    for n in range(20):
        _put(dead, f"stored-{n}", n)
    dead.close()
    subprocess.run([sys.executable, "-c", _DIE_MID_WRITE, str(dead.path)], check=False)
    journal = dead.path.with_name(dead.path.name + "-journal")
    assert journal.exists()  # hot: read-only connections now refuse the file
    before = (_digest(dead.path), _digest(journal))
    reader = ShardedJudgeCache(judge_cache_dir, shard="survivor")

    hits = [reader.get(f"stored-{n}") for n in range(20)]
    uncommitted = reader.get("never-committed-1")
    reader.close()

    assert [hit.value if hit else None for hit in hits] == [{"v": n} for n in range(20)]
    assert uncommitted is None  # the interrupted write is rolled back, in the copy
    assert (_digest(dead.path), _digest(journal)) == before  # the shard itself is untouched
    restarted = ShardedJudgeCache(judge_cache_dir, shard="killed")  # its owner, back
    again = restarted.get("stored-3")
    assert again is not None and again.value == {"v": 3}
    assert not journal.exists()  # the owner rolled it back


def test_shard_names_are_made_safe_for_file_names(judge_cache_dir: Path) -> None:
    cache = ShardedJudgeCache(judge_cache_dir, shard="tcp://10.0.0.5:4001/../x")

    assert cache.path.parent == shard_dir(judge_cache_dir)
    assert "/" not in cache.path.name and ":" not in cache.path.name


def test_merge_copies_the_shards_into_the_cache_file(judge_cache_dir: Path) -> None:
    main = JudgeCache(judge_cache_dir)
    _put(main, "shared", 1)
    one = ShardedJudgeCache(judge_cache_dir, shard="w0")
    two = ShardedJudgeCache(judge_cache_dir, shard="w1")
    _put(one, "a", 2)
    _put(two, "b", 3)
    _put(two, "shared", 99)  # the file's own entry wins
    one.close()
    two.close()

    added = merge_cache_shards(judge_cache_dir)

    assert added == 2
    assert _rows(main.path) == [("a", '{"v": 2}'), ("b", '{"v": 3}'), ("shared", '{"v": 1}')]
    assert not shard_dir(judge_cache_dir).exists()
    assert merge_cache_shards(judge_cache_dir) == 0
