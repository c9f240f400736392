"""Meta-evaluation: how far a judge agrees with human labels.

:func:`agreement` computes correlations (pooled and per group), AUROC, accuracy and F1 for
binary labels, with seeded bootstrap intervals. :func:`meta_evaluate` scores a labelled file
with one judge; :func:`compare_judges` scores it with several and ranks them in a
leaderboard (``keep_runs=True`` keeps each judge's run in a :class:`JudgeComparison`;
``judge_comparison`` is its deprecated spelling). :func:`compare_scores` and
:func:`agreement_change` say what a change to a judge
(its prompts, its offline settings) did to the scores and to agreement, on the tune and the
test part of :func:`tune_test_split`. :func:`compare_runs` says whether the difference
between two runs of the same items is real; :func:`repeatability` how much a judge's verdicts
move between repeats; :func:`cohen_kappa` and :func:`krippendorff_alpha` measure agreement
between two raters (a judge and a human, or two annotators). :func:`read_labels` reads the
labels the :class:`~evaltoolkit.widgets.Annotator` writes; :func:`label_agreement` measures
how well annotators agree with each other and :func:`judge_vs_humans` sets the judge's
agreement with them beside it. The loaders read
labelled files into the standard scoring layout (``item_id``,
``input``, ``output``, ``ground_truth``).
"""

from __future__ import annotations

import os
from pathlib import Path

from ._agreement import agreement
from ._annotator_agreement import LabelAgreement, label_agreement
from ._change import (
    AGREEMENT_METRICS,
    LEVELS,
    VERDICTS,
    agreement_change,
    check_label_name,
    compare_scores,
)
from ._compare import (
    acompare_judges,
    ajudge_comparison,
    compare_judges,
    judge_comparison,
)
from ._evaluate import (
    ANSWER_THRESHOLD,
    SYSTEM_COLUMN,
    MetaEvaluation,
    ameta_evaluate,
    meta_evaluate,
)
from ._held_out import tune_test_split
from ._human_comparison import HumanComparison, judge_vs_humans
from ._human_labels import (
    attach_human_labels,
    human_labels,
    is_labels_source,
    judge_on_scale,
    labels_by_item,
    with_human_labels,
)
from ._judge_comparison import JudgeComparison
from ._labels import LabelScale, append_label_record, read_labels, text_hash
from ._loaders import load_qa_equivalence, load_sentence_pairs, load_summeval, load_table
from ._paired import compare_runs, paired_scores
from ._repeatability import Repeatability, arepeatability, repeatability
from .stats.reliability import cohen_kappa, krippendorff_alpha
from .stats.williams import WilliamsTest, williams_test

__all__ = [
    "AGREEMENT_METRICS",
    "ANSWER_THRESHOLD",
    "LEVELS",
    "SYSTEM_COLUMN",
    "VERDICTS",
    "HumanComparison",
    "JudgeComparison",
    "LabelAgreement",
    "LabelScale",
    "MetaEvaluation",
    "Repeatability",
    "WilliamsTest",
    "acompare_judges",
    "agreement",
    "agreement_change",
    "ajudge_comparison",
    "ameta_evaluate",
    "append_label_record",
    "arepeatability",
    "attach_human_labels",
    "check_label_name",
    "cohen_kappa",
    "compare_judges",
    "compare_runs",
    "compare_scores",
    "find_benchmarks",
    "human_labels",
    "is_labels_source",
    "judge_comparison",
    "judge_on_scale",
    "judge_vs_humans",
    "krippendorff_alpha",
    "label_agreement",
    "labels_by_item",
    "load_qa_equivalence",
    "load_sentence_pairs",
    "load_summeval",
    "load_table",
    "meta_evaluate",
    "paired_scores",
    "read_labels",
    "repeatability",
    "text_hash",
    "tune_test_split",
    "williams_test",
    "with_human_labels",
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
