"""Time and memory of the offline summarization judge as the texts grow.

For sources of 1k, 4k, 16k and 64k words and of 1 MB, each step of the offline judge
(``judge_source`` then ``judge_coverage``) is run in a fresh process, twice: with a short
summary (the source's first three sentences) and with a summary that grows with the source
(every twentieth sentence). It prints the seconds, the ratio to the size four times smaller
(near-linear cost keeps it near 4, and under about 6), and the process's peak memory. Last, a
source just over the size limit (``MAX_SOURCE_CHARS``) shows the per-item error that replaces
a long wait.

The text is built from the benchmark sources in ``../shared/benchmarks`` when they are at hand
(natural news text), else from the demo data repeated.

Usage::

    python benchmarks/offline_summarization_cost.py [--benchmarks DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES: tuple[tuple[str, int], ...] = (
    ("1k words", 1_000),
    ("4k words", 4_000),
    ("16k words", 16_000),
    ("64k words", 64_000),
    ("1 MB", -1_000_000),  # negative: a size in characters
)


def corpus(folder: Path | None) -> str:
    """Natural text to cut sources from: benchmark sources, else the demo sources."""
    sources: list[str] = []
    if folder is not None:
        for name in ("realsumm_dev.jsonl", "newsroom_dev.jsonl", "summeval_dev.jsonl"):
            path = folder / name
            if path.exists():
                with path.open(encoding="utf-8") as handle:
                    sources += [json.loads(line)["source"] for line in handle if line.strip()]
    if not sources:
        with (ROOT / "data" / "demo_summaries.jsonl").open(encoding="utf-8") as handle:
            sources = [json.loads(line)["input"] for line in handle if line.strip()]
    return " ".join(dict.fromkeys(sources))


def make_source(text: str, size: int) -> str:
    """A source of ``size`` words (or ``-size`` characters), repeating the corpus if needed."""
    words = text.split()
    if size > 0:
        return " ".join((words * (size // len(words) + 1))[:size])
    repeated = (text + " ") * (-size // len(text) + 1)
    return repeated[:-size].rsplit(" ", 1)[0]


def measure_one(size: int, summary_kind: str, folder: str) -> None:
    """Child process: judge one source and print seconds and peak memory as JSON."""
    from evaltoolkit.scorers._language._text import split_sentences
    from evaltoolkit.scorers.summarization import judge_coverage, judge_source

    source = make_source(corpus(Path(folder) if folder else None), size)
    sentences = split_sentences(source)
    summary = " ".join(sentences[:3] if summary_kind == "short" else sentences[::20])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    step1 = judge_source(source, summary, 10)
    judge_coverage(summary, step1["questions"])
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak_mb": peak / 1024,
                "added_mb": (peak - before) / 1024,
                "chars": len(source),
                "summary_words": len(summary.split()),
            }
        )
    )


def run_child(size: int, summary_kind: str, folder: Path | None) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", str(size), summary_kind, str(folder or "")]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    return result


def over_limit(folder: Path | None) -> str:
    from evaltoolkit.errors import InputError
    from evaltoolkit.scorers.summarization import MAX_SOURCE_CHARS, judge_source

    source = make_source(corpus(folder), -(MAX_SOURCE_CHARS + 1000))
    started = time.perf_counter()
    try:
        judge_source(source, "A summary.", 10)
    except InputError as error:
        return f"{time.perf_counter() - started:.3f} s to refuse it: InputError({error})"
    return "NOT refused"


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["--child"]:
        measure_one(int(arguments[1]), arguments[2], arguments[3])
        return 0
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--benchmarks", type=Path, default=None, help="the benchmark folder")
    args = parser.parse_args(arguments)
    from evaltoolkit.meta import find_benchmarks

    folder = args.benchmarks or find_benchmarks()
    print("Offline summarization judge: judge_source + judge_coverage, one fresh process each")
    print(
        f"  {'source':<11}{'chars':>10}  {'short summary: s':>17}{'x4 ratio':>9}{'peak MB':>9}"
        f"  {'growing summary: s':>19}{'words':>7}{'x4 ratio':>9}{'peak MB':>9}"
    )
    previous: dict[str, float] = {}
    for name, size in SIZES:
        short = run_child(size, "short", folder)
        grown = run_child(size, "grow", folder)
        ratios = []
        for kind, result in (("short", short), ("grow", grown)):
            ratio = result["seconds"] / previous[kind] if kind in previous else float("nan")
            ratios.append(f"{ratio:.1f}" if ratio == ratio else "")
            previous[kind] = result["seconds"]
        print(
            f"  {name:<11}{int(short['chars']):>10}  {short['seconds']:>17.2f}{ratios[0]:>9}"
            f"{short['peak_mb']:>9.0f}  {grown['seconds']:>19.2f}"
            f"{int(grown['summary_words']):>7}{ratios[1]:>9}{grown['peak_mb']:>9.0f}"
        )
    print("  (x4 ratio: seconds over those of the size before; 1 MB is about 3x 64k words)")
    print(f"  a source over the limit: {over_limit(folder)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
