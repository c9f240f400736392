"""Writing files safely: all at once or not at all, and never over the file being read.

Standard library only, so that every layer may use it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Callable
from pathlib import Path

__all__ = ["atomic_write", "check_writable", "missing_file_message", "same_file"]


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

    Args:
        path: The file to write.
        write: Writes the content to the path it is given.

    Returns:
        The path written (``path``, or the file a link at ``path`` points to).

    Example:
        >>> import tempfile
        >>> target = Path(tempfile.mkdtemp()) / "a.txt"
        >>> atomic_write(target, lambda tmp: tmp.write_text("hello")).read_text()
        'hello'
    """
    target = Path(path)
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
    permission bits do not show (``/proc``, a read-only mount, a folder owned by root).

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
