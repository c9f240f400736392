"""find_benchmarks: where the human-labelled benchmark files are, when they are at hand."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["find_benchmarks"]

_MARKER = "summeval_dev.jsonl"


def find_benchmarks() -> Path | None:
    """Return the folder of human-labelled benchmark files, or None when it is not at hand.

    Looks at ``$EVALTOOLKIT_BENCHMARKS``, then ``shared/benchmarks`` beside the repository
    this package was installed from, then ``../shared/benchmarks`` and
    ``../../shared/benchmarks`` from the working directory (a notebook runs in
    ``notebooks/``).

    Example:
        >>> folder = find_benchmarks()
        >>> folder is None or (folder / "summeval_dev.jsonl").is_file()
        True
    """
    candidates = [
        os.environ.get("EVALTOOLKIT_BENCHMARKS", ""),
        str(Path(__file__).resolve().parents[3] / "shared" / "benchmarks"),
        str(Path.cwd().parent / "shared" / "benchmarks"),
        str(Path.cwd().parent.parent / "shared" / "benchmarks"),
    ]
    for candidate in candidates:
        if candidate and (Path(candidate) / _MARKER).is_file():
            return Path(candidate)
    return None
