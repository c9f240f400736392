"""Which repeat of a run is being scored, for measuring a judge's repeatability.

A run scored several times asks every step again with a repeat index: the judge caches each
repeat under its own key (repeat 3 stays repeat 3, and a rerun costs nothing) and, where a
sampling seed is set, sends ``seed + repeat`` so that providers honouring seeds draw a
distinct sample. The index travels with the task (a context variable), so the runner and the
scorers between the caller and the judge need no option for it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from ..errors import ConfigurationError

__all__ = ["current_repeat", "scoring_repeat"]

_REPEAT: contextvars.ContextVar[int] = contextvars.ContextVar("evaltoolkit_repeat", default=0)


def current_repeat() -> int:
    """The repeat being scored in this task: 0 outside :func:`scoring_repeat`.

    Example:
        >>> current_repeat()
        0
    """
    return _REPEAT.get()


@contextlib.contextmanager
def scoring_repeat(index: int) -> Iterator[None]:
    """Score repeat ``index`` inside this block (judge requests made here carry it).

    Example:
        >>> with scoring_repeat(3):
        ...     current_repeat()
        3
    """
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ConfigurationError(f"a repeat index is a non-negative integer, got {index!r}")
    token = _REPEAT.set(index)
    try:
        yield
    finally:
        _REPEAT.reset(token)
