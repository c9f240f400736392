"""Meta-evaluation: how far a judge agrees with human labels.

:func:`agreement` computes correlations (pooled and per group), AUROC, accuracy and F1 for
binary labels, with seeded bootstrap intervals. :func:`meta_evaluate` scores a labelled file
with one judge; :func:`compare_judges` scores it with several and ranks them in a leaderboard
(``keep_runs=True`` keeps each judge's run in a :class:`JudgeComparison`).
:func:`compare_scores` and :func:`agreement_change` say what a change to a judge (its prompts,
its offline settings) did to the scores and to agreement, on the tune and the test part of
:func:`tune_test_split`. :func:`compare_runs` says whether the difference between two runs of
the same items is real; :func:`repeatability` how much a judge's verdicts move between repeats;
:func:`cohen_kappa` and :func:`krippendorff_alpha` measure agreement between two raters (a judge
and a human, or two annotators). :func:`read_labels` reads the labels the
:class:`~evaltoolkit.widgets.Annotator` writes; :func:`label_agreement` measures how well
annotators agree with each other and :func:`judge_vs_humans` sets the judge's agreement with
them beside it. The loaders read labelled files into the standard scoring layout (``item_id``,
``input``, ``output``, ``ground_truth``).
"""

from __future__ import annotations

from .._internal import deprecation as _deprecation
from ._agreement import agreement
from ._annotator_agreement import LabelAgreement, label_agreement
from ._benchmarks import find_benchmarks
from ._change import LEVELS, VERDICTS, agreement_change, compare_scores
from ._compare import acompare_judges, compare_judges
from ._evaluate import (
    ANSWER_THRESHOLD,
    SYSTEM_COLUMN,
    MetaEvaluation,
    ameta_evaluate,
    meta_evaluate,
)
from ._held_out import tune_test_split
from ._human_comparison import HumanComparison, judge_vs_humans
from ._judge_comparison import JudgeComparison
from ._labels import read_labels
from ._loaders import load_qa_equivalence, load_sentence_pairs, load_summeval, load_table
from ._paired import compare_runs, paired_scores
from ._repeatability import Repeatability, arepeatability, repeatability
from .stats.reliability import cohen_kappa, krippendorff_alpha
from .stats.williams import WilliamsTest, williams_test

__all__ = [
    "ANSWER_THRESHOLD",
    "LEVELS",
    "SYSTEM_COLUMN",
    "VERDICTS",
    "HumanComparison",
    "JudgeComparison",
    "LabelAgreement",
    "MetaEvaluation",
    "Repeatability",
    "WilliamsTest",
    "acompare_judges",
    "agreement",
    "agreement_change",
    "ameta_evaluate",
    "arepeatability",
    "cohen_kappa",
    "compare_judges",
    "compare_runs",
    "compare_scores",
    "find_benchmarks",
    "judge_vs_humans",
    "krippendorff_alpha",
    "label_agreement",
    "load_qa_equivalence",
    "load_sentence_pairs",
    "load_summeval",
    "load_table",
    "meta_evaluate",
    "paired_scores",
    "read_labels",
    "repeatability",
    "tune_test_split",
    "williams_test",
]

_INTERNAL = _deprecation.Delisted("evaltoolkit.meta._internal")
_KEEP_RUNS = _deprecation.Delisted(
    "evaltoolkit.meta._compare",
    instead="use compare_judges(..., keep_runs=True) (acompare_judges when awaited)",
)

# Public in 0.1: handed on with a DeprecationWarning for one release.
__getattr__ = _deprecation.delisted_names(
    __name__,
    {
        "judge_comparison": _KEEP_RUNS,
        "ajudge_comparison": _KEEP_RUNS,
        **dict.fromkeys(
            (
                "AGREEMENT_METRICS",
                "LabelScale",
                "append_label_record",
                "attach_human_labels",
                "check_label_name",
                "human_labels",
                "is_labels_source",
                "judge_on_scale",
                "labels_by_item",
                "text_hash",
                "with_human_labels",
            ),
            _INTERNAL,
        ),
    },
)
