"""The baselines are registered scorers: run_evals, meta_evaluate, compare_judges, the tuner."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pytest
from _support import DATA, benchmarks_dir
from rouge_score import rouge_scorer
from scipy import stats

import evaltoolkit as et
from evaltoolkit import ConfigurationError
from evaltoolkit.meta import load_qa_equivalence, load_summeval, meta_evaluate
from evaltoolkit.scorers import (
    create_naive_overlap_scorer,
    create_rouge_scorer,
    create_summary_length_scorer,
    create_token_f1_scorer,
    scorer_ids,
)
from evaltoolkit.scorers._internal import BASELINE_IDS
from evaltoolkit.widgets import PromptTuner

SOURCE = (
    "The council of Port Alden voted on Tuesday to close the old harbour bridge for repairs. "
    "The work will take six months. It will cost 4 million euros. The regional government "
    "pays. Ferries will run in the meantime."
)


def test_every_baseline_is_registered_and_runs_under_run_evals() -> None:
    assert set(BASELINE_IDS) <= set(scorer_ids())
    items = [
        {"id": "a", "input": SOURCE, "output": "The council voted to close the harbour bridge."},
        {"id": "b", "input": SOURCE, "output": "Aliens landed. The bridge is closed."},
    ]
    summaries = et.run_evals(
        items,
        [create_naive_overlap_scorer(), create_summary_length_scorer(), create_rouge_scorer()],
        progress=False,
    )
    assert {name: summary.scored for name, summary in summaries.scores.items()} == {
        "naive-overlap": 2,
        "summary-length": 2,
        "rouge": 2,
    }
    frame = summaries.to_frame().set_index(["item_id", "scorer"])
    assert frame.loc[("a", "summary-length"), "score"] == 8.0
    # "Aliens landed." has no content word of the source: the weakest sentence decides.
    assert frame.loc[("b", "naive-overlap"), "alignment_score"] == 0.0
    assert frame.loc[("a", "naive-overlap"), "alignment_score"] == 1.0
    answers = et.run_evals(
        [{"id": "q", "input": "capital?", "output": "Paris, France", "ground_truth": ["paris"]}],
        et.create_scorer("token-f1"),
        progress=False,
    )
    assert answers.scores["token-f1"].mean == pytest.approx(2 / 3)


def test_naive_overlap_is_the_benchmark_readmes_definition() -> None:
    # Alignment: content-word precision of the summary's weakest sentence against the source;
    # coverage: recall of the source's first four sentences' content words (lower-cased,
    # stop words removed); the score is the lower of the two.
    summary = "The council closed the bridge. Ferries run. Pilots strike today."
    result = create_naive_overlap_scorer().run(input=SOURCE, output=summary)
    # Content words of the sentences: {council, closed, bridge}, {ferries, run},
    # {pilots, strike, today}: the last has none in the source.
    assert result.details["alignment_score"] == 0.0
    lead = {
        "council", "port", "alden", "voted", "tuesday", "close", "old", "harbour", "bridge",
        "repairs", "work", "take", "six", "months", "cost", "4", "million", "euros",
        "regional", "government", "pays",
    }  # fmt: skip
    assert result.details["coverage_score"] == pytest.approx(2 / len(lead))  # council, bridge
    assert result.score == 0.0
    assert result.details["decided_by"] == "alignment"


def test_rouge_is_rouge_scores_against_the_ground_truth_or_the_source() -> None:
    reference = "The council voted to close the harbour bridge for six months."
    summary = "The harbour bridge closes for six months."
    library = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    with_truth = create_rouge_scorer().run(input=SOURCE, output=summary, ground_truth=reference)
    expected = library.score(reference, summary)
    for name in ("rouge1", "rouge2", "rougeL"):
        assert with_truth.details[f"{name}_score"] == pytest.approx(expected[name].fmeasure)
    assert with_truth.score == pytest.approx(expected["rougeL"].fmeasure)
    assert with_truth.details["reference"] == "ground_truth"
    several = create_rouge_scorer(score="rouge1").run(
        input=SOURCE, output=summary, ground_truth=["unrelated words", reference]
    )
    assert several.score == pytest.approx(expected["rouge1"].fmeasure)  # the best reference
    against_source = create_rouge_scorer().run(input=SOURCE, output=summary)
    assert against_source.details["reference"] == "source"
    assert against_source.score == pytest.approx(library.score(SOURCE, summary)["rougeL"].fmeasure)
    with pytest.raises(ConfigurationError, match="rouge1, rouge2, rougeL"):
        create_rouge_scorer(score="rougeLsum")


def test_token_f1_normalises_as_squad_does_and_needs_a_ground_truth() -> None:
    scorer = create_token_f1_scorer()
    assert scorer.run(input="q", output="The Beatles!", ground_truth="beatles").score == 1.0
    result = scorer.run(input="q", output="no", ground_truth=None)
    assert result.failed and result.error is not None
    assert "ground truth" in result.error.message


def test_baselines_serve_meta_evaluate_compare_judges_and_the_tuner() -> None:
    data = et.meta.load_table(DATA / "demo_summaries.jsonl")
    naive = meta_evaluate(
        data,
        task="naive-overlap",
        label="human_score",
        input_col="input",
        output_col="output",
        n_bootstrap=0,
        progress=False,
    )
    assert naive.score_columns == ["alignment", "coverage", "score"]
    assert naive.group == "doc_id"
    board = et.compare_judges(
        data,
        {
            "offline": et.create_summarization_scorer(reason="template"),
            "naive": create_naive_overlap_scorer(),
            "length": create_summary_length_scorer(),
        },
        label="human_score",
        input_col="input",
        output_col="output",
        n_bootstrap=0,
        progress=False,
    ).set_index("judge")
    pooled = stats.spearmanr(naive.scores["score"], naive.scores["human_score"]).statistic
    assert board.loc["naive", "spearman"] == pytest.approx(pooled)
    words = data["output"].str.split().str.len()
    assert board.loc["length", "spearman"] == pytest.approx(
        stats.spearmanr(words, data["human_score"]).statistic
    )
    with pytest.raises(ConfigurationError, match="judge 'length' has no 'coverage' score"):
        et.compare_judges(
            data,
            {"naive": create_naive_overlap_scorer(), "length": create_summary_length_scorer()},
            label="human_score",
            score="coverage",
            input_col="input",
            output_col="output",
            n_bootstrap=0,
            progress=False,
        )
    tuner = PromptTuner(
        et.create_summarization_scorer(), data, labels="human_score", sample=16, axis="coverage"
    )
    assert tuner.baseline is not None and tuner.baseline.id == "naive-overlap"
    tuner.sliders["answer_share"].value = 0.9
    comparison = tuner.run()
    baseline = tuner.baseline_agreement
    assert baseline is not None
    test = baseline.query("part == 'test' and metric == 'spearman'").iloc[0]
    judged = tuner.agreement
    assert judged is not None
    assert test["after"] == pytest.approx(
        judged.query("part == 'test' and metric == 'spearman'")["after"].item()
    )
    naive_coverage = naive.scores.set_index("item_id")["coverage"]
    in_test = comparison[comparison.part == "test"]
    per_document = [
        stats.spearmanr(naive_coverage[group.item_id.astype(str)], group.human_score).statistic
        for _, group in in_test.groupby("doc_id")
    ]
    assert test["before"] == pytest.approx(sum(per_document) / len(per_document))
    shown = re.sub(r"<[^>]+>", "", tuner.results.value)
    assert "Beside the naive-overlap baseline (per-document Spearman of the coverage axis" in shown
    assert PromptTuner(et.create_summarization_scorer(), data, baseline=None).baseline is None


@pytest.mark.benchmarks
def test_the_baselines_reach_the_benchmark_readmes_figures() -> None:
    # The README of the benchmarks: naive 0.350 (consistency, alignment) and 0.270 (relevance,
    # coverage), per-document Spearman on SummEval dev; token F1 AUROC 0.909 on EVOUNA-NQ;
    # "tokenisation details move them by about 0.01".
    folder = benchmarks_dir()
    summeval = load_summeval(folder / "summeval_dev.jsonl")
    options: dict[str, Any] = {"input_col": "input", "output_col": "output", "progress": False}
    consistency = meta_evaluate(
        summeval, task="naive-overlap", label="consistency", n_bootstrap=0, **options
    )
    relevance = consistency.against("relevance")

    def per_document(evaluation: Any, axis: str) -> float:
        table = evaluation.agreement
        rows = table.query(f"score == '{axis}' and metric == 'spearman' and level == 'per_group'")
        return float(rows["value"].item())

    assert per_document(consistency, "alignment") == pytest.approx(0.350, abs=0.01)
    assert per_document(relevance, "coverage") == pytest.approx(0.270, abs=0.01)
    answers = load_qa_equivalence(folder / "evouna_nq_dev.jsonl")
    f1 = meta_evaluate(
        answers,
        task="token-f1",
        label="human_correct",
        input_col="input",
        output_col="output",
        ground_truth_col="ground_truth",
        n_bootstrap=0,
        progress=False,
    )
    auroc = f1.agreement.query("metric == 'auroc' and level == 'pooled'")["value"].item()
    assert auroc == pytest.approx(0.909, abs=0.01)
    assert isinstance(summeval, pd.DataFrame)
