"""Kappa, alpha, baselines, paired comparison of runs and the tune/test split, each checked
against an independent computation (published figures, scipy, numpy moments)."""

from __future__ import annotations

import math
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import evaltoolkit as et
from evaltoolkit.cli import main
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.meta import (
    agreement,
    agreement_change,
    cohen_kappa,
    compare_runs,
    krippendorff_alpha,
    tune_test_split,
)
from evaltoolkit.records import EvalResult, ItemResult, ScoreResult, StepError

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders x 12 units
# example, with its published alphas.
RELIABILITY_DATA = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, math.nan, math.nan, math.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, math.nan, 3],
    [math.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, math.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, math.nan],
]
PUBLISHED_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize(("level", "expected"), PUBLISHED_ALPHA.items())
def test_alpha_matches_the_published_example(level: str, expected: float) -> None:
    assert round(krippendorff_alpha(RELIABILITY_DATA, level=level), 3) == expected  # type: ignore[arg-type]
    # A DataFrame holds one row per unit and one column per rater: the same data transposed.
    frame = pd.DataFrame(np.array(RELIABILITY_DATA).T, columns=["a", "b", "c", "d"])
    assert krippendorff_alpha(frame, level=level) == pytest.approx(  # type: ignore[arg-type]
        krippendorff.alpha(reliability_data=RELIABILITY_DATA, level_of_measurement=level)
    )


def test_alpha_of_categories_is_nominal_and_other_levels_are_refused() -> None:
    text = [["a", "b", "a", None], ["a", "b", "b", "c"]]
    codes = [[0, 1, 0, math.nan], [0, 1, 1, 2]]
    assert krippendorff_alpha(text, level="nominal") == pytest.approx(
        krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    )
    with pytest.raises(ConfigurationError, match="level='nominal' for categories"):
        krippendorff_alpha(text, level="ordinal")
    with pytest.raises(ConfigurationError, match="at least 2 raters"):
        krippendorff_alpha([[1, 2, 3]])


def test_unweighted_kappa_matches_a_textbook_table() -> None:
    # 50 items: both yes 20, yes/no 5, no/yes 10, both no 15 -> p_o 0.7, p_e 0.5, kappa 0.4.
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(first, second) == pytest.approx(0.4)


def test_quadratic_kappa_equals_the_concordance_of_the_moments() -> None:
    # With squared distances, kappa = 2 cov / (var_a + var_b + (mean_a - mean_b)^2).
    generator = np.random.default_rng(3)
    first = generator.integers(1, 6, size=200).astype(float)
    second = np.clip(first + generator.integers(-2, 2, size=200), 1, 5)
    expected = (
        2
        * np.cov(first, second, bias=True)[0, 1]
        / (first.var() + second.var() + (first.mean() - second.mean()) ** 2)
    )
    assert cohen_kappa(first, second, weights="quadratic") == pytest.approx(expected)
    # Missing ratings leave the pair out.
    with_gap = [*first, math.nan]
    assert cohen_kappa(with_gap, [*second, 3.0], weights="quadratic") == pytest.approx(expected)


