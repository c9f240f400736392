"""compare_judges: a leaderboard of judges against human labels, over two loopback judges."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pytest
from judge_script import prompt_text, step_of
from loopback_server import Action, LoopbackServer, invalid_json, reply
from matplotlib.figure import Figure
from scipy import stats

import evaltoolkit as et
from evaltoolkit import ConfigurationError
from evaltoolkit.meta import acompare_judges
from evaltoolkit.plots import agreement_vs_cost

# Three documents of four summaries; the human consistency label of each summary.
LABELS = [1, 2, 4, 5, 2, 3, 4, 5, 1, 3, 4, 5]
DOCS = ["d1"] * 4 + ["d2"] * 4 + ["d3"] * 4
# Supported claims out of 4 that each judge finds: "good" follows the labels exactly,
# "noisy" swaps items within each document, and fails on the last item.
GOOD = [0, 1, 3, 4, 1, 2, 3, 4, 0, 2, 3, 4]
NOISY = [2, 1, 0, 4, 3, 1, 2, 4, 1, 4, 0, 3]
FAILING_ITEM = 11
ITEM = re.compile(r"\[item-(\d+)\]")


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "doc_id": DOCS,
            "source": [f"Source document {doc}. It states several facts." for doc in DOCS],
            "summary": [f"Summary [item-{i}] of {doc}." for i, doc in enumerate(DOCS)],
            "consistency": LABELS,
        }
    )


def _judge(supported: list[int], *, fail: int | None = None) -> Any:
    def respond(body: dict[str, Any]) -> Action:
        step = step_of(body)
        found = ITEM.search(prompt_text(body))
        assert found is not None, "the summary reached the judge"
        item = int(found.group(1))
        if step == "source_judgement":
            if item == fail:
                return invalid_json()
            claims = [
                {"claim": f"claim {k}", "supported": k < supported[item], "reason": "r"}
                for k in range(4)
            ]
            return reply({"claims": claims, "questions": ["Q1?"]})
        if step == "coverage":
            return reply({"verdicts": [{"question": "Q1?", "answered": True, "reason": "r"}]})
        raise AssertionError(f"unexpected step {step!r}")

    return respond


@pytest.fixture
def servers() -> Iterator[tuple[LoopbackServer, LoopbackServer]]:
    with (
        LoopbackServer(responder=_judge(GOOD)) as good,
        LoopbackServer(responder=_judge(NOISY, fail=FAILING_ITEM), latency_s=0.03) as noisy,
    ):
        yield good, noisy


def _scorer(server: LoopbackServer, **options: Any) -> et.Scorer:
    return et.create_summarization_scorer(
        "openai/loopback",
        api_base=server.url,
        api_key="sk-test",
        cache=False,
        reason="template",
        max_retries=0,
        backoff_base=0.01,
        **options,
    )


def _expected(supported: list[int], *, fail: int | None = None) -> list[float]:
    return [math.nan if i == fail else k / 4 for i, k in enumerate(supported)]


def _per_group_spearman(scores: list[float], labels: list[int]) -> float:
    values = []
    for doc in dict.fromkeys(DOCS):
        rows = [i for i, d in enumerate(DOCS) if d == doc and not math.isnan(scores[i])]
        values.append(stats.spearmanr([scores[i] for i in rows], [labels[i] for i in rows])[0])
    return float(sum(values) / len(values))


def test_the_leaderboard_ranks_the_judge_that_agrees_with_the_labels_first(
    servers: tuple[LoopbackServer, LoopbackServer],
) -> None:
    good, noisy = servers
    board = et.compare_judges(
        _frame(),
        {"noisy": _scorer(noisy), "good": _scorer(good)},
        label="consistency",
        n_bootstrap=200,
        progress=False,
    )
    assert list(board["judge"]) == ["good", "noisy"]
    # Three documents cannot tell two judges apart, whatever the paired interval says.
    assert list(board["rank"]) == [1, 1] and board["tied"].all()
    assert set(board["note"]) == {"only 3 documents (fewer than 10): too few for a firm figure"}
    # Its attrs hold plain values, so pandas operations that carry them along still work.
    assert list(board.merge(board[["judge"]], on="judge")["judge"]) == ["good", "noisy"]
    assert board.attrs["group"] == "doc_id"  # summarization groups by doc_id by default
    assert set(board["metric"]) == {"spearman_per_group"}
    good_row, noisy_row = board.iloc[0], board.iloc[1]
    good_scores, noisy_scores = _expected(GOOD), _expected(NOISY, fail=FAILING_ITEM)
    # Every figure agrees with scipy on the scores the servers were scripted to produce.
    assert good_row["spearman"] == pytest.approx(stats.spearmanr(good_scores, LABELS)[0])
    kept = [i for i in range(len(LABELS)) if i != FAILING_ITEM]
    assert noisy_row["spearman"] == pytest.approx(
        stats.spearmanr([noisy_scores[i] for i in kept], [LABELS[i] for i in kept])[0]
    )
    assert noisy_row["kendall"] == pytest.approx(
        stats.kendalltau([noisy_scores[i] for i in kept], [LABELS[i] for i in kept])[0]
    )
    assert good_row["agreement"] == pytest.approx(_per_group_spearman(good_scores, LABELS))
    assert noisy_row["agreement"] == pytest.approx(_per_group_spearman(noisy_scores, LABELS))
    assert good_row["ci_low"] <= good_row["agreement"] <= good_row["ci_high"]
    assert good_row["groups"] == 3
    # Items, failures, tokens, cost and latency.
    assert (good_row["items"], good_row["scored"], good_row["failed"]) == (12, 12, 0)
    assert (noisy_row["items"], noisy_row["scored"], noisy_row["failed"]) == (12, 11, 1)
    assert good_row["n"] == 12 and noisy_row["n"] == 11
    assert good_row["tokens"] == good_row["prompt_tokens"] + good_row["completion_tokens"] > 0
    assert good_row["cost"] is None or math.isnan(good_row["cost"])  # not a priced model
    # The noisy server sleeps 0.03 s before each of an item's two answers: a floor, not a race.
    assert noisy_row["mean_latency_s"] >= 0.06
    assert good_row["mean_latency_s"] > 0


def test_pairwise_agreement_matches_scipy(servers: tuple[LoopbackServer, LoopbackServer]) -> None:
    good, noisy = servers
    board = et.compare_judges(
        _frame(),
        {
            "good": _scorer(good),
            "noisy": _scorer(noisy),
            "offline": et.create_summarization_scorer(),
        },
        label="consistency",
        n_bootstrap=0,
        progress=False,
    )
    pairs = pd.DataFrame(board.attrs["pairwise"])
    assert [tuple(pair) for pair in pairs[["judge_a", "judge_b"]].to_numpy()] == [
        ("good", "noisy"),
        ("good", "offline"),
        ("noisy", "offline"),
    ]
    row = pairs.iloc[0]
    good_scores, noisy_scores = _expected(GOOD), _expected(NOISY, fail=FAILING_ITEM)
    kept = [i for i in range(len(LABELS)) if i != FAILING_ITEM]
    a, b = [good_scores[i] for i in kept], [noisy_scores[i] for i in kept]
    assert row["n"] == 11
    assert row["spearman"] == pytest.approx(stats.spearmanr(a, b)[0])
    assert row["kendall"] == pytest.approx(stats.kendalltau(a, b)[0])
    assert row["pearson"] == pytest.approx(stats.pearsonr(a, b)[0])
    assert row["groups"] == 3
    assert list(board["judge"]) == ["good", "noisy", "offline"]
    # The offline judge scores these made-up texts all alike: no correlation is defined.
    assert board["agreement"].iloc[:2].between(-1, 1).all()


async def test_the_async_twin_gives_the_same_leaderboard() -> None:
    judges = {
        "five": et.create_summarization_scorer(max_questions=5, reason="template"),
        "two": et.create_summarization_scorer(max_questions=2, reason="template"),
    }
    options: Mapping[str, Any] = {"label": "consistency", "n_bootstrap": 50, "progress": False}
    board = await acompare_judges(_frame(), judges, **options)
    again = et.compare_judges(_frame(), judges, **options)
    timing = ["mean_latency_s"]  # wall time differs between two runs
    pd.testing.assert_frame_equal(board.drop(columns=timing), again.drop(columns=timing))
    assert list(board["judge"]) == list(again["judge"])


def test_boolean_labels_give_auroc_and_accuracy_at_the_answer_threshold() -> None:
    frame = pd.DataFrame(
        {
            "question": ["capital of france", "capital of italy", "2+2", "largest planet"],
            "golden_answers": [["Lyon", "Paris"], ["Rome"], "4", ["Jupiter"]],
            "candidate": ["Paris", "Milan is the capital.", "four", "I do not know"],
            "human_correct": [True, False, True, False],
        }
    )
    judges = {
        "default": et.create_answer_similarity_scorer(),
        "strict": et.create_answer_similarity_scorer(missing_penalty=0.5),
    }
    board = et.compare_judges(frame, judges, label="human_correct", n_bootstrap=100, progress=False)
    assert set(board["metric"]) == {"auroc"}
    assert {"auroc", "auroc_ci_low", "accuracy", "accuracy_ci_high", "threshold"} <= set(board)
    assert (board["threshold"] == et.meta.ANSWER_THRESHOLD).all()
    assert board["auroc"].between(0, 1).all() and board["accuracy"].between(0, 1).all()
    assert (board["agreement"] == board["auroc"]).all()
    assert (board["items"] == 4).all()


def test_a_list_of_dicts_is_data_as_a_dataframe_is() -> None:
    rows = [
        {"sentence1": "a cat", "sentence2": "a cat", "score": 5.0},
        {"sentence1": "a dog", "sentence2": "a log", "score": 3.0},
        {"sentence1": "the sun", "sentence2": "a moon", "score": 0.5},
    ]
    judges = {"diff": et.create_textual_difference_scorer()}
    options: dict[str, Any] = {"label": "score", "n_bootstrap": 0, "progress": False}
    board = et.compare_judges(rows, judges, **options).drop(columns="mean_latency_s")
    from_frame = et.compare_judges(pd.DataFrame(rows), judges, **options)
    pd.testing.assert_frame_equal(board, from_frame.drop(columns="mean_latency_s"))
    assert board["agreement"].iloc[0] == 1.0
    evaluation = et.meta.meta_evaluate(rows, task="textual-difference", **options)
    assert evaluation.agreement.equals(
        et.meta.meta_evaluate(pd.DataFrame(rows), task="textual-difference", **options).agreement
    )
    for bad, message in ((None, "got NoneType"), ([1, 2], "row 0 of the data is int")):
        with pytest.raises(ConfigurationError, match=message):
            et.compare_judges(bad, judges, **options)  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match=message):
            et.meta.meta_evaluate(bad, task="textual-difference", **options)  # type: ignore[arg-type]


def test_bad_judges_and_options_say_what_to_do() -> None:
    frame = _frame()
    with pytest.raises(ConfigurationError, match="non-empty dict"):
        et.compare_judges(frame, {}, label="consistency")
    with pytest.raises(ConfigurationError, match="not a scorer"):
        et.compare_judges(frame, {"x": "gpt-4o"}, label="consistency")  # type: ignore[dict-item]
    mixed = {"a": et.create_summarization_scorer(), "b": et.create_textual_difference_scorer()}
    with pytest.raises(ConfigurationError, match="different tasks"):
        et.compare_judges(frame, mixed, label="consistency")
    with pytest.raises(ConfigurationError, match="unknown option"):
        et.compare_judges(
            frame, {"a": et.create_summarization_scorer()}, label="consistency", model="x"
        )
    with pytest.raises(ConfigurationError, match="not a score of this task"):
        et.compare_judges(
            frame,
            {"a": et.create_summarization_scorer()},
            label="consistency",
            score="nope",
            progress=False,
        )


def test_agreement_against_cost_draws_one_point_per_judge() -> None:
    board = pd.DataFrame(
        {
            "judge": ["cheap", "dear", "unpriced"],
            "agreement": [0.4, 0.7, 0.5],
            "ci_low": [0.3, 0.6, 0.4],
            "ci_high": [0.5, 0.8, 0.6],
            "cost": [0.001, 0.02, None],
            "metric": "spearman",
        }
    )
    figure = agreement_vs_cost(board)
    assert isinstance(figure, Figure)
    [ax] = figure.axes
    assert len(ax.containers) == 3
    assert [text.get_text() for text in ax.texts] == ["cheap", "dear", "unpriced (cost unknown)"]
    assert "1 judge of unknown cost" in ax.get_title()
    assert ax.get_ylabel() == "agreement with the label (spearman)"
    points = [tuple(container.lines[0].get_xydata()[0]) for container in ax.containers]
    assert points == [(0.001, 0.4), (0.02, 0.7), (0.0, 0.5)]
    with pytest.raises(ConfigurationError, match="leaderboard"):
        agreement_vs_cost(pd.DataFrame({"x": [1]}))


def test_two_judges_compared_item_by_item_and_their_agreement_paired(
    servers: tuple[LoopbackServer, LoopbackServer],
) -> None:
    good, noisy = servers
    comparison = et.meta.compare_judges(
        _frame(),
        {"good": _scorer(good), "noisy": _scorer(noisy), "noisy again": _scorer(noisy)},
        label="consistency",
        score="alignment",
        n_bootstrap=0,
        progress=False,
        keep_runs=True,
    )
    good_scores, noisy_scores = _expected(GOOD), _expected(NOISY, fail=FAILING_ITEM)
    # Each run keeps its items' fields, so a saved run can be grouped and compared later.
    run = comparison.results["good"]
    assert [item.fields["doc_id"] for item in run] == DOCS
    assert [item.fields["consistency"] for item in run] == LABELS
    items = comparison.items()
    judges = ["good", "noisy", "noisy again"]
    assert items.columns.tolist() == ["item_id", "consistency", "doc_id", *judges]
    assert items["good"].tolist() == pytest.approx(good_scores)
    assert items["noisy"].tolist() == pytest.approx(noisy_scores, nan_ok=True)

    # Per-document Spearman of each judge (scipy), the failed item left out of both.
    kept = [i for i in range(len(LABELS)) if i != FAILING_ITEM]
    differences = []
    for doc in dict.fromkeys(DOCS):
        rows = [i for i in kept if DOCS[i] == doc]
        labels = [LABELS[i] for i in rows]
        differences.append(
            stats.spearmanr([good_scores[i] for i in rows], labels)[0]
            - stats.spearmanr([noisy_scores[i] for i in rows], labels)[0]
        )
    row = comparison.paired("good", "noisy", n_bootstrap=500).iloc[0]
    assert row["metric"] == "spearman_per_group"
    assert row["agreement_a"] == pytest.approx(1.0)
    assert row["difference"] == pytest.approx(sum(differences) / 3)
    assert (row["n"], row["groups"]) == (11, 3.0)
    # A resample mean of the documents' differences lies between their extremes.
    assert min(differences) <= row["ci_low"] <= row["difference"] <= row["ci_high"]
    assert row["ci_high"] <= max(differences)
    assert row["ci_low"] < row["ci_high"]
    # The same documents for both judges: a judge against itself differs by exactly 0 on
    # every resample, though its per-document figures vary a lot between documents.
    same = comparison.paired("noisy", "noisy again", n_bootstrap=500).iloc[0]
    assert (same["difference"], same["ci_low"], same["ci_high"]) == (0.0, 0.0, 0.0)
    pooled = comparison.paired("good", "noisy", metric="spearman", n_bootstrap=200).iloc[0]
    assert pooled["difference"] == pytest.approx(
        stats.spearmanr([good_scores[i] for i in kept], [LABELS[i] for i in kept])[0]
        - stats.spearmanr([noisy_scores[i] for i in kept], [LABELS[i] for i in kept])[0]
    )
    assert pooled["ci_low"] <= pooled["difference"] <= pooled["ci_high"]

    # The items on which the two judges differ most, the failed one last.
    table = comparison.disagreements("good", "noisy", top=None)
    assert table.columns.tolist() == [
        "item_id",
        "consistency",
        "doc_id",
        "good",
        "noisy",
        "difference",
        "gap",
    ]
    gaps = [abs(good_scores[i] - noisy_scores[i]) for i in kept]
    assert table["gap"].tolist()[:-1] == sorted(gaps, reverse=True)
    assert table["item_id"].iloc[-1] == items["item_id"].iloc[FAILING_ITEM]
    assert math.isnan(table["gap"].iloc[-1])
    assert len(comparison.disagreements("good", "noisy", top=3)) == 3
    with pytest.raises(ConfigurationError, match=r"no judge 'other'.*'good', 'noisy'"):
        comparison.paired("good", "other")
    with pytest.raises(ConfigurationError, match="unknown metric 'f1'"):
        comparison.paired("good", "noisy", metric="f1")


def _rating_judges(ratings: Mapping[str, list[float]]) -> dict[str, et.Scorer]:
    """Judges whose score of item ``i`` (output ``item-i``) is ``ratings[name][i]``."""
    schema = {
        "type": "object",
        "properties": {"rating": {"type": "number"}},
        "required": ["rating"],
    }

    def judge(values: list[float]) -> et.Scorer:
        step = et.Step(
            name="rate",
            prompt="Rate {{output}}",
            schema=schema,
            offline=lambda output: {"rating": values[int(output.split("-")[1])]},
        )
        return et.create_judged_scorer(
            id="rating", steps=[step], score=lambda context: context.replies["rate"]["rating"]
        )

    return {name: judge(values) for name, values in ratings.items()}


def _rated_frame(documents: int = 20, per_document: int = 5) -> pd.DataFrame:
    count = documents * per_document
    return pd.DataFrame(
        {
            "sentence1": [f"item-{i}" for i in range(count)],
            "sentence2": ["reference"] * count,
            "doc_id": [f"d{i // per_document}" for i in range(count)],
            "human": [float(i % per_document) for i in range(count)],
        }
    )


def test_judges_that_the_paired_interval_cannot_tell_apart_share_a_rank() -> None:
    # Issue 32: two judges ranked 1 and 2 although their paired interval included 0.
    frame = _rated_frame()
    generator = np.random.default_rng(3)
    human = frame["human"].to_numpy()
    ratings = {
        "first": list(human + generator.normal(0, 1.2, size=len(frame))),
        "second": list(human + generator.normal(0, 1.2, size=len(frame))),
        "random": list(generator.normal(size=len(frame))),
    }
    comparison = et.meta.compare_judges(
        frame,
        _rating_judges(ratings),
        label="human",
        task="textual-difference",
        group="doc_id",
        n_bootstrap=300,
        progress=False,
        keep_runs=True,
    )
    board = comparison.leaderboard.set_index("judge")
    assert board.loc["first", "agreement"] != board.loc["second", "agreement"]
    top, runner_up = list(comparison.leaderboard["judge"])[:2]
    paired = comparison.paired(runner_up, top, n_bootstrap=300).iloc[0]
    assert paired["ci_low"] < 0 < paired["ci_high"]
    assert board.loc[top, "rank"] == board.loc[runner_up, "rank"] == 1
    assert board.loc[top, "tied"] and board.loc[runner_up, "tied"]
    # The paired figure beside each judge: its difference to the best judge, as paired().
    assert math.isnan(board.loc[top, "vs_best"])
    assert board.loc[runner_up, "vs_best"] == pytest.approx(paired["difference"])
    assert board.loc[runner_up, "vs_best_ci_low"] == pytest.approx(paired["ci_low"])
    assert board.loc[runner_up, "vs_best_ci_high"] == pytest.approx(paired["ci_high"])
    # A judge that both beat, on paired intervals that exclude 0, ranks after both.
    assert board.loc["random", "rank"] == 3 and not board.loc["random", "tied"]
    assert board.loc["random", "vs_best_ci_high"] < 0
    # Without resamples nothing can be told apart: ranks follow the point estimates only.
    plain = et.compare_judges(
        frame,
        _rating_judges(ratings),
        label="human",
        task="textual-difference",
        group="doc_id",
        n_bootstrap=0,
        progress=False,
    )
    assert list(plain["rank"]) == [1, 2, 3]
    assert "point estimates" in plain.attrs["ranking"]


def test_williams_test_matches_the_published_worked_example() -> None:
    # Silver, Hittner and May (2006), depcor, as cocor's tests check it: r_jk = .3,
    # r_jh = .4, r_kh = .5, n = 100 gives t = -1.0767 (97 df), two-sided p = .2843.
    result = et.meta.williams_test(0.3, 0.4, 0.5, 100)
    assert round(result.statistic, 4) == -1.0767
    assert result.df == 97
    assert round(result.p_value, 4) == 0.2843
    assert et.meta.williams_test(0.4, 0.3, 0.5, 100).statistic == pytest.approx(1.0767, abs=1e-4)
    with pytest.raises(ConfigurationError, match="at least 4"):
        et.meta.williams_test(0.3, 0.4, 0.5, 3)


def test_compare_judges_adds_williams_test_of_each_pair() -> None:
    frame = _rated_frame(documents=12, per_document=5)
    frame["system_id"] = [f"s{i % 5}" for i in range(len(frame))]
    generator = np.random.default_rng(4)
    human = frame["human"].to_numpy()
    ratings = {
        "close": list(human + generator.normal(0, 0.8, size=len(frame))),
        "far": list(human + generator.normal(0, 3.0, size=len(frame))),
    }
    board = et.compare_judges(
        frame,
        _rating_judges(ratings),
        label="human",
        task="textual-difference",
        n_bootstrap=0,
        williams=True,
        progress=False,
    )
    pair = pd.DataFrame(board.attrs["pairwise"]).iloc[0]
    close, far = np.array(ratings["close"]), np.array(ratings["far"])
    expected = et.meta.williams_test(
        stats.spearmanr(close, human).statistic,
        stats.spearmanr(far, human).statistic,
        stats.spearmanr(close, far).statistic,
        len(frame),
    )
    assert (pair["williams_t"], pair["williams_p"]) == pytest.approx(
        (expected.statistic, expected.p_value)
    )
    assert pair["williams_p"] < 0.05
    means = pd.DataFrame({"a": close, "b": far, "h": human, "s": frame["system_id"]})
    means = means.groupby("s").mean()
    over_systems = et.meta.williams_test(
        stats.spearmanr(means["a"], means["h"]).statistic,
        stats.spearmanr(means["b"], means["h"]).statistic,
        stats.spearmanr(means["a"], means["b"]).statistic,
        5,
    )
    assert pair["williams_system_p"] == pytest.approx(over_systems.p_value, nan_ok=True)
    assert pair["systems"] == 5
