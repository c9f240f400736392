"""Texts quoted in a reason: the first few, and how many more."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["quoted"]

_LISTED = 3


def quoted(texts: Sequence[str]) -> str:
    """The first three texts, each in double quotes, and how many more there are.

    Example:
        >>> quoted(["a", "b", "c", "d"])
        '"a"; "b"; "c" and 1 more'
    """
    shown = "; ".join(f'"{text}"' for text in texts[:_LISTED])
    more = len(texts) - _LISTED
    return shown + (f" and {more} more" if more > 0 else "")
