"""Meta-evaluation: how far a judge agrees with human labels.

:func:`agreement` computes correlations (pooled and per group), AUROC, accuracy and F1 for
binary labels, with seeded bootstrap intervals. :func:`meta_evaluate` scores a labelled file
with one judge; :func:`compare_judges` scores it with several and ranks them in a
leaderboard. :func:`compare_scores` and :func:`agreement_change` say what a change to a judge
(its prompts, its offline settings) did to the scores and to agreement. The loaders read
labelled files into the standard scoring layout (``item_id``,
``input``, ``output``, ``ground_truth``).
"""

from __future__ import annotations

import os
from pathlib import Path

from ._agreement import agreement
from ._change import AGREEMENT_METRICS, agreement_change, check_label_name, compare_scores
from ._compare import (
    JudgeComparison,
    acompare_judges,
    ajudge_comparison,
    compare_judges,
    judge_comparison,
)
from ._evaluate import ANSWER_THRESHOLD, MetaEvaluation, ameta_evaluate, meta_evaluate
from ._loaders import load_qa_equivalence, load_sentence_pairs, load_summeval, load_table

__all__ = [
    "AGREEMENT_METRICS",
    "ANSWER_THRESHOLD",
    "JudgeComparison",
    "MetaEvaluation",
    "acompare_judges",
    "agreement",
    "agreement_change",
    "ajudge_comparison",
    "ameta_evaluate",
    "check_label_name",
    "compare_judges",
    "compare_scores",
    "find_benchmarks",
    "judge_comparison",
    "load_qa_equivalence",
    "load_sentence_pairs",
    "load_summeval",
    "load_table",
    "meta_evaluate",
]

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
