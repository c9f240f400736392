"""``evaltoolkit cache info|check|prune|clear``: look after the judge cache."""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError

if TYPE_CHECKING:
    pass
from ._common import _HelpFormatter


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.fromtimestamp(timestamp).isoformat(sep=" ", timespec="seconds")


def _open_cache(args: argparse.Namespace) -> Any:
    """The cache named by --cache, or None (with a line saying so) when there is none.

    A damaged file is moved aside on opening, with one warning, and a fresh cache started.
    """
    from ..judge import JudgeCache
    from ..judge._internal import cache_file_path

    path = cache_file_path(args.cache or None)
    if not path.is_file():
        print(f"no judge cache at {path}")
        return None
    return JudgeCache(path, max_bytes=None)


def _print_damaged_copies(copies: list[Path]) -> None:
    if copies:
        size = sum(_size_with_journal(copy) for copy in copies)
        from ..judge._internal import format_bytes

        print(f"damaged copies moved aside: {len(copies)} ({format_bytes(size)})")
        for copy in copies:
            print(f"  {copy}")


def _size_with_journal(path: Path) -> int:
    total = 0
    for suffix in ("", "-wal", "-journal"):
        with contextlib.suppress(OSError):
            total += Path(f"{path}{suffix}").stat().st_size
    return total


def _cache_info(args: argparse.Namespace) -> int:
    from ..judge._internal import format_bytes

    with warnings.catch_warnings(record=True) as on_open:
        warnings.simplefilter("always")
        cache = _open_cache(args)  # which moves a damaged file aside, with a warning
    if cache is None:
        return 0
    # Also on a file too large for the check on opening: the user asked how the cache is.
    repair = cache.check(full=False)
    found = repair or next((str(caught.message) for caught in on_open), None)
    stats = cache.stats()
    from ..judge._internal import max_bytes_from_environment

    bound = max_bytes_from_environment()
    print(f"judge cache: {stats.path}")
    print(f"entries: {stats.entries}")
    print(
        f"bytes: {stats.bytes} ({format_bytes(stats.bytes)} on disk, "
        f"{format_bytes(stats.live_bytes)} in use; "
        f"bound {'none' if bound is None else format_bytes(bound)})"
    )
    print(f"oldest: {_when(stats.oldest)}")
    print(f"newest: {_when(stats.newest)}")
    print(f"quick check: {'ok' if found is None else f'damaged: {found}'}")
    _print_damaged_copies(cache.damaged_copies())
    cache.close()
    return 0


def _cache_check(args: argparse.Namespace) -> int:
    with warnings.catch_warnings(record=True) as on_open:
        warnings.simplefilter("always")
        cache = _open_cache(args)  # which runs the quick check on a file up to 64 MiB
    if cache is None:
        return 0
    repair = cache.check(full=True)
    found = repair or next((str(caught.message) for caught in on_open), None)
    entries = len(cache)
    cache.close()
    if found is None:
        print(f"judge cache {cache.path}: ok ({entries} entries)")
        return 0
    print(f"evaltoolkit: {found}")
    return 1


