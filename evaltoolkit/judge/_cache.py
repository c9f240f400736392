"""A disk cache of successful judge calls, in one sqlite file.

Rerunning a notebook cell, or resuming an interrupted run, then makes no model call for the
steps already answered. The file is opened in WAL mode, with one connection per thread and a
busy timeout, so threads of one process and several processes can read and write it at once.

Only validated replies are stored, under a key that the judge derives from the model, the
messages, the parameters and the schema; never from an API key or other secret.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..errors import ConfigurationError
from ..records import Usage

__all__ = ["CachedCall", "JudgeCache", "default_cache_dir"]

CACHE_FILE_NAME: Final = "judge-calls.sqlite3"
_SQLITE_SUFFIXES: Final = (".sqlite", ".sqlite3", ".db")
_BUSY_TIMEOUT_MS: Final = 30_000

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
    created_at REAL NOT NULL
)
"""


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


class _Connection(sqlite3.Connection):
    """A connection that can be weakly referenced, so a finished thread's one can be freed."""


class JudgeCache:
    """A sqlite-backed store of judge replies, safe to share between threads and processes.

    Args:
        location: A directory (the file ``judge-calls.sqlite3`` inside it is used) or a file
            path ending in ``.sqlite``, ``.sqlite3`` or ``.db``. Defaults to
            :func:`default_cache_dir`. Missing directories are created.

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

    def __init__(self, location: str | Path | None = None) -> None:
        target = Path(location).expanduser() if location is not None else default_cache_dir()
        self._path = target if target.suffix in _SQLITE_SUFFIXES else target / CACHE_FILE_NAME
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

    @property
    def path(self) -> Path:
        """The sqlite file."""
        return self._path

    def __repr__(self) -> str:
        return f"JudgeCache({str(self._path)!r})"

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
        """The stored reply under ``key``, or None."""
        row = (
            self._connection()
            .execute(
                "SELECT value, raw_reply, prompt_tokens, completion_tokens, cost "
                "FROM judge_calls WHERE key = ?",
                (key,),
            )
            .fetchone()
        )
        if row is None:
            return None
        value, raw_reply, prompt_tokens, completion_tokens, cost = row
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
        """Store a validated reply under ``key``, replacing any earlier one."""
        self._connection().execute(
            "INSERT OR REPLACE INTO judge_calls "
            "(key, model, step, value, raw_reply, prompt_tokens, completion_tokens, cost, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                model,
                step,
                json.dumps(value, ensure_ascii=False),
                raw_reply,
                usage.prompt_tokens if usage else None,
                usage.completion_tokens if usage else None,
                cost,
                time.time(),
            ),
        )

    def __len__(self) -> int:
        row = self._connection().execute("SELECT COUNT(*) FROM judge_calls").fetchone()
        return int(row[0])

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        query = "SELECT 1 FROM judge_calls WHERE key = ?"
        return self._connection().execute(query, (key,)).fetchone() is not None

    def clear(self) -> None:
        """Delete every stored reply."""
        self._connection().execute("DELETE FROM judge_calls")

    def close(self) -> None:
        """Close every thread's connection; the cache cannot be used afterwards."""
        with self._lock:
            self._closed = True
            connections = list(self._connections)
            self._connections = weakref.WeakSet()
        for connection in connections:
            connection.close()
        self._local = threading.local()