def test_kappa_needs_equal_lengths_and_numbers_for_weights() -> None:
    with pytest.raises(ConfigurationError, match="different numbers of items"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(ConfigurationError, match="need numeric ratings"):
        cohen_kappa(["a", "b"], ["a", "a"], weights="linear")


def test_agreement_reports_kappa_and_alpha_for_a_judge_on_the_label_scale() -> None:
    generator = np.random.default_rng(5)
    human = generator.integers(1, 6, size=120).astype(float)
    judge = np.clip(human + generator.integers(-1, 2, size=120), 1, 5)
    table = agreement(
        pd.DataFrame({"judge": judge, "human": human}), "judge", "human", n_bootstrap=300
    )
    rows = table[table["score"] == "judge"].set_index("metric")
    assert rows.loc["kappa_quadratic", "value"] == pytest.approx(
        cohen_kappa(judge, human, weights="quadratic")
    )
    assert rows.loc["alpha_ordinal", "value"] == pytest.approx(
        krippendorff.alpha(reliability_data=[judge, human], level_of_measurement="ordinal")
    )
    assert rows.loc["exact_accuracy", "value"] == pytest.approx(np.mean(judge == human))
    kappa = rows.loc["kappa_quadratic"]
    assert kappa["ci_low"] < kappa["value"] < kappa["ci_high"]


def test_a_boolean_label_with_a_threshold_gets_kappa_of_the_verdicts() -> None:
    scores = np.array([0.9, 0.2, 0.7, 0.4, 0.8, 0.1, 0.6, 0.3])
    labels = [True, False, True, True, False, False, True, False]
    table = agreement(pd.DataFrame({"s": scores, "ok": labels}), "s", "ok", threshold=0.5)
    rows = table[table["score"] == "s"].set_index("metric")
    assert rows.loc["kappa", "value"] == pytest.approx(cohen_kappa(scores >= 0.5, labels))
    assert rows.loc["kappa", "threshold"] == 0.5


def test_a_continuous_judge_gets_no_kappa() -> None:
    human = [1, 2, 3, 4, 5] * 4
    table = agreement(pd.DataFrame({"j": np.linspace(0, 1, 20), "h": human}), "j", "h")
    assert not {"kappa", "kappa_quadratic"} & set(table.loc[table["score"] == "j", "metric"])


def test_baseline_rows_say_what_no_judgement_scores() -> None:
    generator = np.random.default_rng(9)
    human = generator.choice([1, 2, 3], p=[0.6, 0.3, 0.1], size=400).astype(float)
    frame = pd.DataFrame({"judge": human + generator.normal(size=400), "human": human})
    baseline = agreement(frame, "judge", "human", n_bootstrap=400).query("level == 'baseline'")
    rows = baseline.set_index("metric")
    assert (baseline["score"] == "baseline").all()
    assert rows.loc["exact_accuracy", "value"] == pytest.approx(np.mean(human == 1.0))
    assert rows.loc["kappa", "value"] == 0.0
    spearman = rows.loc["spearman"]
    assert spearman["value"] == 0.0
    # A random score's correlation over 400 items spreads about 1/sqrt(399) either side.
    assert -0.2 < spearman["ci_low"] < -0.05 < 0.05 < spearman["ci_high"] < 0.2


# -- compare_runs ------------------------------------------------------------------------


def run_of(
    scores: list[float],
    *,
    ids: list[str] | None = None,
    groups: list[int] | None = None,
    inputs: list[str] | None = None,
) -> EvalResult:
    ids = ids or [f"i{index}" for index in range(len(scores))]
    items = []
    for index, (item_id, score) in enumerate(zip(ids, scores, strict=True)):
        failed = math.isnan(score)
        result = ScoreResult(
            scorer="s",
            score=score,
            details={} if failed else {"alignment_score": score / 2},
            error=StepError(step="judge", message="boom") if failed else None,
        )
        items.append(
            ItemResult(
                item_id=item_id,
                index=index,
                input=inputs[index] if inputs else "q",
                output="a",
                fields={} if groups is None else {"doc_id": groups[index]},
                scorer_results={"s": result},
            )
        )
    return EvalResult(items=items, scorer_ids=["s"])


FIXED_A = [0.31, 0.52, 0.13, 0.74, 0.45, 0.66, 0.27, 0.88, 0.59, 0.4, 0.21, 0.62]
FIXED_B = [0.35, 0.5, 0.23, 0.8, 0.45, 0.7, 0.2, 0.9, 0.69, 0.41, 0.3, 0.6]


def test_interval_and_test_match_scipy_on_fixed_data() -> None:
    table = compare_runs(run_of(FIXED_A), run_of(FIXED_B), score="score", n_bootstrap=500, seed=4)
    row = table.iloc[0]
    a, b = np.array(FIXED_A), np.array(FIXED_B)
    paired = stats.bootstrap(
        (b, a),
        lambda first, second, axis: np.mean(first - second, axis=axis),
        paired=True,
        n_resamples=500,
        method="percentile",
        rng=np.random.default_rng(4),
    ).confidence_interval
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((paired.low, paired.high))
    # One zero difference: the normal approximation, as documented.
    wilcoxon = stats.wilcoxon(b, a, zero_method="pratt", method="approx")
    assert row["p_value"] == pytest.approx(wilcoxon.pvalue)
    assert row["difference"] == pytest.approx(np.mean(b - a))
    assert (row["wins"], row["ties"], row["losses"]) == (8, 1, 3)
    assert (row["mean_a"], row["mean_b"]) == pytest.approx((a.mean(), b.mean()))


def test_identical_runs_differ_by_exactly_zero() -> None:
    table = compare_runs(run_of(FIXED_A), run_of(FIXED_A)).set_index("score")
    assert list(table.index) == ["score", "alignment"]
    for _, row in table.iterrows():
        assert row["difference"] == 0.0
        assert row["ci_low"] <= 0.0 <= row["ci_high"]
        assert row["ties"] == len(FIXED_A) and row["wins"] == row["losses"] == 0
        assert row["p_value"] == 1.0


def test_a_shift_on_every_item_is_real() -> None:
    table = compare_runs(run_of(FIXED_A), run_of([s + 0.2 for s in FIXED_A]), score="score")
    row = table.iloc[0]
    assert row["difference"] == pytest.approx(0.2)
    assert 0.0 < row["ci_low"] <= row["ci_high"]
    assert row["wins"] == row["n_pairs"] == len(FIXED_A)
    assert row["p_value"] < 0.01


def test_failed_items_leave_the_pair_and_are_counted() -> None:
    a = [0.1, math.nan, 0.3, 0.4]
    b = [0.2, 0.2, math.nan, 0.5]
    row = compare_runs(run_of(a), run_of(b), score="score", n_bootstrap=50).iloc[0]
    assert (row["n_pairs"], row["failed"]) == (2, 2)
    assert row["difference"] == pytest.approx(0.1)


def test_pairs_by_id_not_by_position() -> None:
    a = run_of([0.1, 0.5, 0.9], ids=["x", "y", "z"])
    b = run_of([0.9, 0.1, 0.5], ids=["z", "x", "y"])
    row = compare_runs(a, b, score="score", n_bootstrap=0).iloc[0]
    assert row["ties"] == 3


def test_different_items_are_refused_with_counts_and_ids() -> None:
    a = run_of([0.1] * 5, ids=["a", "b", "c", "d", "e"])
    b = run_of([0.1] * 3, ids=["a", "b", "z"])
    with pytest.raises(
        ConfigurationError, match=r"3 id\(s\) only in A \('c', 'd', 'e'\), 1 only in B \('z'\)"
    ):
        compare_runs(a, b)


def test_the_same_id_with_another_input_is_refused() -> None:
    a = run_of([0.1, 0.2], inputs=["doc one", "doc two"])
    b = run_of([0.1, 0.2], inputs=["doc one", "another doc"])
    with pytest.raises(
        ConfigurationError, match=r"1 item\(s\) have the same id but a different input.*'i1'"
    ):
        compare_runs(a, b)


def test_grouped_interval_resamples_whole_groups() -> None:
    # Five items per document share one difference: they are one observation, not five.
    generator = np.random.default_rng(1)
    per_doc = generator.normal(0.05, 0.1, size=12)
    differences = np.repeat(per_doc, 5)
    groups = list(np.repeat(np.arange(12), 5))
    base = list(generator.random(60))
    a = run_of(base, groups=groups)
    b = run_of(list(np.array(base) + differences), groups=groups)
    plain = compare_runs(a, b, score="score", seed=2).iloc[0]
    grouped = compare_runs(a, b, score="score", group="doc_id", seed=2).iloc[0]
    assert grouped["groups"] == 12 and math.isnan(plain["groups"])
    assert grouped["difference"] == pytest.approx(plain["difference"])
    width = grouped["ci_high"] - grouped["ci_low"]
    assert width > 1.7 * (plain["ci_high"] - plain["ci_low"])  # about sqrt(5) wider
    with pytest.raises(ConfigurationError, match="no 'missing' field"):
        compare_runs(a, b, group="missing")


def test_with_groups_the_p_value_is_a_test_over_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 32: B higher on all 15 summaries of 5 documents. Over items Wilcoxon says p < 0.001,
    # but the documents are the independent units: a signed-rank test over 5 of them cannot
    # go below 2 / 2**5 = 0.0625 (two-sided), whatever the items say.
    groups = [doc for doc in range(5) for _ in range(3)]
    base = [0.1 + 0.05 * index for index in range(15)]
    lifts = [0.02 + 0.01 * index for index in range(15)]
    a = run_of(base, groups=groups)
    b = run_of([x + lift for x, lift in zip(base, lifts, strict=True)], groups=groups)
    over_items = compare_runs(a, b, score="score", n_bootstrap=0).iloc[0]
    assert over_items["p_value"] < 0.001
    assert over_items["test"] == "Wilcoxon signed-rank over 15 items"
    grouped = compare_runs(a, b, score="score", group="doc_id", n_bootstrap=0).iloc[0]
    per_document = pd.Series(lifts).groupby(groups).mean()
    assert grouped["p_value"] == pytest.approx(stats.wilcoxon(per_document).pvalue)
    assert grouped["p_value"] == pytest.approx(0.0625)
    assert grouped["test"] == "Wilcoxon signed-rank over 5 doc_id groups (their mean differences)"
    first, second = a.to_parquet(tmp_path / "a.parquet"), b.to_parquet(tmp_path / "b.parquet")
    assert main(["compare", str(first), str(second), "--group", "doc_id"]) == 0
    printed = capsys.readouterr().out
    assert "p = 0.0625 (Wilcoxon signed-rank over 5 doc_id groups" in printed
    assert "note: only 5 doc_id groups (fewer than 10): too few for a firm figure" in printed
    assert "5e-" not in printed


def test_compare_runs_on_real_runs_of_the_demo_data() -> None:
    data = "data/demo_answers.jsonl"
    a = et.run_evals(data, et.create_textual_difference_scorer(), progress=False)
    b = et.run_evals(data, et.create_textual_difference_scorer(scale=2), progress=False)
    row = et.compare_runs(a, b, n_bootstrap=100).iloc[0]
    assert row["difference"] == pytest.approx(a.scores["textual-difference"].mean)


def test_runs_whose_scorers_are_named_differently_are_compared_by_a_pair_of_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = "data/demo_answers.jsonl"
    a = et.run_evals(data, {"before": et.create_textual_difference_scorer()}, progress=False)
    b = et.run_evals(data, {"after": et.create_textual_difference_scorer(scale=2)}, progress=False)
    with pytest.raises(ConfigurationError, match=r"pass scorer=\('before', 'after'\)"):
        et.compare_runs(a, b)
    row = et.compare_runs(a, b, scorer=("before", "after"), n_bootstrap=100).iloc[0]
    assert row["difference"] == pytest.approx(a.scores["before"].mean)
    assert row["n_pairs"] == len(a)
    with pytest.raises(ConfigurationError, match="run B has no scorer 'before'"):
        et.compare_runs(a, b, scorer=("before", "before"))
    for wrong in (("before",), 3):
        with pytest.raises(ConfigurationError, match="a scorer id or a pair of them"):
            et.compare_runs(a, b, scorer=wrong)  # type: ignore[arg-type]

    first, second = a.to_parquet(tmp_path / "a.parquet"), b.to_parquet(tmp_path / "b.parquet")
    assert main(["compare", str(first), str(second), "--scorer", "before", "after"]) == 0
    assert f"of {len(a)} pairs" in capsys.readouterr().out
    assert main(["compare", str(first), str(second), "--scorer", "a", "b", "c"]) == 2
    assert "one id, or two" in capsys.readouterr().err


# -- tune/test split and the verdict -------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    groups=st.lists(st.integers(0, 15), min_size=4, max_size=60),
    seed=st.integers(0, 2**16),
    share=st.sampled_from([0.3, 0.5, 0.7]),
)
def test_a_split_never_puts_one_group_on_both_sides(
    groups: list[int], seed: int, share: float
) -> None:
    items = [{"id": index, "input": "q", "doc_id": g} for index, g in enumerate(groups)]
    distinct = len(set(groups))
    test_groups = round(share * distinct)
    if min(test_groups, distinct - test_groups) < 2:
        with pytest.raises(ConfigurationError, match="it needs at least"):
            tune_test_split(items, test_share=share, seed=seed)
        return
    parts = tune_test_split(items, test_share=share, seed=seed)
    sides: dict[int, set[str]] = {}
    for g, part in zip(groups, parts, strict=True):
        sides.setdefault(g, set()).add(part)
    assert all(len(side) == 1 for side in sides.values())
    assert sum(side == {"test"} for side in sides.values()) == test_groups
    assert list(parts.index) == list(range(len(groups)))
    assert parts.equals(tune_test_split(items, test_share=share, seed=seed))


