"""A judge cache shared by the workers of a cluster: one shard file per worker process.

On a Dask worker each process writes only to its own file, ``<cache>.shards/<shard>.sqlite3``
beside the cache file (``judge-calls.shards/`` under the cache directory), and reads its own
shard, then the cache file itself, then the other workers' shards, opened read-only. So:

- no two processes, and so no two hosts, ever write the same file: nothing relies on file
  locks held across hosts;
- a partition retried after its worker died finds every call that worker stored, and a rerun
  of the same job finds every call of the first run: neither pays for a call twice;
- shards use sqlite's rollback journal, not WAL: WAL keeps its index in shared memory, which
  processes on different hosts cannot share, so it does not work over network file systems
  such as NFS; a rollback-journal file read-only from other hosts does, with the POSIX locks
  NFSv4 provides. A reader never writes to a file it does not own;
- a worker killed in the middle of a write (the OOM killer, a segfault) leaves its shard with a
  hot journal, which read-only connections refuse. Until the restarted worker reopens its
  shard and rolls the journal back, the others read a private copy of the shard and its
  journal, rolled back in a temporary folder: the calls it had stored are still not paid for
  twice.

The cache file itself stays in WAL mode (single-machine runs, the notebook) and workers only
read it. :func:`merge_cache_shards` copies the shards into it once a cluster job is done, for
runs that do not go through a cluster.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import shutil
import sqlite3
import tempfile
import threading
import time
import warnings
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from ..records import Usage
from ._cache import (
    _BUSY_TIMEOUT_MS,
    _MIGRATION_SQL,
    CachedCall,
    CacheRepair,
    JudgeCache,
    _Connection,
    _Unset,
    cache_file_path,
    open_cache,
)
from ._cache_damage import _integrity_problem, is_damage, move_damaged_file
from ._run_scope import scoped

__all__ = ["ShardedJudgeCache", "cache_shard", "merge_cache_shards", "shard_dir"]

logger = logging.getLogger("evaltoolkit.judge")

SHARD_SUFFIX: Final = ".sqlite3"
# How often, at most, a worker looks for shards that other workers created since.
_RESCAN_S: Final = 1.0
_SELECT: Final = (
    "SELECT value, raw_reply, prompt_tokens, completion_tokens, cost FROM judge_calls WHERE key = ?"
)
_COLUMNS: Final = (
    "key, model, step, value, raw_reply, prompt_tokens, completion_tokens, cost, created_at"
)


def shard_dir(location: str | Path | None = None) -> Path:
    """The folder holding the worker shards of the cache at ``location``.

    Example:
        >>> shard_dir("/shared/cache").as_posix()
        '/shared/cache/judge-calls.shards'
    """
    cache_file = cache_file_path(location)
    return cache_file.parent / f"{cache_file.stem}.shards"


def _safe_name(shard: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", shard).strip("._") or "worker"


class ShardedJudgeCache(JudgeCache):
    """One worker's view of a shared cache: writes to its own shard, reads every shard.

    Args:
        location: The shared cache (a directory or a ``.sqlite3`` file), as for
            :class:`JudgeCache`.
        shard: This worker's name; unique among the workers running at once.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> one, two = ShardedJudgeCache(folder, shard="a"), ShardedJudgeCache(folder, shard="b")
        >>> one.put("k", model="m", step="s", value={"a": 1}, raw_reply=None)
        >>> two.get("k").value
        {'a': 1}
        >>> one.close(); two.close()
    """

    def __init__(
        self,
        location: str | Path | None,
        *,
        shard: str,
        max_bytes: int | _Unset | None = _Unset.UNSET,
    ) -> None:
        self._main = cache_file_path(location)
        self._shards = shard_dir(self._main)
        self._readers_local = threading.local()
        self._readers: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._others: list[Path] = []
        self._scanned_at: float | None = None
        self._scan_lock = threading.Lock()
        # Shards left with a hot journal: (the files' signature, a rolled-back private copy).
        self._recovered: dict[Path, tuple[tuple[int, ...], Path]] = {}
        self._recover_lock = threading.Lock()
        super().__init__(self._shards / f"{_safe_name(shard)}{SHARD_SUFFIX}", max_bytes=max_bytes)

    @property
    def main_path(self) -> Path:
        """The shared cache file, read but never written by workers."""
        return self._main

    def __repr__(self) -> str:
        return f"ShardedJudgeCache({str(self._main)!r}, shard={self._path.stem!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (open_cache, (str(self._main), self._max_bytes))

    @staticmethod
    def _enable_wal(connection: sqlite3.Connection) -> None:
        # A rollback journal, not WAL: other hosts read this file, and WAL's shared-memory
        # index cannot be shared across hosts (see the module docstring).
        connection.execute("PRAGMA journal_mode = DELETE")

    def get(self, key: str) -> CachedCall | None:
        """The stored reply under ``key`` in this shard, the cache file or another shard."""
        hit = super().get(key)
        if hit is not None:
            return hit
        for rescan in (False, True):
            for path in self._readable(rescan=rescan):
                hit = self._read(path, key)
                if hit is not None:
                    return hit
        return None

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def _readable(self, *, rescan: bool) -> list[Path]:
        """The cache file and the other shards; with ``rescan``, only shards found since."""
        with self._scan_lock:
            now = time.monotonic()
            scanned = self._scanned_at is not None
            if scanned and (not rescan or now - (self._scanned_at or 0.0) < _RESCAN_S):
                return [] if rescan else [self._main, *self._others]
            self._scanned_at = now
            known = {self._path, *self._others}
            found = sorted(
                path for path in self._shards.glob(f"*{SHARD_SUFFIX}") if path not in known
            )
            self._others.extend(found)
            return found if rescan else [self._main, *self._others]

    def _read(self, path: Path, key: str) -> CachedCall | None:
        readers: dict[Path, _Connection] = self._readers_local.__dict__.setdefault(
            "connections", {}
        )
        try:
            connection = readers.get(path)
            if connection is None:
                if not path.exists():
                    return None
                connection = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro",
                    uri=True,
                    timeout=_BUSY_TIMEOUT_MS / 1000,
                    check_same_thread=False,  # only close() touches it from another thread
                    factory=_Connection,
                )
                readers[path] = connection
                with self._lock:
                    self._readers.add(connection)
            row = connection.execute(_SELECT, (key,)).fetchone()
        except sqlite3.Error as error:
            stale = readers.pop(path, None)
            if stale is not None:
                stale.close()
            if getattr(error, "sqlite_errorname", None) == "SQLITE_READONLY_ROLLBACK":
                # Its owner died mid-write and has not reopened it yet.
                row = self._read_recovered(path, key)
            else:
                # A shard still being created: it is read again next time. Ask the model.
                logger.debug("judge cache shard %s not readable (%s)", path, error)
                return None
        if row is None:
            return None
        value, raw_reply, prompt_tokens, completion_tokens, cost = row
        usage = (
            None
            if prompt_tokens is None and completion_tokens is None
            else Usage(prompt_tokens or 0, completion_tokens or 0)
        )
        return CachedCall(json.loads(value), raw_reply, usage, cost)

    def _read_recovered(self, path: Path, key: str) -> tuple[Any, ...] | None:
        """Read ``key`` from a rolled-back private copy of a shard left with a hot journal."""
        journal = path.with_name(path.name + "-journal")
        try:
            with self._recover_lock:
                stats = (path.stat(), journal.stat())
                signature = tuple(n for st in stats for n in (st.st_mtime_ns, st.st_size))
                known = self._recovered.get(path)
                if known is None or known[0] != signature:
                    if known is not None:
                        shutil.rmtree(known[1].parent, ignore_errors=True)
                    folder = Path(tempfile.mkdtemp(prefix="evaltoolkit-shard-"))
                    copy = folder / path.name
                    shutil.copyfile(path, copy)
                    shutil.copyfile(journal, folder / journal.name)
                    self._recovered[path] = (signature, copy)
                    logger.debug("judge cache shard %s has a hot journal; reading a copy", path)
                copy = self._recovered[path][1]
            # Opened read-write, the copy rolls its journal back on the first read.
            with contextlib.closing(sqlite3.connect(copy, timeout=_BUSY_TIMEOUT_MS / 1000)) as db:
                row: tuple[Any, ...] | None = db.execute(_SELECT, (key,)).fetchone()
            return row
        except (OSError, sqlite3.Error) as error:
            # The owner came back and rolled it back meanwhile, or the copy failed: the shard
            # is read again next time. Ask the model.
            logger.debug("judge cache shard %s not readable (%s)", path, error)
            return None

    def close(self) -> None:
        """Close every connection: to this shard, and the read-only ones to the others."""
        with self._lock:
            readers = list(self._readers)
            self._readers = weakref.WeakSet()
        for connection in readers:
            connection.close()
        self._readers_local = threading.local()
        with self._recover_lock:
            for _, copy in self._recovered.values():
                shutil.rmtree(copy.parent, ignore_errors=True)
            self._recovered.clear()
        super().close()


def _merge_shard(connection: sqlite3.Connection, path: Path) -> int | str:
    """Copy a shard's calls into the cache: how many were added, or what damaged it."""
    try:
        connection.execute("ATTACH DATABASE ? AS shard", (str(path),))
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        return str(error)
    try:
        problem = _integrity_problem(connection, "shard.quick_check")
        if problem is not None:
            return problem
        before = connection.total_changes
        connection.execute(
            f"INSERT OR IGNORE INTO judge_calls ({_COLUMNS}) "
            f"SELECT {_COLUMNS} FROM shard.judge_calls"
        )
        added = connection.total_changes - before
        connection.execute(_MIGRATION_SQL[-1])  # each new entry's last use and size
        return added
    finally:
        connection.execute("DETACH DATABASE shard")


