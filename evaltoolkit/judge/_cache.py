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

A damaged file (overwritten, truncated, garbage written into it) is never fatal: opening runs
sqlite's ``PRAGMA quick_check`` on files up to 64 MiB (about 1 ms per MiB from the page cache),
and any read or write that finds the file damaged later does the same as a failed check. The
damaged file is moved aside, renamed ``judge-calls.sqlite3.damaged-<UTC time>`` (never
deleted), a fresh cache is started in its place, and one warning says so. :meth:`JudgeCache.check`
runs the full ``PRAGMA integrity_check`` on demand. ``evaltoolkit cache info|check|prune|clear``
manages the cache from a terminal.
"""

from __future__ import annotations

import contextlib
import enum
import json
import math
import os
import sqlite3
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from .._internal.secrets import secret_masker
from ..errors import ConfigurationError
from ..records import Usage
from ._cache_damage import (
    _DAMAGED_MARK,
    CacheRepair,
    _file_identity,
    _integrity_problem,
    _signature,
    is_damage,
    move_damaged_file,
)
from ._cache_units import format_bytes, parse_duration, parse_size
from ._run_scope import run_scope

__all__ = [
    "DEFAULT_MAX_BYTES",
    "CacheRepair",
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
# Opening runs PRAGMA quick_check on files up to this size (it reads the whole file: about
# 1 ms per MiB from the page cache, 25 ms per MiB from a slow cold disk). Larger files are
# checked by `evaltoolkit cache check`, and by every read and write, which find damage too.
_CHECK_ON_OPEN_MAX_BYTES: Final = 64 << 20
# Files this process checked and found sound, by their identity, size and time of change.
_checked_sound: set[tuple[int, ...]] = set()

_T = TypeVar("_T")

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


def open_cache(
    location: str | Path | None = None, max_bytes: int | _Unset | None = _Unset.UNSET
) -> JudgeCache:
    """Open the judge cache at ``location`` (None: the default directory).

    A judge opens its cache through this, and so does an unpickled :class:`JudgeCache`: on a
    Dask worker scoring a partition, it opens that worker's shard of the cache instead (see
    :mod:`evaltoolkit.judge._shards`).
    """
    opener = run_scope().cache_opener
    if opener is None:
        return JudgeCache(location, max_bytes=max_bytes)
    opened: JudgeCache = opener(location, max_bytes)
    return opened


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
            reason = f"cannot create the judge cache directory {self._path.parent}: {error}"
            raise ConfigurationError(
                f"{reason}; pass cache=<a writable directory> or cache=False",
                command_line=f"{reason}; pass --cache-dir <a writable directory> (or --no-cache)",
            ) from error
        self._local = threading.local()
        # Weak, so that the connection of a thread that has ended is closed when it is freed.
        self._connections: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._repair_lock = threading.Lock()
        # Bumped when a damaged file is moved aside: every thread's connection is then stale.
        self._generation = 0
        # The file the current generation's connections opened (device, inode).
        self._identity: tuple[int, int] | None = None
        self._closed = False
        self._connection()  # create the file and table now, so setup errors surface here
        self._check_on_open()
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
        return self._connection_and_generation()[0]

    def _connection_and_generation(self) -> tuple[_Connection, int]:
        """This thread's connection, and the generation of the file it is open on."""
        connection: _Connection | None = getattr(self._local, "connection", None)
        generation = self._generation
        if connection is not None and getattr(self._local, "generation", None) == generation:
            return connection, generation
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        before = _file_identity(self._path)
        try:
            connection = self._open_connection()
        except sqlite3.Error as error:
            if not is_damage(error):
                raise self._open_error(error) from error
            self._move_aside(str(error), generation=generation, expected=before, warn=True)
            generation = self._generation
            try:
                connection = self._open_connection()
            except sqlite3.Error as again:
                raise self._open_error(again) from again
        self._local.connection = connection
        self._local.generation = generation
        with self._lock:
            self._connections.add(connection)
            self._identity = _file_identity(self._path)
        return connection, generation

    def _open_connection(self) -> _Connection:
        connection = sqlite3.connect(
            self._path,
            timeout=_BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,  # autocommit: every statement is its own transaction
            check_same_thread=False,  # only close() touches it from another thread
            factory=_Connection,
        )
        try:
            connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            self._enable_wal(connection)
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute(_SCHEMA_SQL)
            self._migrate(connection)
            connection.execute(_INDEX_SQL)
        except BaseException:
            connection.close()
            raise
        return connection

    def _open_error(self, error: sqlite3.Error) -> ConfigurationError:
        reason = f"cannot open the judge cache {self._path}: {error}"
        return ConfigurationError(
            f"{reason}; pass cache=<another directory> or cache=False",
            command_line=f"{reason}; pass --cache-dir <another directory> (or --no-cache)",
        )

    # -- damage ------------------------------------------------------------------------------

    def _check_on_open(self) -> None:
        """Run ``PRAGMA quick_check`` on a file up to 64 MiB not yet found sound here."""
        signature = _signature(self._path)
        if signature is None or signature in _checked_sound:
            return
        if signature[2] + signature[6] > _CHECK_ON_OPEN_MAX_BYTES:
            return
        self.check(full=False, warn=True)

    def check(self, *, full: bool = True, warn: bool = False) -> CacheRepair | None:
        """Check the file with sqlite; move a damaged one aside and start a fresh cache.

        The damaged file is renamed ``<file>.damaged-<UTC time>`` beside the cache (its
        write-ahead log beside it, with ``-wal``), never deleted.

        Args:
            full: Run ``PRAGMA integrity_check`` (reads every page and checks every index);
                False runs the faster ``PRAGMA quick_check``, which opening runs.
            warn: Also say it in a warning.

        Returns:
            None when the file is sound; else what was moved where.

        Example:
            >>> import tempfile
            >>> cache = JudgeCache(tempfile.mkdtemp())
            >>> cache.check() is None
            True
            >>> cache.close()
        """
        connection, generation = self._connection_and_generation()
        try:
            problem = _integrity_problem(connection, "integrity_check" if full else "quick_check")
        except sqlite3.DatabaseError:
            if generation == self._generation:
                raise
            return None  # another thread moved it aside meanwhile: the file now is fresh
        if problem is None:
            signature = _signature(self._path)
            if signature is not None:
                if len(_checked_sound) > 256:
                    _checked_sound.clear()
                _checked_sound.add(signature)
            return None
        repair = self._move_aside(
            problem, generation=generation, expected=self._identity, warn=warn
        )
        self._connection()
        return repair

    def damaged_copies(self) -> list[Path]:
        """Damaged files of this cache that were moved aside, oldest first.

        Example:
            >>> import tempfile
            >>> cache = JudgeCache(tempfile.mkdtemp())
            >>> cache.damaged_copies()
            []
            >>> cache.close()
        """
        pattern = f"{self._path.name}{_DAMAGED_MARK}*"
        return sorted(
            path
            for path in self._path.parent.glob(pattern)
            if not path.name.endswith(("-wal", "-shm", "-journal"))
        )

    def _move_aside(
        self, problem: str, *, generation: int, expected: tuple[int, int] | None, warn: bool
    ) -> CacheRepair | None:
        """Rename the damaged file (and its journal) with a time stamp; drop every connection.

        With ``warn``, one warning says so. Nothing is renamed when another thread did it
        already (the generation moved on) or another process did (the file at the path is no
        longer the one found damaged).
        """
        with self._repair_lock:
            if generation != self._generation:
                return None
            with self._lock:
                connections = list(self._connections)
                self._connections = weakref.WeakSet()
                self._generation += 1
                self._identity = None
            for connection in connections:
                with contextlib.suppress(sqlite3.Error):
                    connection.close()
            if expected is not None and _file_identity(self._path) != expected:
                return None
            try:
                target = move_damaged_file(self._path)
            except FileNotFoundError:
                return None  # another process moved it aside first
            except OSError as error:
                raise ConfigurationError(
                    f"the judge cache {self._path} is damaged ({problem}) and cannot be moved "
                    f"aside ({error}); delete it, or pass cache=<another directory> or "
                    "cache=False",
                    command_line=f"the judge cache {self._path} is damaged ({problem}) and "
                    f"cannot be moved aside ({error}); delete it, or pass --cache-dir <another "
                    "directory> (or --no-cache)",
                ) from error
            repair = CacheRepair(self._path, target, problem)
        if warn:
            warnings.warn(str(repair), RuntimeWarning, stacklevel=4)
        return repair

    def _guarded(self, operation: Callable[[_Connection], _T]) -> _T:
        """Run ``operation`` on this thread's connection; on a damaged file, move it aside
        (one warning) and run it again on a fresh cache."""
        connection, generation = self._connection_and_generation()
        try:
            return operation(connection)
        except sqlite3.DatabaseError as error:
            if generation == self._generation:
                if not is_damage(error):
                    raise
                self._move_aside(
                    str(error), generation=generation, expected=self._identity, warn=True
                )
            # else another thread moved the file aside while this one was using it
        return operation(self._connection())

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

        def read(connection: _Connection) -> tuple[Any, ...] | None:
            row: tuple[Any, ...] | None = connection.execute(
                "SELECT value, raw_reply, prompt_tokens, completion_tokens, cost, used_at "
                "FROM judge_calls WHERE key = ?",
                (key,),
            ).fetchone()
            if row is not None:
                now = time.time()
                if row[-1] is None or now - row[-1] > _TOUCH_INTERVAL_S:
                    connection.execute(
                        "UPDATE judge_calls SET used_at = ? WHERE key = ?", (now, key)
                    )
            return row

        row = self._guarded(read)
        if row is None:
            return None
        value, raw_reply, prompt_tokens, completion_tokens, cost, _ = row
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

        Secrets in the reply (a key a server echoed) are masked before it is written. Every
        5% of the bound written, the cache checks its size and prunes the least recently
        used entries when it is over the bound.
        """
        masker = secret_masker()
        value = masker.deep(value)
        raw_reply = None if raw_reply is None else masker.text(raw_reply)
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
        row = (
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
        )
        self._guarded(
            lambda connection: connection.execute(
                "INSERT OR REPLACE INTO judge_calls "
                "(key, model, step, value, raw_reply, prompt_tokens, completion_tokens, cost, "
                "created_at, used_at, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
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
            if self._guarded(self._live_bytes) > self._max_bytes:
                self.prune(max_bytes=int(self._max_bytes * _PRUNE_TO))
        except sqlite3.Error as error:  # a busy cache must not fail the call
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
        return self._guarded(
            lambda connection: self._prune(connection, max_bytes=max_bytes, older_than=older_than)
        )

    def _prune(
        self, connection: _Connection, *, max_bytes: int | None, older_than: float | None
    ) -> PruneReport:
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

        def vacuum(connection: _Connection) -> None:
            connection.execute("VACUUM")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

        self._guarded(vacuum)

    def stats(self) -> CacheStats:
        """Entries, bytes on disk, and the dates of the oldest and newest entries.

        Example:
            >>> import tempfile
            >>> cache = JudgeCache(tempfile.mkdtemp())
            >>> cache.stats().entries
            0
            >>> cache.close()
        """

        def read(connection: _Connection) -> tuple[Any, ...]:
            row = connection.execute(
                "SELECT COUNT(*), MIN(created_at), MAX(created_at), MIN(used_at) FROM judge_calls"
            ).fetchone()
            return (*row, self._live_bytes(connection))

        entries, oldest, newest, least_recent, live_bytes = self._guarded(read)
        on_disk = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                on_disk += os.stat(f"{self._path}{suffix}").st_size
        return CacheStats(
            path=self._path,
            entries=int(entries),
            bytes=on_disk,
            live_bytes=live_bytes,
            oldest=oldest,
            newest=newest,
            least_recent_use=least_recent,
            max_bytes=self._max_bytes,
        )

    def __len__(self) -> int:
        query = "SELECT COUNT(*) FROM judge_calls"
        return int(self._guarded(lambda connection: connection.execute(query).fetchone()[0]))

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        query = "SELECT 1 FROM judge_calls WHERE key = ?"
        return self._guarded(
            lambda connection: connection.execute(query, (key,)).fetchone() is not None
        )

    def clear(self) -> PruneReport:
        """Delete every stored reply; return how many there were and their estimated bytes."""

        def clear(connection: _Connection) -> PruneReport:
            count, size = connection.execute(
                "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM judge_calls"
            ).fetchone()
            connection.execute("DELETE FROM judge_calls")
            return PruneReport(int(count), int(size))

        return self._guarded(clear)

    def close(self) -> None:
        """Close every thread's connection; the cache cannot be used afterwards."""
        with self._lock:
            self._closed = True
            connections = list(self._connections)
            self._connections = weakref.WeakSet()
        for connection in connections:
            connection.close()
        self._local = threading.local()
