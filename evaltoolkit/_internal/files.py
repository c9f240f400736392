"""Writing files safely: all at once or not at all, and never over the file being read.

Standard library only (and the toolkit's errors), so that every layer may use it.

A file is written beside its target and renamed onto it. A rename would replace a FIFO, a
device node or a socket with a regular file (the reader of the pipe gets nothing; run as
root, ``/dev/full`` becomes a CSV), so such a target is refused, naming it, rather than
written through: a half-written stream cannot be taken back when the writing fails, and
``--out`` promises a whole file or none.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from ..errors import ConfigurationError

__all__ = [
    "atomic_write",
    "check_writable",
    "missing_file_message",
    "not_a_regular_file",
    "same_file",
]

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_a_regular_file(path: str | os.PathLike[str], mode: int) -> str | None:
    """Why a file of this mode may not be written over, or None for a regular file.

    Example:
        >>> not_a_regular_file("out.csv", stat.S_IFREG | 0o644) is None
        True
        >>> not_a_regular_file("out.csv", stat.S_IFIFO | 0o644).split(";")[0]
        "'out.csv' is a FIFO (named pipe), not a regular file"
    """
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return (
        f"{str(path)!r} is {kind}, not a regular file; results are written whole and renamed "
        "into place, which would replace it: name a regular file (and copy it to the pipe "
        "or device afterwards if need be)"
    )


def _special_file_problem(path: str | os.PathLike[str]) -> str | None:
    """The problem with writing over ``path`` (followed through links), if it is special."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # missing (or a dangling link): a new regular file is made
        return None
    return not_a_regular_file(path, mode)


def _temporary_sibling(target: Path) -> Path:
    """Create an empty file next to ``target`` (same folder, so a rename is atomic)."""
    for _ in range(100):
        candidate = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            # 0o666 filtered by the umask: the same mode an ordinary write would give.
            descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(descriptor)
        return candidate
    raise FileExistsError(f"cannot create a temporary file next to {target}")


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], object]) -> Path:
    """Write a file through a temporary sibling and rename it into place.

    ``write`` is called with the temporary path and must write the whole file there. Only
    when it returns is the file renamed onto ``path`` (``os.replace``), so a reader never
    sees half a file, and an error or an interrupt leaves any earlier file at ``path`` as it
    was. A symbolic link at ``path`` is written through, not replaced. Missing parent
    folders are created (again, when one was deleted while the content was being made).
    A FIFO, a device or a socket at ``path`` (or at the end of a link) is refused.

    Args:
        path: The file to write.
        write: Writes the content to the path it is given.

    Returns:
        The path written (``path``, or the file a link at ``path`` points to).

    Raises:
        ConfigurationError: ``path`` is a FIFO, a device or a socket, or a link to one.

    Example:
        >>> import tempfile
        >>> target = Path(tempfile.mkdtemp()) / "a.txt"
        >>> atomic_write(target, lambda tmp: tmp.write_text("hello")).read_text()
        'hello'
    """
    target = Path(path)
    special = _special_file_problem(target)
    if special is not None:
        raise ConfigurationError(special)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    # The folder may have gone since the run began (deleted by hand): make it again rather
    # than lose what is being written.
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary_sibling(target)
    try:
        write(temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return target


def missing_file_message(path: str | os.PathLike[str], *, what: str = "file") -> str:
    """Why ``path``, which does not exist as far as ``Path.exists`` can tell, cannot be opened.

    A symbolic link that leads back to itself, or to a file that is not there, says so
    (``Path.exists`` reports both as missing); anything else is "no such file".

    Example:
        >>> missing_file_message("nowhere.jsonl")
        "no such file: 'nowhere.jsonl'"
    """
    name = str(path)
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return (
                f"{name!r} is a symbolic link loop (it leads back to itself); point the link "
                f"at the {what}"
            )
        if os.path.islink(path):
            target = os.readlink(path)
            return f"{name!r} is a symbolic link to {target!r}, which does not exist"
    return f"no such {what}: {name!r}"


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file: same resolved path, or same inode (hard links).

    Example:
        >>> same_file("a/../b.txt", "b.txt")
        True
    """
    first, second = Path(a), Path(b)
    try:
        if first.exists() and second.exists():
            return os.path.samefile(first, second)
    except OSError:
        pass
    return first.resolve() == second.resolve()


def _first_existing(path: Path) -> Path:
    current = path
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def check_writable(path: str | os.PathLike[str], *, create_parents: bool = True) -> str | None:
    """Check, before any work, that a file can be written at ``path``.

    Creates the missing parent folders (when ``create_parents``) and writes and removes an
    empty probe file beside ``path``, which catches read-only and pseudo file systems that
    permission bits do not show (``/proc``, a read-only mount, a folder owned by root). A
    FIFO, a device or a socket at ``path`` is refused before any probe is written.

    Args:
        path: The file that will be written.
        create_parents: Create missing parent folders now.

    Returns:
        None when the file can be written, else a sentence saying why not.

    Example:
        >>> import tempfile
        >>> check_writable(Path(tempfile.mkdtemp()) / "new" / "out.csv") is None
        True
    """
    target = Path(path)
    if target.is_dir():
        return f"{str(target)!r} is a folder; name a file"
    special = _special_file_problem(target)
    if special is not None:
        return special
    ancestor = _first_existing(target.parent)
    if not ancestor.is_dir():
        return f"{str(ancestor)!r} is a file, not a folder, so {str(target)!r} cannot be written"
    try:
        if create_parents:
            target.parent.mkdir(parents=True, exist_ok=True)
        folder = target.parent if target.parent.exists() else ancestor
        probe = _temporary_sibling(folder / target.name)
        probe.unlink()
    except OSError as error:
        reason = error.strerror or str(error)
        return f"cannot write {str(target)!r}: {reason}"
    return None
