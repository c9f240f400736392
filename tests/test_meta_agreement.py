"""Tests for evaltoolkit.meta._agreement: correlations, binary metrics and bootstrap intervals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evaltoolkit import EvalToolkitError
from evaltoolkit.meta._agreement import RESULT_COLUMNS, _ResampleStatistics, agreement


def _row(
    table: pd.DataFrame, metric: str, level: str = "pooled", score: str | None = None
) -> pd.Series:
    selected = table[(table["metric"] == metric) & (table["level"] == level)]
    if score is not None:
        selected = selected[selected["score"] == score]
    assert len(selected) == 1, f"expected one {metric}/{level} row, got {len(selected)}"
    return selected.iloc[0]


def test_perfect_agreement_gives_one_for_every_correlation() -> None:
    scores = np.arange(40, dtype=float)
    df = pd.DataFrame({"judge": scores, "human": 3 * scores + 1})
    table = agreement(df, "judge", "human", n_bootstrap=50)
    for metric in ("spearman", "kendall", "pearson"):
        assert _row(table, metric)["value"] == pytest.approx(1.0)


def test_reversed_agreement_gives_minus_one_for_every_correlation() -> None:
    scores = np.arange(40, dtype=float)
    df = pd.DataFrame({"judge": scores, "human": -(scores**3)})
    table = agreement(df, "judge", "human", n_bootstrap=50)
    for metric in ("spearman", "kendall"):
        assert _row(table, metric)["value"] == pytest.approx(-1.0)
    assert _row(table, "pearson")["value"] < -0.9


def test_independent_scores_give_near_zero_with_interval_containing_zero() -> None:
    generator = np.random.default_rng(12345)
    df = pd.DataFrame({"judge": generator.normal(size=2000), "human": generator.normal(size=2000)})
    table = agreement(df, "judge", "human", n_bootstrap=500)
    for metric in ("spearman", "kendall", "pearson"):
        row = _row(table, metric)
        assert abs(row["value"]) < 0.06
        assert row["ci_low"] < 0.0 < row["ci_high"]


def test_pooled_values_match_scipy_with_ties() -> None:
    generator = np.random.default_rng(3)
    human = generator.integers(1, 6, size=300).astype(float)
    judge = np.round(human + generator.normal(size=300), 0)
    table = agreement(pd.DataFrame({"judge": judge, "human": human}), "judge", "human")
    assert _row(table, "spearman")["value"] == pytest.approx(stats.spearmanr(judge, human)[0])
    assert _row(table, "kendall")["value"] == pytest.approx(stats.kendalltau(judge, human)[0])
    assert _row(table, "pearson")["value"] == pytest.approx(stats.pearsonr(judge, human)[0])


def test_kendall_above_the_pair_matrix_size_matches_scipy() -> None:
    generator = np.random.default_rng(4)
    human = generator.integers(1, 6, size=2100).astype(float)
    judge = human + generator.normal(size=2100)
    df = pd.DataFrame({"judge": judge, "human": human})
    table = agreement(df, "judge", "human", n_bootstrap=20)
    row = _row(table, "kendall")
    assert row["value"] == pytest.approx(stats.kendalltau(judge, human)[0])
    assert row["ci_low"] <= row["value"] <= row["ci_high"]


def test_resampled_statistics_match_scipy_on_the_expanded_resample() -> None:
    generator = np.random.default_rng(5)
    labels = (generator.random(200) < 0.4).astype(float)
    scores = np.round(labels + generator.normal(size=200), 1)
    statistics = _ResampleStatistics(scores, labels, binary=True, threshold=0.5)
    drawn = generator.integers(0, 200, size=200)
    counts = np.bincount(drawn, minlength=200)[None, :].astype(float)
    resampled, _ = statistics.compute(counts)
    x, y = scores[drawn], labels[drawn]
    positives, negatives = x[y == 1], x[y == 0]
    mann_whitney = stats.mannwhitneyu(positives, negatives).statistic
    assert resampled["spearman"][0] == pytest.approx(stats.spearmanr(x, y)[0])
    assert resampled["kendall"][0] == pytest.approx(stats.kendalltau(x, y)[0])
    assert resampled["pearson"][0] == pytest.approx(stats.pearsonr(x, y)[0])
    assert resampled["auroc"][0] == pytest.approx(mann_whitney / (len(positives) * len(negatives)))
    assert resampled["accuracy"][0] == pytest.approx(np.mean((x >= 0.5) == (y == 1)))


def test_rows_with_missing_score_or_label_are_skipped_and_counted() -> None:
    df = pd.DataFrame(
        {
            "judge": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0, np.nan, 8.0],
            "human": [1.0, 3.0, 2.0, None, 5.0, 4.0, np.nan, 7.0],
        }
    )
    table = agreement(df, "judge", "human", n_bootstrap=20)
    row = _row(table, "spearman")
    assert row["skipped"] == 3
    assert row["n"] == 5
    kept = df.dropna()
    assert row["value"] == pytest.approx(stats.spearmanr(kept["judge"], kept["human"])[0])


def test_per_group_average_is_the_mean_of_per_group_spearman() -> None:
    df = pd.DataFrame(
        {
            "doc": ["a"] * 3 + ["b"] * 4 + ["c"] * 2 + ["d"] * 3 + ["e"] * 3,
            # a: ranks (1,2,3) vs (1,3,2), rho = 1 - 6*2/(3*8) = 0.5
            # b: reversed, rho = -1
            # c: two items, below min_group_size
            # d: constant labels; e: constant scores
            "judge": [1, 2, 3, 1, 2, 3, 4, 1, 2, 1, 2, 3, 5, 5, 5],
            "human": [1, 3, 2, 4, 3, 2, 1, 1, 2, 4, 4, 4, 1, 2, 3],
        }
    )
    table = agreement(df, "judge", "human", group="doc", n_bootstrap=100)
    row = _row(table, "spearman", "per_group")
    assert row["value"] == pytest.approx((0.5 + -1.0) / 2)
    assert row["groups"] == 2
    assert row["n"] == 7
    assert row["skipped"] == 0
    assert math.isnan(_row(table, "spearman")["groups"])
    assert _row(table, "spearman")["n"] == len(df)


def test_min_group_size_counts_usable_items_only() -> None:
    df = pd.DataFrame(
        {
            "doc": ["a"] * 4 + ["b"] * 4,
            "judge": [1.0, 2.0, 3.0, np.nan, 1.0, 2.0, 3.0, 4.0],
            "human": [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0],
        }
    )
    table = agreement(df, "judge", "human", group="doc", min_group_size=4, n_bootstrap=10)
    row = _row(table, "pearson", "per_group")
    assert row["groups"] == 1
    assert row["n"] == 4
    assert row["skipped"] == 1


def test_no_usable_group_gives_nan_without_warnings() -> None:
    df = pd.DataFrame({"doc": ["a", "a", "b"], "judge": [1.0, 2.0, 3.0], "human": [1, 2, 3]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = agreement(df, "judge", "human", group="doc", n_bootstrap=10)
    row = _row(table, "kendall", "per_group")
    assert math.isnan(row["value"])
    assert row["groups"] == 0


def test_constant_scores_give_nan_without_warnings() -> None:
    df = pd.DataFrame({"judge": [0.5] * 10, "human": list(range(10))})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = agreement(df, "judge", "human", n_bootstrap=50)
    judged = table[table["score"] == "judge"]
    assert judged["value"].isna().all()
    assert judged["ci_low"].isna().all()


def test_auroc_of_perfect_and_reversed_separators() -> None:
    labels = [False] * 5 + [True] * 5
    df = pd.DataFrame({"good": np.arange(10.0), "bad": -np.arange(10.0), "human": labels})
    table = agreement(df, ["good", "bad"], "human", n_bootstrap=50)
    assert _row(table, "auroc", score="good")["value"] == pytest.approx(1.0)
    assert _row(table, "auroc", score="bad")["value"] == pytest.approx(0.0)


def test_auroc_counts_ties_as_one_half() -> None:
    # Positives 0.9 and 0.5 against negatives 0.5 and 0.1: the pairs win 1 + 1 + 0.5 + 1 of 4.
    df = pd.DataFrame({"judge": [0.9, 0.5, 0.5, 0.1], "human": [1, 1, 0, 0]})
    table = agreement(df, "judge", "human", n_bootstrap=10)
    assert _row(table, "auroc")["value"] == pytest.approx(3.5 / 4)


def test_accuracy_and_f1_at_a_fixed_threshold() -> None:
    # At 0.5 the predictions are F F T T T against labels F T T F T: 3 of 5 right,
    # two true positives, one false positive, one false negative.
    df = pd.DataFrame(
        {"judge": [0.2, 0.4, 0.6, 0.8, 0.5], "human": [False, True, True, False, True]}
    )
    table = agreement(df, "judge", "human", threshold=0.5, n_bootstrap=10)
    accuracy = _row(table, "accuracy")
    assert accuracy["value"] == pytest.approx(0.6)
    assert accuracy["threshold"] == 0.5
    assert _row(table, "f1")["value"] == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    assert math.isnan(_row(table, "auroc")["threshold"])


def test_without_threshold_the_fixed_threshold_rows_are_left_out() -> None:
    df = pd.DataFrame({"judge": [0.2, 0.4, 0.6, 0.8], "human": [0, 0, 1, 1]})
    table = agreement(df, "judge", "human", n_bootstrap=10)
    metrics = set(table.loc[table["score"] == "judge", "metric"])
    assert {"auroc", "best_accuracy", "best_f1"} <= metrics
    assert not {"accuracy", "f1"} & metrics


def test_best_threshold_maximises_accuracy() -> None:
    scores = np.arange(1.0, 8.0)
    labels = np.array([0, 1, 0, 0, 1, 1, 1])
    table = agreement(pd.DataFrame({"judge": scores, "human": labels}), "judge", "human")
    best = _row(table, "best_accuracy")
    brute_force = max(np.mean((scores >= cut) == (labels == 1)) for cut in scores)
    assert best["value"] == pytest.approx(brute_force)
    assert best["value"] == pytest.approx(6 / 7)
    assert best["threshold"] == 5.0
    # At 5: three true positives, no false positive, one false negative.
    assert _row(table, "best_f1")["value"] == pytest.approx(6 / 7)
    assert _row(table, "best_f1")["threshold"] == 5.0


def test_best_threshold_ties_take_the_lowest_and_all_negative_is_inf() -> None:
    tied = pd.DataFrame({"judge": [1.0, 2.0, 3.0, 4.0], "human": [1, 0, 1, 0]})
    assert _row(agreement(tied, "judge", "human", n_bootstrap=0), "best_accuracy")[
        "threshold"
    ] == pytest.approx(1.0)
    reversed_rare = pd.DataFrame({"judge": [4.0, 3.0, 2.0, 1.0], "human": [0, 0, 0, 1]})
    table = agreement(reversed_rare, "judge", "human", n_bootstrap=0)
    assert _row(table, "best_accuracy")["threshold"] == math.inf
    assert _row(table, "best_accuracy")["value"] == pytest.approx(0.75)
    assert _row(table, "best_f1")["value"] == pytest.approx(0.0)


def test_numeric_labels_other_than_zero_and_one_get_no_binary_metrics() -> None:
    df = pd.DataFrame({"judge": [0.1, 0.5, 0.7, 0.9], "human": [0, 1, 2, 1]})
    table = agreement(df, "judge", "human", n_bootstrap=10)
    assert set(table.loc[table["score"] == "judge", "metric"]) == {
        "spearman",
        "kendall",
        "pearson",
    }


def test_nullable_boolean_labels_are_binary_and_missing_ones_skipped() -> None:
    labels = pd.array([True, False, None, True, False, True], dtype="boolean")
    df = pd.DataFrame({"judge": [0.9, 0.1, 0.5, 0.8, 0.2, 0.7], "human": labels})
    table = agreement(df, "judge", "human", n_bootstrap=10)
    auroc = _row(table, "auroc")
    assert auroc["value"] == pytest.approx(1.0)
    assert auroc["skipped"] == 1


def _labelled_frame(items: int = 300) -> pd.DataFrame:
    generator = np.random.default_rng(7)
    human = generator.integers(1, 6, size=items).astype(float)
    return pd.DataFrame(
        {
            "doc": np.repeat(np.arange(items // 10), 10),
            "judge": human + generator.normal(scale=1.5, size=items),
            "other": human + generator.normal(scale=3.0, size=items),
            "human": human,
            "correct": human >= 3,
        }
    )


def test_bootstrap_is_deterministic_for_a_seed_and_contains_the_estimate() -> None:
    df = _labelled_frame()
    first = agreement(df, ["judge", "other"], "correct", group="doc", threshold=3.0, seed=11)
    second = agreement(df, ["judge", "other"], "correct", group="doc", threshold=3.0, seed=11)
    pd.testing.assert_frame_equal(first, second)
    judged = first[first["score"] != "baseline"]
    assert ((judged["ci_low"] <= judged["value"]) & (judged["value"] <= judged["ci_high"])).all()
    assert (judged["ci_low"] < judged["ci_high"]).all()
    other_seed = agreement(df, ["judge", "other"], "correct", group="doc", threshold=3.0, seed=12)
    assert not np.allclose(first["ci_low"], other_seed["ci_low"])
    pd.testing.assert_series_equal(first["value"], other_seed["value"])


def test_wider_confidence_gives_wider_intervals() -> None:
    df = _labelled_frame()
    narrow = _row(agreement(df, "judge", "human", confidence=0.5), "spearman")
    wide = _row(agreement(df, "judge", "human", confidence=0.99), "spearman")
    assert wide["ci_low"] < narrow["ci_low"] < narrow["ci_high"] < wide["ci_high"]


def test_zero_resamples_leave_the_intervals_empty() -> None:
    table = agreement(_labelled_frame(), "judge", "human", group="doc", n_bootstrap=0)
    assert table["ci_low"].isna().all()
    assert table["ci_high"].isna().all()
    assert table["value"].notna().all()


def test_result_layout_one_block_per_score_column() -> None:
    table = agreement(_labelled_frame(), ["judge", "other"], "correct", group="doc", threshold=3)
    assert tuple(table.columns) == RESULT_COLUMNS
    block = [
        ("spearman", "pooled"),
        ("kendall", "pooled"),
        ("pearson", "pooled"),
        ("spearman", "per_group"),
        ("kendall", "per_group"),
        ("pearson", "per_group"),
        ("auroc", "pooled"),
        ("accuracy", "pooled"),
        ("f1", "pooled"),
        ("best_accuracy", "pooled"),
        ("best_f1", "pooled"),
        ("kappa", "pooled"),  # of the verdicts score >= threshold
        ("alpha_nominal", "pooled"),
    ]
    baseline = [
        (metric, "baseline")
        for metric in ("spearman", "kendall", "pearson", "auroc", "accuracy", "kappa")
    ]
    assert list(zip(table["metric"], table["level"], strict=True)) == block * 2 + baseline
    assert table["score"].tolist() == (
        ["judge"] * len(block) + ["other"] * len(block) + ["baseline"] * len(baseline)
    )
    assert (table["label"] == "correct").all()
    assert table["n"].dtype == np.int64
    assert table["groups"].dtype == np.float64


def test_missing_column_error_names_it_and_lists_the_columns() -> None:
    df = pd.DataFrame({"judge": [1.0, 2.0], "human": [1.0, 2.0]})
    with pytest.raises(EvalToolkitError, match=r"'judg'.*'judge', 'human'"):
        agreement(df, "judg", "human")
    with pytest.raises(EvalToolkitError, match="'doc_id' \\(from group\\)"):
        agreement(df, "judge", "human", group="doc_id")


def test_non_numeric_score_error_names_the_column() -> None:
    df = pd.DataFrame({"judge": ["high", "low"], "human": [1.0, 2.0]})
    with pytest.raises(EvalToolkitError, match=r"'judge' \(score\).*'high'"):
        agreement(df, "judge", "human")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("confidence", 1.5),
        ("n_bootstrap", -1),
        ("min_group_size", 1),
        ("threshold", math.nan),
    ],
)
def test_bad_options_are_rejected(option: str, value: float) -> None:
    df = pd.DataFrame({"judge": [1.0, 2.0, 3.0], "human": [1.0, 2.0, 3.0]})
    with pytest.raises(EvalToolkitError, match=option):
        agreement(df, "judge", "human", **{option: value})  # type: ignore[arg-type]
