"""Time the textual-difference scorer beside difflib on 1k, 10k and 100k-character pairs.

    python benchmarks/textual_difference.py [--repeat 3]

Each pair is a random word text and a copy with about 10% of its words changed. difflib's
SequenceMatcher.ratio() is the classic standard-library alternative (its ratio is not the same
quantity: it uses matching blocks with a junk heuristic, not the LCS). Peak memory at 100k is
measured with tracemalloc around one comparison.
"""

from __future__ import annotations

import argparse
import difflib
import random
import time
import tracemalloc

from evaltoolkit.scorers import compare_texts

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
        f"{'chars':>8} {'evaltoolkit s':>14} {'difflib s':>10} {'speed-up':>9} "
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
            f"{length:>8} {ours:>14.4f} {theirs:>10.4f} {theirs / ours:>8.0f}x "
            f"{difference.ratio:>7.4f} {difference.changes:>8}"
        )
    a, b = make_pair(100_000, seed=100_000)
    tracemalloc.start()
    compare_texts(a, b)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"peak Python memory of one 100k comparison: {peak / 1e6:.2f} MB "
        f"(the two inputs: {2 * len(a) / 1e6:.1f} MB)"
    )


if __name__ == "__main__":
    main()
