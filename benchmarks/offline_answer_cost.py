"""Time the offline answer-similarity judge on long answers, and its refusal of oversized ones.

Each case scores an answer against a ground truth holding the same words in another order
(seeded), in a fresh child process so that its peak memory is its own:

- ``words-N``: both steps (``extract_units`` then ``analyze_units``) on N-word texts;
- ``pair-1MB``: the answer-similarity scorer with the offline judge, on an answer and a ground
  truth of 500,000 characters each, with the time of each judge step;
- ``scorer-1MB``: the same on texts of 1,000,000 characters each;
- ``scorer-10MB``: the same with 10,000,000 characters each, over the documented limit
  (``MAX_TEXT_CHARS``): how long the item takes to fail, and its error.

Two shapes of text: ``run-on`` (distinct made-up words without punctuation: every word is new
and the text is one long clause, the worst case) and ``prose`` (words of the project's demo
texts with their punctuation, so sentences and clauses). Seconds are wall time and CPU time
of the child; on a shared machine the CPU time is the steadier figure.

Usage::

    python benchmarks/offline_answer_cost.py [--cases words-250,scorer-1MB] [--shape run-on]
        [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import string
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEMO = Path(__file__).resolve().parent.parent / "data"
CASES = (
    "words-250",
    "words-500",
    "words-1000",
    "words-4000",
    "pair-1MB",
    "scorer-1MB",
    "scorer-10MB",
)
SHAPES = ("run-on", "prose")
QUESTION = "What happened?"


def _demo_words() -> list[str]:
    texts: list[str] = []
    for path in sorted(DEMO.glob("demo_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                texts.extend(str(value) for value in row.values() if isinstance(value, str))
    return [word for text in texts for word in text.split() if re.search(r"\w", word)]


def make_pair(shape: str, *, words: int = 0, chars: int = 0, seed: int = 0) -> tuple[str, str]:
    """An answer of ``words`` words (or about ``chars`` characters) and the same words shuffled.

    Args:
        shape: ``"run-on"`` or ``"prose"`` (see the module docstring).
        words: How many words, when given.
        chars: Otherwise, how many characters, at least.
        seed: The random seed.

    Returns:
        The answer and the ground truth.

    Example:
        >>> answer, truth = make_pair("run-on", words=5)
        >>> sorted(answer.split()) == sorted(truth.split())
        True
    """
    generator = random.Random(seed)
    vocabulary = _demo_words() if shape == "prose" else []
    chosen: list[str] = []
    length = 0
    while (words and len(chosen) < words) or (not words and length < chars):
        if vocabulary:
            word = generator.choice(vocabulary)
        else:
            size = generator.randint(3, 10)
            word = "".join(generator.choice(string.ascii_lowercase) for _ in range(size))
        chosen.append(word)
        length += len(word) + 1
    shuffled = list(chosen)
    generator.shuffle(shuffled)
    return " ".join(chosen), " ".join(shuffled)


def _cpu_seconds() -> float:
    """CPU time of this process, every thread included (the scorer runs steps in a thread)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _both_steps(answer: str, truth: str) -> dict[str, Any]:
    from evaltoolkit.scorers.answer_similarity import analyze_units, extract_units

    started, cpu = time.perf_counter(), _cpu_seconds()
    units = extract_units(answer, truth, QUESTION)
    extract_s = time.perf_counter() - started
    analysis = analyze_units(units["output_units"], units["ground_truth_units"], question=QUESTION)
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": _cpu_seconds() - cpu,
        "extract_seconds": extract_s,
        "units": [len(units["output_units"]), len(units["ground_truth_units"])],
        "match_types": sorted({m["match_type"] for m in analysis["matches"]}),
    }


def _through_scorer(answer: str, truth: str) -> dict[str, Any]:
    import evaltoolkit as et

    scorer = et.create_answer_similarity_scorer()
    started, cpu = time.perf_counter(), _cpu_seconds()
    result = scorer.run(input=QUESTION, output=answer, ground_truth=truth)
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": _cpu_seconds() - cpu,
        "score": result.score,
        "steps": {call.step: round(call.latency_s or 0.0, 2) for call in result.calls},
        "error": None if result.error is None else f"{result.error.kind}: {result.error.message}",
    }


def run_case(case: str, shape: str) -> dict[str, Any]:
    """Run one case in this process and return its figures.

    Args:
        case: One of :data:`CASES`.
        shape: One of :data:`SHAPES`.

    Returns:
        Seconds, CPU seconds, peak memory (MiB) and what the case produced.
    """
    if case.startswith("words-"):
        answer, truth = make_pair(shape, words=int(case.removeprefix("words-")))
        figures = _both_steps(answer, truth)
    else:
        kind, _, size = case.partition("-")
        chars = int(float(size.removesuffix("MB")) * 1_000_000) // (2 if kind == "pair" else 1)
        answer, truth = make_pair(shape, chars=chars)
        figures = _through_scorer(answer[:chars], truth[:chars])
    figures["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def _in_child(case: str, shape: str, timeout: float | None) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", case, "--shape", shape]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"timed_out": timeout}
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1:]}
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _describe(figures: dict[str, Any]) -> str:
    if "timed_out" in figures:
        return f"did not finish in {figures['timed_out']:.0f} s"
    if "failed" in figures:
        return f"failed: {figures['failed']}"
    text = (
        f"{figures['seconds']:7.2f} s wall {figures['cpu_seconds']:7.2f} s CPU "
        f"{figures['peak_mib']:6.0f} MiB peak"
    )
    if "units" in figures:
        text += f"  units {figures['units'][0]}/{figures['units'][1]}"
    if "steps" in figures:
        text += f"  steps {figures['steps']}"
    if figures.get("error"):
        text += f"\n{'':>24}error: {figures['error']}"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    parser.add_argument("--shape", default="both", choices=[*SHAPES, "both"])
    parser.add_argument("--timeout", type=float, default=None, help="seconds per case")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_case(args.child, args.shape)))
        return 0
    shapes = SHAPES if args.shape == "both" else (args.shape,)
    for shape in shapes:
        print(f"{shape}:")
        for case in args.cases.split(","):
            print(f"  {case:<20} {_describe(_in_child(case, shape, args.timeout))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