@contextlib.contextmanager
def cache_shard(shard: str) -> Iterator[None]:
    """Inside this block, judge caches opened (or unpickled) open their shard ``shard``.

    Example:
        >>> import pickle, tempfile
        >>> cache = JudgeCache(tempfile.mkdtemp())
        >>> with cache_shard("worker-1"):
        ...     on_worker = pickle.loads(pickle.dumps(cache))
        >>> type(on_worker).__name__, on_worker.path.name
        ('ShardedJudgeCache', 'worker-1.sqlite3')
        >>> on_worker.close(); cache.close()
    """

    def open_shard(location: str | Path | None, max_bytes: int | _Unset | None) -> JudgeCache:
        return ShardedJudgeCache(location, shard=shard, max_bytes=max_bytes)

    with scoped(cache_opener=open_shard):
        yield


def merge_cache_shards(location: str | Path | None = None, *, remove: bool = True) -> int:
    """Copy the workers' shards into the cache file; run it when no cluster job is running.

    A cluster job writes its judge calls to one shard per worker (see the module docstring).
    Runs on the cluster read the shards; merging makes them visible to runs that do not use a
    cluster, such as a notebook on the same file system.

    Args:
        location: The cache directory or file (default: :func:`default_cache_dir`).
        remove: Delete each shard once it is merged.

    Returns:
        How many calls were added (calls the file already had are kept as they are).

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> shard = ShardedJudgeCache(folder, shard="w0")
        >>> shard.put("k", model="m", step="s", value={"a": 1}, raw_reply=None)
        >>> shard.close()
        >>> merge_cache_shards(folder)
        1
        >>> JudgeCache(folder).get("k").value
        {'a': 1}
    """
    cache_file = cache_file_path(location)
    folder = shard_dir(cache_file)
    shards = sorted(folder.glob(f"*{SHARD_SUFFIX}")) if folder.is_dir() else []
    if not shards:
        return 0
    cache = JudgeCache(cache_file)
    added = 0
    try:
        connection = cache._connection()
        for path in shards:
            outcome = _merge_shard(connection, path)
            if isinstance(outcome, str):
                # Kept for inspection, renamed so that no worker reads it as a shard again.
                repair = CacheRepair(path, move_damaged_file(path), outcome)
                warnings.warn(str(repair), RuntimeWarning, stacklevel=2)
                continue
            added += outcome
            if remove:
                for leftover in (path, path.with_name(path.name + "-journal")):
                    leftover.unlink(missing_ok=True)
        cache._enforce_bound()
    finally:
        cache.close()
    if remove:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return added
