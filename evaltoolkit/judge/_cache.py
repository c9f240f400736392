"""A disk cache of successful judge calls, in one sqlite file.

Rerunning a notebook cell, or resuming an interrupted run, then makes no model call for the
steps already answered. The file is opened in WAL mode, with one connection per thread and a
busy timeout, so threads of one process and several processes can read and write it at once.

Only validated replies are stored, under a key that the judge derives from the model, the
messages, the parameters and the schema; never from an API key or other secret.

The cache is bounded: when the file's live content passes ``max_bytes`` (1 GiB by default,
``$EVALTOOLKIT_CACHE_MAX_BYTES`` or ``JudgeCache(max_bytes=...)`` to change it, None for no
bound), the least recently used entries are removed until it is back under 90% of the bound.
The size is checked when the cache is opened and after each further 5% of the bound written,
never on every write, so the file may pass the bound by about that much between checks.
``evaltoolkit cache info|prune|clear`` manages it from a terminal.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
import json
import math
import os
import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..errors import ConfigurationError
from ..records import Usage

__all__ = [
    "DEFAULT_MAX_BYTES",
    "CacheStats",
    "CachedCall",
    "JudgeCache",
    "PruneReport",
    "cache_file_path",
    "default_cache_dir",
    "format_bytes",
    "max_bytes_from_environment",
    "open_cache",
    "parse_duration",
    "parse_size",
]

CACHE_FILE_NAME: Final = "judge-calls.sqlite3"
# The default bound of the cache's live content; $EVALTOOLKIT_CACHE_MAX_BYTES overrides it.
DEFAULT_MAX_BYTES: Final = 1 << 30
MAX_BYTES_VARIABLE: Final = "EVALTOOLKIT_CACHE_MAX_BYTES"
_SQLITE_SUFFIXES: Final = (".sqlite", ".sqlite3", ".db")
_BUSY_TIMEOUT_MS: Final = 30_000
# Pruning for the bound goes down to this share of it, so that it does not run on every check.
_PRUNE_TO: Final = 0.9
# The size is checked again after this share of the bound has been written.
_CHECK_SHARE: Final = 0.05
# A read refreshes an entry's last use at most this often (a write per read would be costly).
_TOUCH_INTERVAL_S: Final = 60.0
# Bytes an entry takes besides its texts (row header, the key's index entry, used_at index).
_ROW_OVERHEAD: Final = 64

_SCHEMA_SQL: Final = """
CREATE TABLE IF NOT EXISTS judge_calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    step TEXT NOT NULL,
    value TEXT NOT NULL,
    raw_reply TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cost REAL,
    created_at REAL NOT NULL,
    used_at REAL,
    size INTEGER
)
"""
_INDEX_SQL: Final = "CREATE INDEX IF NOT EXISTS judge_calls_used_at ON judge_calls (used_at)"
# Caches written before the bound existed lack used_at and size; they are filled in once.
_MIGRATION_SQL: Final = (
    "ALTER TABLE judge_calls ADD COLUMN used_at REAL",
    "ALTER TABLE judge_calls ADD COLUMN size INTEGER",
    "UPDATE judge_calls SET used_at = created_at, size = length(CAST(key AS BLOB)) * 2 "
    "+ length(CAST(value AS BLOB)) + COALESCE(length(CAST(raw_reply AS BLOB)), 0) "
    f"+ length(model) + length(step) + {_ROW_OVERHEAD} WHERE used_at IS NULL OR size IS NULL",
)

_SIZE_UNITS: Final = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "kib": 1 << 10,
    "m": 1000**2,
    "mb": 1000**2,
    "mib": 1 << 20,
    "g": 1000**3,
    "gb": 1000**3,
    "gib": 1 << 30,
    "t": 1000**4,
    "tb": 1000**4,
    "tib": 1 << 40,
}
_DURATION_UNITS: Final = {"": 1, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_size(text: str) -> int:
    """Bytes from a size such as ``"500M"``, ``"1GiB"``, ``"2.5 GB"`` or ``"1048576"``.

    Decimal units (k, M, G, T, with or without B) are powers of 1000; KiB, MiB, GiB and TiB
    are powers of 1024.

    Raises:
        ValueError: The text is not a size.

    Example:
        >>> parse_size("500M"), parse_size("1GiB"), parse_size("12")
        (500000000, 1073741824, 12)
    """
    return int(_quantity(text, _SIZE_UNITS, "a size", "500M, 1G, 2GiB or a byte count"))


def parse_duration(text: str) -> float:
    """Seconds from a duration such as ``"30d"``, ``"12h"``, ``"90min"``, ``"2w"`` or ``"45"``.

    Raises:
        ValueError: The text is not a duration.

    Example:
        >>> parse_duration("30d"), parse_duration("1.5h"), parse_duration("45")
        (2592000.0, 5400.0, 45.0)
    """
    return _quantity(
        text, _DURATION_UNITS, "a duration", "30d, 12h, 90min, 2w or a number of seconds"
    )


def _quantity(text: str, units: Mapping[str, float], what: str, examples: str) -> float:
    """A number with an optional unit from ``units`` (case-insensitive), times that unit."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([a-zA-Z]*)\s*", text)
    if match is None or match.group(2).lower() not in units:
        raise ValueError(f"not {what}: {text!r}; write it as {examples}")
    return float(match.group(1)) * units[match.group(2).lower()]