def test_too_few_groups_say_how_many_are_needed() -> None:
    items = [{"id": index, "input": "q", "doc_id": index // 2} for index in range(6)]
    with pytest.raises(ConfigurationError, match=r"3 groups of 'doc_id' .* needs at least 4"):
        tune_test_split(items)


def _comparison(seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Tune: the edit fixes the ranking. Test: before and after are equally noisy."""
    generator = np.random.default_rng(seed)
    human = np.tile(np.arange(1.0, 6.0), 24)
    noise = generator.normal(scale=3.0, size=human.size)
    parts = np.where(np.arange(human.size) < 60, "tune", "test")
    after = np.where(
        parts == "tune", human + 0.1 * noise, human + generator.normal(scale=3.0, size=human.size)
    )
    frame = pd.DataFrame(
        {
            "item_id": [f"i{i}" for i in range(human.size)],
            "before": human + noise,
            "after": after,
            "human": human,
            "doc_id": np.arange(human.size) // 3,
        }
    )
    return frame, pd.Series(parts, index=frame["item_id"], name="split")


def test_an_edit_that_helps_tune_but_not_test_cannot_tell() -> None:
    frame, parts = _comparison()
    table = agreement_change(
        frame,
        "human",
        group="doc_id",
        split=parts,
        level="pooled",
        metrics=["spearman"],
        n_bootstrap=300,
    ).set_index("part")
    assert table.loc["tune", "change_ci_low"] > 0  # a clear gain where it was tuned
    assert table.loc["test", "change_ci_low"] < 0 < table.loc["test", "change_ci_high"]
    assert table.loc["test", "verdict"] == "cannot tell"
    assert table.loc["tune", "verdict"] is None
    expected = stats.spearmanr(frame["after"][60:], frame["human"][60:]).statistic
    assert table.loc["test", "after"] == pytest.approx(expected)


def test_a_real_gain_is_better_and_a_loss_is_worse() -> None:
    frame, parts = _comparison()
    improved = frame.assign(after=frame["human"] + 0.1 * (frame["before"] - frame["human"]))
    confirmed = agreement_change(improved, "human", split=parts, metrics=["spearman"])
    assert confirmed.set_index("part").loc["test", "verdict"] == "better on test"
    worse = improved.assign(after=np.where(parts == "tune", improved["after"], -frame["human"]))
    table = agreement_change(worse, "human", split=parts.to_dict(), metrics=["spearman"])
    assert table.set_index("part").loc["test", "verdict"] == "worse on test"


def test_a_test_part_of_two_documents_gets_no_interval_and_no_verdict() -> None:
    # Test: two documents, one of which rates every summary alike. Half the resamples draw
    # that document twice (no correlation), the others the estimate itself: the defined
    # draws would collapse the interval onto the estimate and read as certain.
    frame, _ = _comparison()
    test = pd.DataFrame(
        {
            "item_id": [f"t{i}" for i in range(6)],
            "before": [1.0, 2.0, 3.0, 3.0, 2.0, 1.0],
            "after": [3.0, 2.0, 1.0, 1.0, 2.0, 3.0],
            "human": [1.0, 2.0, 3.0, 4.0, 4.0, 4.0],
            "doc_id": [900, 900, 900, 901, 901, 901],
        }
    )
    both = pd.concat([frame, test], ignore_index=True)
    parts = pd.Series(
        ["tune"] * len(frame) + ["test"] * len(test), index=both["item_id"], name="split"
    )
    table = agreement_change(
        both,
        "human",
        group="doc_id",
        split=parts,
        level="pooled",
        metrics=["spearman"],
        n_bootstrap=400,
    ).set_index("part")
    assert table.loc["test", "change"] < 0  # the estimate itself is still reported
    assert np.isnan(table.loc["test", "change_ci_low"])
    assert np.isnan(table.loc["test", "change_ci_high"])
    assert table.loc["test", "verdict"] == "cannot tell"
    assert np.isfinite(table.loc["tune", "change_ci_low"])  # the tune part has many documents


def test_the_change_per_document_and_at_system_level_matches_scipy() -> None:
    frame, _ = _comparison()
    frame["system_id"] = frame["human"].astype(int) % 3  # systems of unequal quality
    frame.loc[frame["doc_id"] == 4, "after"] = 2.0  # one document scored all alike after
    per_document = agreement_change(
        frame, "human", group="doc_id", metrics=["spearman", "kendall"], n_bootstrap=200
    ).set_index("metric")
    assert set(per_document["level"]) == {"per_group"}  # the default with documents
    for metric, correlate in (("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
        before, after = [], []
        for _, document in frame.groupby("doc_id"):
            before.append(correlate(document["before"], document["human"]).statistic)
            flat = document["after"].nunique() == 1  # ranks nothing: counts 0
            after.append(0.0 if flat else correlate(document["after"], document["human"]).statistic)
        row = per_document.loc[metric]
        assert row["before"] == pytest.approx(np.mean(before))
        assert row["after"] == pytest.approx(np.mean(after))
        assert row["change_ci_low"] <= row["change"] <= row["change_ci_high"]
        assert row["groups"] == frame["doc_id"].nunique()
    assert (
        "1 of 40 doc_id groups scored all their items alike after"
        in per_document.loc["spearman", "note"]
    )
    system = agreement_change(
        frame, "human", group="doc_id", level="system", system="system_id", metrics=["pearson"]
    ).iloc[0]
    means = frame.groupby("system_id")[["before", "after", "human"]].mean()
    assert system["before"] == pytest.approx(
        stats.pearsonr(means["before"], means["human"]).statistic
    )
    assert system["after"] == pytest.approx(
        stats.pearsonr(means["after"], means["human"]).statistic
    )
    assert system["groups"] == 3
    assert system["note"] == "only 3 system_id systems (fewer than 10): too few for a firm figure"
    with pytest.raises(ConfigurationError, match="level='system' needs system="):
        agreement_change(frame, "human", level="system")
    with pytest.raises(ConfigurationError, match="level='per_group' needs group="):
        agreement_change(frame, "human", level="per_group")


def test_no_change_gives_an_exact_zero_interval() -> None:
    frame, _ = _comparison()
    same = frame.assign(after=frame["before"])
    row = agreement_change(same, "human", metrics=["kendall"], n_bootstrap=100).iloc[0]
    assert (row["change"], row["change_ci_low"], row["change_ci_high"]) == (0.0, 0.0, 0.0)
    assert row["part"] == "all"


def test_the_compare_command_prints_the_paired_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_of(FIXED_A).to_parquet(tmp_path / "a.parquet")
    second = run_of([s + 0.2 for s in FIXED_A]).to_parquet(tmp_path / "b.parquet")

    status = main(["compare", str(first), str(second), "--score", "alignment"])

    printed = capsys.readouterr().out
    assert status == 0
    assert "alignment: B - A = +0.1000" in printed  # the alignment axis is half the score
    assert f"B higher on {len(FIXED_A)}, equal on 0, lower on 0" in printed
    assert "score: B - A" not in printed  # only the column asked for

    other = run_of([0.1, 0.2], ids=["x", "y"]).to_parquet(tmp_path / "c.parquet")
    assert main(["compare", str(first), str(other)]) == 2
    assert "only in A" in capsys.readouterr().err


def test_the_plot_draws_each_pair_and_the_interval_of_the_mean() -> None:
    from evaltoolkit.plots import paired_differences

    a, b = run_of(FIXED_A), run_of(FIXED_B)
    figure = paired_differences(a, b, n_bootstrap=200, seed=3)

    ax = figure.axes[0]
    drawn = sorted(float(y) for _, y in ax.collections[0].get_offsets())
    assert drawn == pytest.approx(sorted(np.array(FIXED_B) - np.array(FIXED_A)))
    row = compare_runs(a, b, score="score", n_bootstrap=200, seed=3).iloc[0]
    band = ax.patches[0].get_extents().transformed(ax.transData.inverted())
    assert (band.y0, band.y1) == pytest.approx((row["ci_low"], row["ci_high"]))
    assert "B higher on 8, equal 1, lower 3" in ax.get_title()


def test_the_resampled_kendall_tau_is_scipys_on_tied_and_untied_rows() -> None:
    from evaltoolkit.meta.stats.system import resampled_kendall_tau_b

    generator = np.random.default_rng(5)
    first = generator.integers(0, 4, size=(40, 12)).astype(float)  # many ties
    second = generator.normal(size=(40, 12))
    second[:5] = np.round(second[:5])  # ties on both sides
    first[7] = 2.0  # a constant row: undefined
    expected = [stats.kendalltau(a, b).statistic for a, b in zip(first, second, strict=True)]
    assert resampled_kendall_tau_b(first, second) == pytest.approx(expected, nan_ok=True)
    assert np.isnan(resampled_kendall_tau_b(first, second)[7])


def test_system_level_correlates_the_systems_means() -> None:
    generator = np.random.default_rng(8)
    systems, docs = 6, 20
    quality = generator.normal(size=systems)
    frame = pd.DataFrame(
        {
            "system": np.tile(np.arange(systems), docs),
            "doc": np.repeat(np.arange(docs), systems),
        }
    )
    frame["human"] = quality[frame["system"]] + generator.normal(size=len(frame))
    frame["judge"] = quality[frame["system"]] + generator.normal(size=len(frame))
    table = agreement(frame, "judge", "human", group="doc", system="system", n_bootstrap=300)
    rows = table.query("level == 'system'").set_index("metric")
    means = frame.groupby("system")[["judge", "human"]].mean()
    assert rows.loc["spearman", "value"] == pytest.approx(
        stats.spearmanr(means["judge"], means["human"]).statistic
    )
    assert rows.loc["kendall", "value"] == pytest.approx(
        stats.kendalltau(means["judge"], means["human"]).statistic
    )
    assert rows.loc["pearson", "value"] == pytest.approx(
        stats.pearsonr(means["judge"], means["human"]).statistic
    )
    assert (rows["groups"] == systems).all()
    pearson = rows.loc["pearson"]
    assert pearson["ci_low"] < pearson["value"] <= pearson["ci_high"]


def test_the_system_level_interval_resamples_documents_and_systems_together() -> None:
    # Boot-both (Deutsch, Dror and Roth 2021): each resample draws documents and, apart,
    # systems, both with replacement; the system means over the drawn documents are
    # correlated over the drawn systems. Checked against that definition written out as a
    # loop with scipy, on the same draws (documents first, then systems, one batch).
    generator = np.random.default_rng(11)
    systems, docs, resamples = 7, 12, 150
    quality = generator.normal(size=systems)
    frame = pd.DataFrame(
        {"system": np.tile(np.arange(systems), docs), "doc": np.repeat(np.arange(docs), systems)}
    )
    frame["human"] = quality[frame["system"]] + generator.normal(size=len(frame))
    frame["judge"] = quality[frame["system"]] + generator.normal(size=len(frame))
    table = agreement(frame, "judge", "human", group="doc", system="system", n_bootstrap=resamples)
    row = table.query("level == 'system' and metric == 'spearman'").iloc[0]

    judge = frame.pivot(index="doc", columns="system", values="judge").to_numpy()
    human = frame.pivot(index="doc", columns="system", values="human").to_numpy()
    system_seed = np.random.SeedSequence(0).spawn(5)[4]
    draws = np.random.default_rng(system_seed)
    drawn_docs = draws.integers(0, docs, size=(resamples, docs))
    drawn_systems = draws.integers(0, systems, size=(resamples, systems))
    values = []
    for doc_rows, system_columns in zip(drawn_docs, drawn_systems, strict=True):
        judge_means = judge[doc_rows].mean(axis=0)[system_columns]
        human_means = human[doc_rows].mean(axis=0)[system_columns]
        values.append(stats.spearmanr(judge_means, human_means).statistic)
    expected = np.quantile(np.array(values)[np.isfinite(values)], [0.025, 0.975])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(expected))
    # Documents alone would leave out how much the figure owes to which systems were compared.
    documents_only = [
        stats.spearmanr(judge[rows].mean(axis=0), human[rows].mean(axis=0)).statistic
        for rows in drawn_docs
    ]
    low, high = np.quantile(documents_only, [0.025, 0.975])
    assert row["ci_high"] - row["ci_low"] > high - low


def test_meta_evaluate_adds_system_level_rows_when_the_data_names_systems() -> None:
    frame = pd.DataFrame(
        {
            "sentence1": ["a cat", "a dog", "the sun", "a cat sat", "dogs", "sun"] * 2,
            "sentence2": ["a cat", "a log", "a moon", "a cat sat", "cats", "the sun"] * 2,
            "meaning": [5.0, 3.0, 0.5, 4.0, 1.0, 2.0, 4.5, 2.0, 1.0, 5.0, 2.0, 3.0],
            "system_id": ["x", "y", "z"] * 4,
        }
    )
    evaluation = et.meta.meta_evaluate(
        frame, task="textual-difference", label="meaning", n_bootstrap=0, progress=False
    )
    rows = evaluation.agreement.query("level == 'system'").set_index("metric")
    means = evaluation.scores.groupby("system_id")[["score_textual_difference", "meaning"]].mean()
    expected = stats.spearmanr(means["score_textual_difference"], means["meaning"]).statistic
    assert rows.loc["spearman", "value"] == pytest.approx(expected)

    board = et.compare_judges(
        frame,
        {"plain": et.create_textual_difference_scorer()},
        label="meaning",
        task="textual-difference",
        n_bootstrap=0,
        progress=False,
    )
    assert board.loc[0, "spearman_system"] == pytest.approx(expected)


def test_a_report_of_two_runs_of_the_same_items_compares_them() -> None:
    from evaltoolkit.report import build_report
    from evaltoolkit.report._comparison import comparison_section
    from evaltoolkit.report._data import Run

    a, b = run_of(FIXED_A), run_of([s + 0.2 for s in FIXED_A])
    row = compare_runs(a, b, score="score").iloc[0]

    page = build_report({"before": a, "after": b})

    section = page[page.index("<section id='comparison'>") :]
    section = section[: section.index("</section>")]
    assert "A = before, B = after" in section
    assert f"+0.200 [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]" in section
    assert f"{len(FIXED_A)} / 0 / 0" in section
    assert section.count("<svg") == 2  # score and alignment, drawn

    different = [Run("a", a, None), Run("z", run_of([0.1], ids=["z"]), None)]
    note = str(comparison_section(different))
    assert "The two runs are not compared" in note and "only in A" in note
    assert comparison_section([Run("a", a, None)]) is None


def test_the_comparison_lists_the_items_that_differ_most_first_and_escaped() -> None:
    from evaltoolkit.report import build_report

    ids = ["same", "up-a-little", "<b>down-a-lot</b>", "up-a-lot", "failed"]
    a = run_of([0.5, 0.5, 0.9, 0.1, 0.5], ids=ids)
    b = run_of([0.5, 0.6, 0.2, 0.7, math.nan], ids=ids)

    page = build_report({"before": a, "after": b})

    section = page[page.index("<h3>Where A and B differ most</h3>") :]
    section = section[: section.index("</table>")]
    assert "The 3 of 3 items whose score differs" in section
    order = [section.index(name) for name in ("&lt;b&gt;down-a-lot", "up-a-lot", "up-a-little")]
    assert order == sorted(order)  # -0.7, +0.6, +0.1
    assert "<b>down" not in section
    assert "-0.700" in section and "+0.600" in section
    assert ">same<" not in section and ">failed<" not in section


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_is_scikit_learns_and_the_bootstrap_table_formula_matches_it(
    weights: str | None,
) -> None:
    from sklearn.metrics import cohen_kappa_score

    from evaltoolkit.meta.stats.reliability import kappa_from_table

    generator = np.random.default_rng(11)
    first = generator.integers(1, 6, size=80).astype(float)
    second = np.clip(first + generator.integers(-1, 2, size=80), 1, 5)
    scale = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert cohen_kappa(first, second, weights=weights) == pytest.approx(  # type: ignore[arg-type]
        cohen_kappa_score(first, second, weights=weights, labels=scale)
    )
    # Bootstrap draws weigh items by counts; the table formula must equal the library's.
    counts = generator.integers(0, 3, size=80).astype(float)
    table = np.zeros((5, 5))
    np.add.at(table, (first.astype(int) - 1, second.astype(int) - 1), counts)
    assert kappa_from_table(table, np.array(scale), weights) == pytest.approx(  # type: ignore[arg-type]
        cohen_kappa_score(first, second, weights=weights, labels=scale, sample_weight=counts)
    )


def test_weighted_kappa_counts_an_unused_value_as_a_step() -> None:
    # 1, 2 and 4 used, 3 not: on the values' own scale 2 -> 4 is two steps, not one.
    first, second = [1, 2, 4, 4, 2, 1], [1, 4, 4, 2, 2, 1]
    from sklearn.metrics import cohen_kappa_score

    expected = cohen_kappa_score(first, second, weights="linear", labels=[1, 2, 3, 4])
    assert cohen_kappa(first, second, weights="linear") == pytest.approx(expected)
    assert expected != pytest.approx(cohen_kappa_score(first, second, weights="linear"))
    with pytest.raises(ConfigurationError, match="evenly spaced"):
        cohen_kappa([1.0, 2.0, 2.7], [1.0, 2.7, 2.0], weights="linear")


def test_kappa_of_fractions_is_the_kappa_of_their_positions() -> None:
    # Verdicts such as 0.25 or 0.5 are classes, not a continuous target.
    first = [0.0, 0.25, 0.5, 0.5, 1.0, 0.75]
    second = [0.0, 0.5, 0.5, 0.25, 1.0, 0.75]
    for weights in (None, "quadratic"):
        assert cohen_kappa(first, second, weights=weights) == pytest.approx(  # type: ignore[arg-type]
            cohen_kappa([4 * v for v in first], [4 * v for v in second], weights=weights)  # type: ignore[arg-type]
        )


def test_weighted_kappa_says_which_label_values_it_weighs() -> None:
    # Issue 32: with the value 3 unused, kappa equals scikit-learn's only with
    # labels=[1, 2, 3, 4, 5]; its default (the values used) gives another figure. The table
    # names the values, and cohen_kappa takes them.
    from sklearn.metrics import cohen_kappa_score

    judge = [1, 2, 2, 4, 5, 5, 4, 1, 2, 5, 4, 4]
    human = [1, 2, 2, 4, 5, 4, 4, 1, 2, 5, 5, 4]
    on_scale = cohen_kappa_score(judge, human, weights="quadratic", labels=[1, 2, 3, 4, 5])
    on_used = cohen_kappa_score(judge, human, weights="quadratic")
    assert on_scale != pytest.approx(on_used, abs=0.01)
    assert cohen_kappa(judge, human, weights="quadratic") == pytest.approx(on_scale)
    assert cohen_kappa(judge, human, weights="quadratic", labels=[1, 2, 4, 5]) == pytest.approx(
        on_used
    )
    assert cohen_kappa(judge, human, weights="linear", labels=range(1, 8)) == pytest.approx(
        cohen_kappa_score(judge, human, weights="linear", labels=list(range(1, 8)))
    )
    with pytest.raises(ConfigurationError, match="not among labels"):
        cohen_kappa(judge, human, weights="quadratic", labels=[1, 2, 3])
    table = agreement(pd.DataFrame({"judge": judge, "human": human}), "judge", "human")
    row = table.query("metric == 'kappa_quadratic'").iloc[0]
    assert row["value"] == pytest.approx(on_scale)
    assert "on the values 1, 2, 3, 4, 5 (scikit-learn's labels=[1, 2, 3, 4, 5]" in row["note"]
