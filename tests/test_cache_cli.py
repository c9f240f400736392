"""The judge cache's size bound, and `evaltoolkit cache info|prune|clear`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaltoolkit.cli import main
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.judge._cache import (
    CACHE_FILE_NAME,
    DEFAULT_MAX_BYTES,
    JudgeCache,
    parse_duration,
    parse_size,
)

REPLY = {"verdicts": ["x" * 2000]}


def _fill(cache: JudgeCache, count: int, prefix: str = "k") -> None:
    for n in range(count):
        cache.put(f"{prefix}{n}", model="m", step="s", value=REPLY, raw_reply="r" * 500)


def _age(path: Path, key_prefix: str, seconds: float) -> None:
    """Make entries look written and last used ``seconds`` ago."""
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE judge_calls SET used_at = used_at - ?, created_at = created_at - ? "
            "WHERE key LIKE ?",
            (seconds, seconds, f"{key_prefix}%"),
        )


# -- the bound ------------------------------------------------------------------------------


def test_the_default_bound_is_one_gib(judge_cache_dir: Path) -> None:
    assert DEFAULT_MAX_BYTES == 1 << 30
    assert JudgeCache(judge_cache_dir).max_bytes == DEFAULT_MAX_BYTES


def test_the_bound_is_kept_without_losing_the_recent_entries(judge_cache_dir: Path) -> None:
    bound = 256 * 1024
    cache = JudgeCache(judge_cache_dir, max_bytes=bound)
    _fill(cache, 1000)  # about 2.6 MB written

    stats = cache.stats()
    assert stats.live_bytes <= bound * 1.1  # checked after each 5% of the bound written
    assert 0 < stats.entries < 1000
    assert "k999" in cache  # the newest survive
    assert "k0" not in cache  # the oldest went first


def test_pruning_for_the_bound_removes_the_least_recently_used(judge_cache_dir: Path) -> None:
    cache = JudgeCache(judge_cache_dir, max_bytes=None)
    _fill(cache, 60, prefix="old")
    _fill(cache, 60, prefix="new")
    _age(cache.path, "", 3600)
    _age(cache.path, "old", 3600)
    assert cache.get("old0") is not None  # a use refreshes it

    report = cache.prune(max_bytes=cache.stats().live_bytes // 2)

    assert report.removed > 0
    assert "old0" in cache
    assert "old1" not in cache
    assert "new59" in cache


def test_the_bound_comes_from_the_environment(
    judge_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALTOOLKIT_CACHE_MAX_BYTES", "500M")
    assert JudgeCache(judge_cache_dir).max_bytes == 500_000_000
    monkeypatch.setenv("EVALTOOLKIT_CACHE_MAX_BYTES", "none")
    assert JudgeCache(judge_cache_dir).max_bytes is None
    monkeypatch.setenv("EVALTOOLKIT_CACHE_MAX_BYTES", "lots")
    with pytest.raises(ConfigurationError, match="EVALTOOLKIT_CACHE_MAX_BYTES"):
        JudgeCache(judge_cache_dir)
    with pytest.raises(ConfigurationError, match="max_bytes"):
        JudgeCache(judge_cache_dir, max_bytes=0)


def test_a_cache_from_before_the_bound_is_migrated(judge_cache_dir: Path) -> None:
    judge_cache_dir.mkdir()
    path = judge_cache_dir / CACHE_FILE_NAME
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE judge_calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, step TEXT "
            "NOT NULL, value TEXT NOT NULL, raw_reply TEXT, prompt_tokens INTEGER, "
            "completion_tokens INTEGER, cost REAL, created_at REAL NOT NULL)"
        )
        connection.execute(
            "INSERT INTO judge_calls VALUES ('old', 'm', 's', '{\"a\": 1}', NULL, NULL, NULL, "
            "NULL, ?)",
            (time.time() - 86400,),
        )
    cache = JudgeCache(judge_cache_dir)
    stored = cache.get("old")
    assert stored is not None and stored.value == {"a": 1}
    assert cache.prune(older_than=3600).removed == 0  # the read just now was a use
    assert cache.stats().entries == 1


def test_sizes_and_durations_parse() -> None:
    assert parse_size("1GiB") == 1 << 30
    assert parse_size("2.5 MB") == 2_500_000
    assert parse_duration("2w") == 14 * 86400
    with pytest.raises(ValueError, match="not a size"):
        parse_size("1 parsec")
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration("soon")


# -- the command ----------------------------------------------------------------------------


def test_info_prints_entries_bytes_oldest_and_newest(
    judge_cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = JudgeCache(judge_cache_dir)
    _fill(cache, 5)
    cache.close()

    assert main(["cache", "info", "--cache", str(judge_cache_dir)]) == 0
    printed = capsys.readouterr().out
    assert f"judge cache: {judge_cache_dir / CACHE_FILE_NAME}" in printed
    assert "entries: 5" in printed
    assert "bytes: " in printed and "bound 1.0 GiB" in printed
    today = time.strftime("%Y-%m-%d")
    assert f"oldest: {today}" in printed and f"newest: {today}" in printed


def test_info_on_a_missing_cache_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nothing-here"
    assert main(["cache", "info", "--cache", str(missing)]) == 0
    assert "no judge cache at" in capsys.readouterr().out
    assert not missing.exists()


def test_prune_older_than_and_max_bytes(
    judge_cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = JudgeCache(judge_cache_dir)
    _fill(cache, 10, prefix="old")
    _fill(cache, 200, prefix="new")
    cache.close()
    _age(judge_cache_dir / CACHE_FILE_NAME, "old", 40 * 86400)

    assert main(["cache", "prune", "--cache", str(judge_cache_dir), "--older-than", "30d"]) == 0
    assert "removed 10 entries" in capsys.readouterr().out
    assert len(JudgeCache(judge_cache_dir)) == 200

    size_before = (judge_cache_dir / CACHE_FILE_NAME).stat().st_size
    assert main(["cache", "prune", "--cache", str(judge_cache_dir), "--max-bytes", "100K"]) == 0
    assert "removed " in capsys.readouterr().out
    reopened = JudgeCache(judge_cache_dir)
    assert 0 < len(reopened) < 200
    assert reopened.stats().live_bytes <= 100_000
    assert (judge_cache_dir / CACHE_FILE_NAME).stat().st_size < size_before  # space given back


def test_prune_needs_a_criterion(judge_cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    JudgeCache(judge_cache_dir).close()
    assert main(["cache", "prune", "--cache", str(judge_cache_dir)]) == 2
    assert "--max-bytes" in capsys.readouterr().err
    assert main(["cache", "prune", "--cache", str(judge_cache_dir), "--max-bytes", "x"]) == 2


def test_clear_without_a_terminal_needs_yes_and_says_what_it_removed(
    judge_cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = JudgeCache(judge_cache_dir)
    _fill(cache, 7)
    cache.close()
    command = [
        sys.executable,
        "-m",
        "evaltoolkit",
        "cache",
        "clear",
        "--cache",
        str(judge_cache_dir),
    ]
    refused = subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2
    assert "pass --yes" in refused.stderr
    assert len(JudgeCache(judge_cache_dir)) == 7
    assert main(["cache", "clear", "--cache", str(judge_cache_dir), "--yes"]) == 0
    printed = capsys.readouterr().out
    assert "removed 7 entries" in printed
    assert "?" not in printed
    assert len(JudgeCache(judge_cache_dir)) == 0


def test_clear_in_a_terminal_asks_first(
    judge_cache_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = JudgeCache(judge_cache_dir)
    _fill(cache, 3)
    cache.close()
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert main(["cache", "clear", "--cache", str(judge_cache_dir)]) == 1
    assert "nothing removed" in capsys.readouterr().out
    assert len(JudgeCache(judge_cache_dir)) == 3
    assert main(["cache", "clear", "--cache", str(judge_cache_dir), "--yes"]) == 0
    assert len(JudgeCache(judge_cache_dir)) == 0


def test_the_default_cache_is_the_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVALTOOLKIT_CACHE_DIR", str(tmp_path / "env-cache"))
    _fill(JudgeCache(), 2)
    assert main(["cache", "info"]) == 0
    assert str(tmp_path / "env-cache") in capsys.readouterr().out
