"""Time ``compare_runs`` on two runs of 20,000 items with 1,000 bootstrap resamples.

The target is under 5 s on 2 cores for the whole call (pairing by id, the three
summarization score columns, scipy's bootstrap and Wilcoxon test), and the same with the
interval resampling documents (4 summaries per document)::

    python benchmarks/compare_runs_cost.py [--items 20000] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from evaltoolkit.meta import compare_runs
from evaltoolkit.records import EvalResult, ItemResult, ScoreResult


def _run(alignment: np.ndarray, coverage: np.ndarray) -> EvalResult:
    items = [
        ItemResult(
            item_id=f"doc{index // 4}/sys{index % 4}",
            index=index,
            input=f"source of document {index // 4}",
            output="summary",
            fields={"doc_id": index // 4},
            scorer_results={
                "summarization": ScoreResult(
                    scorer="summarization",
                    score=float(min(a, c)),
                    details={"alignment_score": float(a), "coverage_score": float(c)},
                )
            },
        )
        for index, (a, c) in enumerate(zip(alignment, coverage, strict=True))
    ]
    return EvalResult(items=items, scorer_ids=["summarization"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--resamples", type=int, default=1_000)
    options = parser.parse_args()
    generator = np.random.default_rng(0)
    alignment, coverage = generator.random(options.items), generator.random(options.items)
    first = _run(alignment, coverage)
    second = _run(
        np.clip(alignment + generator.normal(0.01, 0.1, options.items), 0, 1),
        np.clip(coverage + generator.normal(-0.01, 0.1, options.items), 0, 1),
    )
    compare_runs(first, second, n_bootstrap=10)  # imports scipy before the clock starts
    for group in (None, "doc_id"):
        start = time.perf_counter()
        table = compare_runs(first, second, n_bootstrap=options.resamples, group=group)
        elapsed = time.perf_counter() - start
        size = f"{options.items} items, {options.resamples} resamples"
        print(f"group={group}: {elapsed:.2f} s for {size}")
        print(table[["score", "difference", "ci_low", "ci_high", "p_value", "n_pairs"]].to_string())


if __name__ == "__main__":
    main()
