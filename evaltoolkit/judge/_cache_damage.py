"""A damaged judge cache file: telling damage from other errors, checking, moving it aside."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["CacheRepair", "is_damage", "move_damaged_file"]

# A damaged file is renamed to <name><this><UTC time>; the glob finds the copies again.
_DAMAGED_MARK: Final = ".damaged-"
# sqlite's result codes for a damaged file (a short read: a file cut short).
_DAMAGE_CODES: Final = ("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_IOERR_SHORT_READ")


@dataclass(frozen=True, slots=True)
class CacheRepair:
    """A damaged cache file that was moved aside, and a fresh cache started in its place.

    Attributes:
        path: The cache file (now the fresh one).
        moved_to: Where the damaged file went (its write-ahead log beside it, ``-wal``).
        problem: What sqlite said about it.
    """

    path: Path
    moved_to: Path
    problem: str

    def __str__(self) -> str:
        return (
            f"the judge cache {self.path} was damaged ({self.problem}); moved it to "
            f"{self.moved_to} and started a fresh cache: the calls it held will be made again "
            "(delete the damaged copy when you no longer need it)"
        )


def is_damage(error: BaseException) -> bool:
    """Whether a sqlite error says the file is damaged (not busy, locked or unwritable)."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    name = getattr(error, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(_DAMAGE_CODES)
    text = str(error)
    return "malformed" in text or "not a database" in text


def _integrity_problem(connection: sqlite3.Connection, pragma: str) -> str | None:
    """What ``PRAGMA quick_check``/``integrity_check`` finds wrong, None when nothing."""
    try:
        rows = connection.execute(f"PRAGMA {pragma}(3)").fetchall()
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        return str(error)
    messages = [str(row[0]) for row in rows]
    if messages == ["ok"]:
        return None
    lines = [line for text in messages for line in text.splitlines()]
    return "; ".join(line for line in lines if line and not line.startswith("***"))


def move_damaged_file(path: Path) -> Path:
    """Rename a damaged sqlite file and its journal to ``<name>.damaged-<UTC time>``.

    Its shared-memory index (``-shm``), rebuilt from the log whenever needed, is removed.

    Raises:
        FileNotFoundError: The file is gone (another process moved it first).
        OSError: It cannot be renamed.
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}{_DAMAGED_MARK}{stamp}")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}{_DAMAGED_MARK}{stamp}-{number}")
    os.replace(path, target)
    for journal in ("-wal", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{journal}", f"{target}{journal}")
    with contextlib.suppress(FileNotFoundError):
        os.remove(f"{path}-shm")
    return target


def _file_identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _signature(path: Path) -> tuple[int, ...] | None:
    """The identity, size and time of change of a file and its write-ahead log."""
    numbers: list[int] = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(f"{path}{suffix}")
        except OSError:
            if not suffix:
                return None
            st = None
        if st is None or (suffix and not st.st_size):  # an empty log is no log
            numbers.extend((0, 0, 0, 0))
        else:
            numbers.extend((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(numbers)
