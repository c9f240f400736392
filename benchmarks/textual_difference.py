"""Time the textual-difference scorer beside difflib on 1k, 10k and 100k-character pairs.

    python benchmarks/textual_difference.py [--repeat 3]

Each pair is a random word text and a copy with about 10% of its words changed. difflib's
SequenceMatcher.ratio() is the classic standard-library alternative (its ratio is not the same
quantity: it uses matching blocks with a junk heuristic, not the LCS). Peak memory at 100k is
measured twice: Python allocations with tracemalloc around one comparison, and the peak resident
memory of a fresh interpreter with and without the comparison (native memory included).
"""

from __future__ import annotations

import argparse
import difflib
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from evaltoolkit.scorers._internal import compare_texts

WORDS = [
    "model",
    "judge",
    "summary",
    "source",
    "claim",
    "question",
    "answer",
    "score",
    "token",
    "river",
    "bridge",
    "council",
    "study",
    "colony",
    "library",
    "strike",
    "volcano",
    "alert",
]


def make_pair(length: int, seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    words: list[str] = []
    while sum(len(word) + 1 for word in words) < length:
        words.append(rng.choice(WORDS))
    changed = [rng.choice(WORDS) if rng.random() < 0.1 else word for word in words]
    return " ".join(words)[:length], " ".join(changed)[:length]


def best_time(function: object, repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()  # type: ignore[operator]
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{'chars':>8} {'evaltoolkit ms':>15} {'difflib ms':>11} {'speed-up':>9} "
        f"{'ratio':>7} {'changes':>8}"
    )
    for length in (1_000, 10_000, 100_000):
        a, b = make_pair(length, seed=length)
        ours = best_time(lambda a=a, b=b: compare_texts(a, b), args.repeat)
        theirs = best_time(
            lambda a=a, b=b: difflib.SequenceMatcher(None, a, b, autojunk=False).ratio(),
            1 if length >= 100_000 else args.repeat,
        )
        difference = compare_texts(a, b)
        print(
            f"{length:>8} {ours * 1000:>15.3f} {theirs * 1000:>11.1f} {theirs / ours:>8.0f}x "
            f"{difference.ratio:>7.4f} {difference.changes:>8}"
        )
    a, b = make_pair(100_000, seed=100_000)
    tracemalloc.start()
    compare_texts(a, b)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"100k pair: peak Python allocations {peak / 1e6:.2f} MB (tracemalloc); "
        f"process peak RSS {peak_rss_mb(100_000, compare=True):.1f} MB, "
        f"{peak_rss_mb(100_000, compare=False):.1f} MB without the comparison"
    )


def peak_rss_mb(length: int, *, compare: bool) -> float:
    """Peak resident memory of a fresh interpreter that builds one pair (and compares it)."""
    probe = (
        "import resource, sys; sys.path.insert(0, {here!r}); "
        "from textual_difference import make_pair; from evaltoolkit.scorers import compare_texts; "
        "a, b = make_pair({length}, seed={length}); {action}; "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    ).format(
        here=str(Path(__file__).resolve().parent),
        length=length,
        action="compare_texts(a, b)" if compare else "None",
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return int(completed.stdout.strip()) / 1024  # ru_maxrss is in KiB on Linux


if __name__ == "__main__":
    main()
