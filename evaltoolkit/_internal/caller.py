"""Warnings that point at the user's line, not at the toolkit's.

A warning raised deep in a run (loading items inside ``run_evals``, inside the event loop the
blocking twin runs, maybe on the worker thread a Jupyter cell's run uses) would otherwise name
a line of the toolkit, or of asyncio, as its place: the user cannot tell which of their calls
it is about.
"""

from __future__ import annotations

import sys
import threading
import warnings
from types import FrameType

__all__ = ["CALLER_THREAD", "warn_at_caller"]

#: The attribute of a worker thread that runs a blocking call for another thread (see
#: :func:`evaltoolkit._internal.sync.run_sync`): the ident of the thread that waits for it.
CALLER_THREAD = "evaltoolkit_caller_thread"

# Modules whose frames stand between a user's call and the code that warns.
_PASSED_THROUGH = ("evaltoolkit", "asyncio", "concurrent", "contextlib", "functools", "threading")


def _passed_through(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in _PASSED_THROUGH)


def _outside(frame: FrameType | None) -> FrameType | None:
    while frame is not None and _passed_through(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
    return frame


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the nearest line outside the toolkit (and the event loop) that led here.

    On a worker thread that runs a blocking call for another thread, the line is looked for
    in the waiting thread. Where there is none (the command line), the warning names the line
    that called this function.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warn_at_caller("mind the gap")
        >>> str(caught[0].message), caught[0].category.__name__
        ('mind the gap', 'UserWarning')
    """
    frame = _outside(sys._getframe(1))
    waiting = getattr(threading.current_thread(), CALLER_THREAD, None)
    if frame is None and waiting is not None:
        frame = _outside(sys._current_frames().get(waiting))
    if frame is None:
        warnings.warn(message, category, stacklevel=2)
        return
    module_globals = frame.f_globals
    warnings.warn_explicit(
        message,
        category,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=module_globals.get("__name__"),
        registry=module_globals.setdefault("__warningregistry__", {}),
        module_globals=module_globals,
    )
