"""Sizes and durations as people write them (``500M``, ``30d``) and byte counts for people."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

__all__ = ["format_bytes", "parse_duration", "parse_size"]

_SIZE_UNITS: Final = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "kib": 1 << 10,
    "m": 1000**2,
    "mb": 1000**2,
    "mib": 1 << 20,
    "g": 1000**3,
    "gb": 1000**3,
    "gib": 1 << 30,
    "t": 1000**4,
    "tb": 1000**4,
    "tib": 1 << 40,
}
_DURATION_UNITS: Final = {"": 1, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_size(text: str) -> int:
    """Bytes from a size such as ``"500M"``, ``"1GiB"``, ``"2.5 GB"`` or ``"1048576"``.

    Decimal units (k, M, G, T, with or without B) are powers of 1000; KiB, MiB, GiB and TiB
    are powers of 1024.

    Raises:
        ValueError: The text is not a size.

    Example:
        >>> parse_size("500M"), parse_size("1GiB"), parse_size("12")
        (500000000, 1073741824, 12)
    """
    return int(_quantity(text, _SIZE_UNITS, "a size", "500M, 1G, 2GiB or a byte count"))


def parse_duration(text: str) -> float:
    """Seconds from a duration such as ``"30d"``, ``"12h"``, ``"90min"``, ``"2w"`` or ``"45"``.

    Raises:
        ValueError: The text is not a duration.

    Example:
        >>> parse_duration("30d"), parse_duration("1.5h"), parse_duration("45")
        (2592000.0, 5400.0, 45.0)
    """
    return _quantity(
        text, _DURATION_UNITS, "a duration", "30d, 12h, 90min, 2w or a number of seconds"
    )


def _quantity(text: str, units: Mapping[str, float], what: str, examples: str) -> float:
    """A number with an optional unit from ``units`` (case-insensitive), times that unit."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([a-zA-Z]*)\s*", text)
    if match is None or match.group(2).lower() not in units:
        raise ValueError(f"not {what}: {text!r}; write it as {examples}")
    return float(match.group(1)) * units[match.group(2).lower()]


def format_bytes(count: float) -> str:
    """A byte count for people: ``"512 B"``, ``"1.5 MiB"``.

    Example:
        >>> format_bytes(512), format_bytes(1536 * 1024)
        ('512 B', '1.5 MiB')
    """
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(count) < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")