def format_bytes(count: float) -> str:
    """A byte count for people: ``"512 B"``, ``"1.5 MiB"``.

    Example:
        >>> format_bytes(512), format_bytes(1536 * 1024)
        ('512 B', '1.5 MiB')
    """
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(count) < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


class _Unset(enum.Enum):
    UNSET = enum.auto()


def max_bytes_from_environment() -> int | None:
    """The cache's size bound from ``$EVALTOOLKIT_CACHE_MAX_BYTES``, else the default; None: none.

    Example:
        >>> max_bytes_from_environment() in (DEFAULT_MAX_BYTES, None) or "set in the environment"
        True
    """
    configured = os.environ.get(MAX_BYTES_VARIABLE, "").strip()
    if not configured:
        return DEFAULT_MAX_BYTES
    if configured.lower() in ("none", "0", "off", "unbounded"):
        return None
    try:
        return parse_size(configured)
    except ValueError as error:
        raise ConfigurationError(f"${MAX_BYTES_VARIABLE}: {error}") from error


#: How :func:`open_cache` opens a cache in this context; set on Dask workers (see ``._shards``).
cache_opener: contextvars.ContextVar[
    Callable[[str | Path | None, int | _Unset | None], JudgeCache] | None
] = contextvars.ContextVar("evaltoolkit_cache_opener", default=None)


def open_cache(
    location: str | Path | None = None, max_bytes: int | _Unset | None = _Unset.UNSET
) -> JudgeCache:
    """Open the judge cache at ``location`` (None: the default directory).

    A judge opens its cache through this, and so does an unpickled :class:`JudgeCache`: on a
    Dask worker scoring a partition, it opens that worker's shard of the cache instead (see
    :mod:`evaltoolkit.judge._shards`).
    """
    opener = cache_opener.get()
    if opener is None:
        return JudgeCache(location, max_bytes=max_bytes)
    return opener(location, max_bytes)


def cache_file_path(location: str | Path | None = None) -> Path:
    """The sqlite file of the judge cache at ``location``: a file named so, or one in that folder.

    Example:
        >>> cache_file_path("/tmp/calls").name, cache_file_path("/tmp/mine.db").name
        ('judge-calls.sqlite3', 'mine.db')
    """
    target = Path(location).expanduser() if location is not None else default_cache_dir()
    return target if target.suffix in _SQLITE_SUFFIXES else target / CACHE_FILE_NAME