def _cache_prune(args: argparse.Namespace) -> int:
    from ..judge._internal import format_bytes, parse_duration, parse_size

    if args.max_bytes is None and args.older_than is None:
        raise ConfigurationError("cache prune needs --max-bytes SIZE and/or --older-than AGE")
    try:
        max_bytes = None if args.max_bytes is None else parse_size(args.max_bytes)
        older_than = None if args.older_than is None else parse_duration(args.older_than)
    except ValueError as error:
        raise ConfigurationError(str(error)) from error
    cache = _open_cache(args)
    if cache is None:
        return 0
    report = cache.prune(max_bytes=max_bytes, older_than=older_than)
    cache.vacuum()
    stats = cache.stats()
    print(
        f"removed {report.removed} entries ({format_bytes(report.removed_bytes)}) from "
        f"{stats.path}; {stats.entries} left, {format_bytes(stats.bytes)} on disk"
    )
    cache.close()
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    from ..judge._internal import format_bytes

    if not args.yes and not sys.stdin.isatty():
        raise ConfigurationError(
            "cache clear asks before deleting, and the input is not a terminal: pass --yes "
            "to clear without asking"
        )
    cache = _open_cache(args)
    if cache is None:
        return 0
    stats = cache.stats()
    copies = cache.damaged_copies()
    if not args.yes:
        also = f" and {len(copies)} damaged copies moved aside" if copies else ""
        answer = input(
            f"remove all {stats.entries} entries ({format_bytes(stats.bytes)}) from "
            f"{stats.path}{also}? [y/N] "
        )
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing removed")
            cache.close()
            return 1
    report = cache.clear()
    cache.vacuum()
    print(
        f"removed {report.removed} entries ({format_bytes(stats.bytes)} on disk) from {stats.path}"
    )
    for copy in copies:
        size = _size_with_journal(copy)
        for suffix in ("", "-wal", "-journal"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
        print(f"removed the damaged copy {copy} ({format_bytes(size)})")
    cache.close()
    return 0


def _add_cache_command(commands: Any) -> None:
    cache = commands.add_parser(
        "cache",
        help="look after the judge cache: info, check, prune, clear",
        description="The judge cache keeps every judge reply (sqlite), so reruns and resumed "
        "runs make no model call. It is bounded: past $EVALTOOLKIT_CACHE_MAX_BYTES (default "
        "1 GiB) the least recently used entries are pruned automatically. A damaged file "
        "is moved aside (renamed with the time, never deleted) and a fresh cache started, "
        "with a warning.",
        formatter_class=_HelpFormatter,
    )
    actions = cache.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    location = argparse.ArgumentParser(add_help=False)
    location.add_argument(
        "--cache",
        "--cache-dir",
        dest="cache",
        default=None,
        help="the cache directory or .sqlite3 file (default: $EVALTOOLKIT_CACHE_DIR, else "
        "~/.cache/evaltoolkit)",
    )
    info = actions.add_parser(
        "info", parents=[location], help="entries, bytes, oldest and newest entry"
    )
    info.set_defaults(handler=_cache_info)
    check = actions.add_parser(
        "check",
        parents=[location],
        help="check the file with sqlite's integrity_check; a damaged one is moved aside "
        "(renamed with the time) and a fresh cache started (exit status 1)",
        description="Check the judge cache with sqlite's integrity_check. Exit status 0 when it "
        "is sound; 1 when it was damaged: the file was then renamed "
        "judge-calls.sqlite3.damaged-<UTC time> beside it (never deleted) and a fresh, empty "
        "cache started. Any command that opens a damaged cache does the same, with a warning.",
    )
    check.set_defaults(handler=_cache_check)
    prune = actions.add_parser(
        "prune",
        parents=[location],
        help="remove old or least recently used entries",
        formatter_class=_HelpFormatter,
    )
    prune.add_argument(
        "--max-bytes", default=None, help="keep at most this much (500M, 1G, 2GiB, bytes)"
    )
    prune.add_argument(
        "--older-than", default=None, help="remove entries unused for this long (30d, 12h, 90min)"
    )
    prune.set_defaults(handler=_cache_prune)
    clear = actions.add_parser(
        "clear",
        parents=[location],
        help="remove every entry, and the damaged copies moved aside (asks first; when the "
        "input is not a terminal, as in a script, it needs --yes)",
        description="Remove every entry of the judge cache, and the damaged copies of it that "
        "were moved aside. It asks first when its input is a terminal; when it is not (a "
        "script, a pipe, CI), it deletes nothing and exits with status 2 unless --yes is given.",
    )
    clear.add_argument(
        "--yes", "-y", action="store_true", help="do not ask (needed when input is not a terminal)"
    )
    clear.set_defaults(handler=_cache_clear)


# -- the parser -----------------------------------------------------------------------------
