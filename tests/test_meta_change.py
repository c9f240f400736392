"""Comparing two runs of the same items: score changes and agreement, without widgets."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest
from scipy import stats

import evaltoolkit as et
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.meta import VERDICTS, agreement_change, compare_scores
from evaltoolkit.records import EvalResult, ItemResult, ScoreResult


def run(scores: list[float], labels: list[float]) -> EvalResult:
    items = [
        ItemResult(
            item_id=f"i{index}",
            index=index,
            input="q",
            output="a",
            fields={"human": label},
            scorer_results={"s": ScoreResult(scorer="s", score=score)},
        )
        for index, (score, label) in enumerate(zip(scores, labels, strict=True))
    ]
    return EvalResult(items=items, scorer_ids=["s"])


LABELS = [1.0, 2.0, 3.0, 4.0, 5.0]


def test_changes_are_lined_up_biggest_first_and_failures_last() -> None:
    before = run([0.1, 0.5, 0.5, math.nan, 0.9], LABELS)
    after = run([0.2, 0.1, 0.5, 0.4, 1.0], LABELS)

    table = compare_scores(before, after, label="human")

    assert list(table["item_id"]) == ["i1", "i0", "i4", "i2", "i3"]
    assert table["change"].iloc[:4].tolist() == pytest.approx([-0.4, 0.1, 0.1, 0.0])
    assert math.isnan(table["change"].iloc[4])
    assert dict(zip(table["item_id"], table["human"], strict=True))["i3"] == 4.0


def test_the_runs_must_hold_the_same_items() -> None:
    with pytest.raises(ConfigurationError, match="same items"):
        compare_scores(run([0.1, 0.2], [1, 2]), run([0.1], [1]))


@pytest.mark.parametrize("name", ["change", "before", "item_id"])
def test_a_label_named_like_a_comparison_column_is_refused(name: str) -> None:
    # Before, the label silently replaced that column (the changes became the human labels).
    before, after = run([0.1, 0.2], [1, 2]), run([0.3, 0.2], [1, 2])
    for result in (before, after):
        for item in result:
            item.fields[name] = item.fields["human"]

    with pytest.raises(ConfigurationError, match=rf"label field '{name}' has the name"):
        compare_scores(before, after, label=name)


def test_agreement_change_matches_scipy() -> None:
    before_scores = [0.1, 0.3, 0.2, 0.8, 0.9]
    after_scores = [0.9, 0.3, 0.2, 0.1, 0.4]
    table = compare_scores(run(before_scores, LABELS), run(after_scores, LABELS), label="human")

    change = agreement_change(table, "human", n_bootstrap=0).set_index("metric")

    assert set(change.index) == {"spearman", "kendall", "pearson"}  # no AUROC: numeric labels
    expected_before = stats.spearmanr(before_scores, LABELS)[0]
    expected_after = stats.spearmanr(after_scores, LABELS)[0]
    assert change.loc["spearman", "before"] == pytest.approx(expected_before)
    assert change.loc["spearman", "after"] == pytest.approx(expected_after)
    assert change.loc["spearman", "change"] == pytest.approx(expected_after - expected_before)
    assert change.loc["kendall", "after"] == pytest.approx(
        stats.kendalltau(after_scores, LABELS)[0]
    )
    assert change.loc["pearson", "n"] == 5


def test_boolean_labels_report_auroc() -> None:
    labels = [True, False, True, False]
    table = pd.DataFrame(
        {"before": [0.9, 0.1, 0.8, 0.2], "after": [0.1, 0.9, 0.8, 0.2], "ok": labels}
    )

    change = agreement_change(table, "ok", n_bootstrap=0).set_index("metric")

    assert change.loc["auroc", "before"] == 1.0
    # Correct answers 0.1 and 0.8 against wrong ones 0.9 and 0.2: 1 of 4 pairs ordered right.
    assert change.loc["auroc", "after"] == 0.25


def test_it_works_on_real_runs_without_widgets() -> None:
    items = [
        {"id": "a", "input": "q", "output": "Paris", "ground_truth": "Paris", "human": 5},
        {"id": "b", "input": "q", "output": "Lyon", "ground_truth": "Paris", "human": 1},
    ]
    before = et.run_evals(items, et.create_textual_difference_scorer(), progress=False)
    after = et.run_evals(items, et.create_textual_difference_scorer(scale=0.5), progress=False)

    table = compare_scores(before, after, label="human")

    assert table.set_index("item_id")["change"].to_dict() == {"a": -0.5, "b": 0.0}
    assert list(table["human"]) == [5, 1]


def _parted(after_of: dict[str, Any]) -> pd.DataFrame:
    """20 documents of 4 summaries labelled 1-4: the first 10 documents tune, the others test.

    ``before`` follows the labels with a little noise; ``after`` is ``after_of[part]`` of the
    labels and the document.
    """
    rows = []
    for document in range(20):
        part = "tune" if document < 10 else "test"
        for label in range(1, 5):
            rows.append(
                {
                    "item_id": f"d{document}-{label}",
                    "before": label + 0.3 * ((document * 7 + label * 3) % 5),
                    "after": after_of[part](label, document),
                    "human": float(label),
                    "doc_id": f"d{document}",
                    "part": part,
                }
            )
    return pd.DataFrame(rows)


def test_an_edit_that_lowers_agreement_on_both_parts_reads_worse_on_test() -> None:
    # Issue 32: tune change below 0 and test change below 0 read "confirmed on test", which
    # the README said to keep. A harmful edit must never read as a reason to keep it.
    comparison = _parted(
        {"tune": lambda label, doc: -label, "test": lambda label, doc: -label + 0.01 * doc}
    )
    table = agreement_change(
        comparison, "human", group="doc_id", split="part", level="pooled", n_bootstrap=200
    )
    test = table[(table["part"] == "test") & (table["metric"] == "spearman")].iloc[0]
    tune = table[(table["part"] == "tune") & (table["metric"] == "spearman")].iloc[0]
    assert tune["change"] < 0 and tune["change_ci_high"] < 0
    assert test["change"] < 0 and test["change_ci_high"] < 0
    assert test["verdict"] == "worse on test"
    assert set(table["verdict"].dropna()) <= set(VERDICTS)


def test_the_verdict_reads_the_test_part_alone() -> None:
    better = _parted({"tune": lambda label, doc: label, "test": lambda label, doc: label})
    table = agreement_change(
        better, "human", group="doc_id", split="part", level="pooled", n_bootstrap=200
    )
    assert table.query("part == 'test' and metric == 'spearman'")["verdict"].item() == (
        "better on test"
    )
    same = better.assign(after=better["before"])
    table = agreement_change(
        same, "human", group="doc_id", split="part", level="pooled", n_bootstrap=200
    )
    assert table.query("part == 'test' and metric == 'spearman'")["verdict"].item() == (
        "cannot tell"
    )


def test_every_test_document_losing_all_discrimination_is_said_plainly() -> None:
    # Issue 32: Spearman 0.851 -> 0.101 on 2 test documents read "not confirmed", while after
    # the edit every test document gave all its summaries one score.
    flat = _parted({"tune": lambda label, doc: label, "test": lambda label, doc: float(doc)})
    for level in ("pooled", "per_group"):
        table = agreement_change(
            flat, "human", group="doc_id", split="part", level=level, n_bootstrap=100
        )
        test = table.query("part == 'test'")
        assert set(test["verdict"]) == {"lost all discrimination on test"}, level
        assert set(table.query("part == 'tune'")["verdict"].dropna()) == set()


def test_a_test_part_of_few_documents_cannot_tell() -> None:
    few = _parted({"tune": lambda label, doc: label, "test": lambda label, doc: label})
    few = few[few["doc_id"].isin([f"d{doc}" for doc in (0, 1, 2, 10, 11, 12)])]
    table = agreement_change(
        few, "human", group="doc_id", split="part", level="pooled", n_bootstrap=200
    )
    test = table.query("part == 'test' and metric == 'spearman'").iloc[0]
    assert test["change"] > 0 and test["change_ci_low"] >= 0  # no resample got worse...
    assert test["verdict"] == "cannot tell"  # ...but 3 documents are too few to say so
    assert test["note"] == "only 3 doc_id groups (fewer than 10): too few for a firm figure"