def default_cache_dir() -> Path:
    """The directory of the default judge cache.

    ``$EVALTOOLKIT_CACHE_DIR`` when set; else ``evaltoolkit`` under ``$XDG_CACHE_HOME``, or
    under ``~/.cache`` when that is unset.

    Example:
        >>> default_cache_dir().name
        'evaltoolkit'
    """
    configured = os.environ.get("EVALTOOLKIT_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "evaltoolkit"


@dataclass(frozen=True, slots=True)
class CachedCall:
    """A stored judge reply.

    Attributes:
        value: The validated reply object.
        raw_reply: The model's raw reply text.
        usage: The token usage the original call reported, None when it reported none.
        cost: The original call's cost, None when unknown.
    """

    value: dict[str, Any]
    raw_reply: str | None
    usage: Usage | None
    cost: float | None


@dataclass(frozen=True, slots=True)
class CacheStats:
    """What a judge cache holds.

    Attributes:
        path: The sqlite file.
        entries: Stored replies.
        bytes: Size on disk (the file and its write-ahead log).
        live_bytes: The part of the file in use (what the bound applies to).
        oldest: When the oldest entry was written (seconds since the epoch), None when empty.
        newest: When the newest entry was written, None when empty.
        least_recent_use: The last use of the least recently used entry, None when empty.
        max_bytes: The bound, None for none.
    """

    path: Path
    entries: int
    bytes: int
    live_bytes: int
    oldest: float | None
    newest: float | None
    least_recent_use: float | None
    max_bytes: int | None


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What a prune or clear removed: entries, and their estimated bytes."""

    removed: int
    removed_bytes: int


class _Connection(sqlite3.Connection):
    """A connection that can be weakly referenced, so a finished thread's one can be freed."""


class JudgeCache:
    """A sqlite-backed store of judge replies, safe to share between threads and processes.

    Args:
        location: A directory (the file ``judge-calls.sqlite3`` inside it is used) or a file
            path ending in ``.sqlite``, ``.sqlite3`` or ``.db``. Defaults to
            :func:`default_cache_dir`. Missing directories are created.
        max_bytes: Bound on the file's live content; the least recently used entries are
            pruned past it. Defaults to ``$EVALTOOLKIT_CACHE_MAX_BYTES`` (a size such as
            ``500M``; ``none`` for no bound), else :data:`DEFAULT_MAX_BYTES` (1 GiB). None
            for no bound.

    Example:
        >>> import tempfile
        >>> cache = JudgeCache(tempfile.mkdtemp())
        >>> cache.put("k", model="m", step="s", value={"a": 1}, raw_reply='{"a": 1}')
        >>> cache.get("k").value
        {'a': 1}
        >>> len(cache)
        1
        >>> cache.close()
    """

    def __init__(
        self, location: str | Path | None = None, *, max_bytes: int | _Unset | None = _Unset.UNSET
    ) -> None:
        if isinstance(max_bytes, _Unset):
            max_bytes = max_bytes_from_environment()
        if max_bytes is not None and (
            isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1
        ):
            raise ConfigurationError(
                f"max_bytes must be a positive number of bytes or None, got {max_bytes!r}"
            )
        self._max_bytes: int | None = max_bytes
        self._written_since_check = 0
        self._path = cache_file_path(location)
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigurationError(
                f"cannot create the judge cache directory {self._path.parent}: {error}; "
                "pass cache=<a writable directory> or cache=False"
            ) from error
        self._local = threading.local()
        # Weak, so that the connection of a thread that has ended is closed when it is freed.
        self._connections: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._closed = False
        self._connection()  # create the file and table now, so setup errors surface here
        self._enforce_bound()

    @property
    def path(self) -> Path:
        """The sqlite file."""
        return self._path

    @property
    def max_bytes(self) -> int | None:
        """The bound on the live content, None for none."""
        return self._max_bytes

    def __repr__(self) -> str:
        return f"JudgeCache({str(self._path)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Only the path and the bound travel (to a Dask worker): connections belong to their
        # process, and the receiving side reopens the file, or its own shard of it on a worker.
        return (open_cache, (str(self._path), self._max_bytes))

    def _connection(self) -> _Connection:
        connection: _Connection | None = getattr(self._local, "connection", None)
        if connection is not None:
            return connection
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        try:
            connection = sqlite3.connect(
                self._path,
                timeout=_BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,  # autocommit: every statement is its own transaction
                check_same_thread=False,  # only close() touches it from another thread
                factory=_Connection,
            )
            connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            self._enable_wal(connection)
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute(_SCHEMA_SQL)
            self._migrate(connection)
            connection.execute(_INDEX_SQL)
        except sqlite3.Error as error:
            raise ConfigurationError(
                f"cannot open the judge cache {self._path}: {error}; "
                "pass cache=<another directory> or cache=False"
            ) from error
        self._local.connection = connection
        with self._lock:
            self._connections.add(connection)
        return connection

    @staticmethod
    def _migrate(connection: sqlite3.Connection) -> None:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(judge_calls)")}
        if {"used_at", "size"} <= columns:
            return
        for statement in _MIGRATION_SQL:
            try:
                connection.execute(statement)
            except sqlite3.OperationalError as error:
                if "duplicate column" not in str(error):  # another process was first
                    raise

    @staticmethod
    def _enable_wal(connection: sqlite3.Connection) -> None:
        # Switching the journal mode needs a moment of exclusive access, which the busy timeout
        # does not cover when another process is switching at the same time: retry briefly.
        for _ in range(50):
            try:
                connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) and "busy" not in str(error):
                    raise
                time.sleep(0.05)
        connection.execute("PRAGMA journal_mode = WAL")

    def get(self, key: str) -> CachedCall | None:
        """The stored reply under ``key``, or None; a hit counts as a use of the entry."""
        connection = self._connection()
        row = connection.execute(
            "SELECT value, raw_reply, prompt_tokens, completion_tokens, cost, used_at "
            "FROM judge_calls WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        value, raw_reply, prompt_tokens, completion_tokens, cost, used_at = row
        now = time.time()
        if used_at is None or now - used_at > _TOUCH_INTERVAL_S:
            connection.execute("UPDATE judge_calls SET used_at = ? WHERE key = ?", (now, key))
        usage = (
            None
            if prompt_tokens is None and completion_tokens is None
            else Usage(prompt_tokens or 0, completion_tokens or 0)
        )
        return CachedCall(json.loads(value), raw_reply, usage, cost)

    def put(
        self,
        key: str,
        *,
        model: str,
        step: str,
        value: dict[str, Any],
        raw_reply: str | None,
        usage: Usage | None = None,
        cost: float | None = None,
    ) -> None:
        """Store a validated reply under ``key``, replacing any earlier one.

        Every 5% of the bound written, the cache checks its size and prunes the least
        recently used entries when it is over the bound.
        """
        text = json.dumps(value, ensure_ascii=False)
        size = (
            2 * len(key.encode())
            + len(text.encode())
            + len((raw_reply or "").encode())
            + len(model)
            + len(step)
            + _ROW_OVERHEAD
        )
        now = time.time()
        self._connection().execute(
            "INSERT OR REPLACE INTO judge_calls "
            "(key, model, step, value, raw_reply, prompt_tokens, completion_tokens, cost, "
            "created_at, used_at, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                model,
                step,
                text,
                raw_reply,
                usage.prompt_tokens if usage else None,
                usage.completion_tokens if usage else None,
                cost,
                now,
                now,
                size,
            ),
        )
        if self._max_bytes is None:
            return
        with self._lock:
            self._written_since_check += size
            due = self._written_since_check >= max(4096, self._max_bytes * _CHECK_SHARE)
            if due:
                self._written_since_check = 0
        if due:
            self._enforce_bound()

    # -- size --------------------------------------------------------------------------------

    def _live_bytes(self, connection: sqlite3.Connection) -> int:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        return int((pages - free) * page_size)

    def _enforce_bound(self) -> None:
        if self._max_bytes is None:
            return
        try:
            if self._live_bytes(self._connection()) > self._max_bytes:
                self.prune(max_bytes=int(self._max_bytes * _PRUNE_TO))
        except sqlite3.Error as error:  # a busy or damaged cache must not fail the call
            import logging

            logging.getLogger("evaltoolkit.judge").warning(
                "judge cache size check failed (%s); it will be tried again", error
            )

    def _delete(self, connection: sqlite3.Connection, keys: list[str]) -> None:
        for start in range(0, len(keys), 500):
            batch = keys[start : start + 500]
            marks = ", ".join("?" * len(batch))
            connection.execute(f"DELETE FROM judge_calls WHERE key IN ({marks})", batch)

    def prune(
        self, *, max_bytes: int | None = None, older_than: float | None = None
    ) -> PruneReport:
        """Remove entries: those unused for ``older_than`` seconds, then the least recently
        used ones until the live content is at most ``max_bytes``.

        The file keeps its size (sqlite reuses the freed pages); :meth:`vacuum` gives the
        space back to the file system.

        Args:
            max_bytes: Bring the live content down to this many bytes.
            older_than: Remove entries last used more than this many seconds ago.

        Returns:
            How many entries were removed, and their estimated bytes.

        Example:
            >>> import tempfile
            >>> cache = JudgeCache(tempfile.mkdtemp())
            >>> cache.put("k", model="m", step="s", value={"a": 1}, raw_reply=None)
            >>> cache.prune(older_than=0).removed
            1
            >>> cache.close()
        """
        connection = self._connection()
        removed = removed_bytes = 0
        if older_than is not None:
            cutoff = time.time() - older_than
            count, size = connection.execute(
                "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM judge_calls WHERE used_at <= ?",
                (cutoff,),
            ).fetchone()
            connection.execute("DELETE FROM judge_calls WHERE used_at <= ?", (cutoff,))
            removed, removed_bytes = removed + count, removed_bytes + size
        if max_bytes is not None:
            for _ in range(16):  # each round removes about the excess; sizes are estimates
                live = self._live_bytes(connection)
                entries = connection.execute("SELECT COUNT(*) FROM judge_calls").fetchone()[0]
                if live <= max_bytes or not entries:
                    break
                count = max(1, math.ceil((live - max_bytes) / (live / entries)))
                chosen = connection.execute(
                    "SELECT key, COALESCE(size, 0) FROM judge_calls "
                    "ORDER BY used_at, created_at LIMIT ?",
                    (count,),
                ).fetchall()
                self._delete(connection, [key for key, _ in chosen])
                removed += len(chosen)
                removed_bytes += sum(size for _, size in chosen)
        return PruneReport(removed, int(removed_bytes))

    def vacuum(self) -> None:
        """Give the space of removed entries back to the file system (rewrites the file)."""
        connection = self._connection()
        connection.execute("VACUUM")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def stats(self) -> CacheStats:
        """Entries, bytes on disk, and the dates of the oldest and newest entries.

        Example:
            >>> import tempfile
            >>> cache = JudgeCache(tempfile.mkdtemp())
            >>> cache.stats().entries
            0
            >>> cache.close()
        """
        connection = self._connection()
        entries, oldest, newest, least_recent = connection.execute(
            "SELECT COUNT(*), MIN(created_at), MAX(created_at), MIN(used_at) FROM judge_calls"
        ).fetchone()
        on_disk = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                on_disk += os.stat(f"{self._path}{suffix}").st_size
        return CacheStats(
            path=self._path,
            entries=int(entries),
            bytes=on_disk,
            live_bytes=self._live_bytes(connection),
            oldest=oldest,
            newest=newest,
            least_recent_use=least_recent,
            max_bytes=self._max_bytes,
        )

    def __len__(self) -> int:
        row = self._connection().execute("SELECT COUNT(*) FROM judge_calls").fetchone()
        return int(row[0])

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        query = "SELECT 1 FROM judge_calls WHERE key = ?"
        return self._connection().execute(query, (key,)).fetchone() is not None

    def clear(self) -> PruneReport:
        """Delete every stored reply; return how many there were and their estimated bytes."""
        connection = self._connection()
        count, size = connection.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM judge_calls"
        ).fetchone()
        connection.execute("DELETE FROM judge_calls")
        return PruneReport(int(count), int(size))

    def close(self) -> None:
        """Close every thread's connection; the cache cannot be used afterwards."""
        with self._lock:
            self._closed = True
            connections = list(self._connections)
            self._connections = weakref.WeakSet()
        for connection in connections:
            connection.close()
        self._local = threading.local()
