"""The scorer registry: a scorer registered once reaches the command line and meta-evaluation."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from evaltoolkit import ConfigurationError, compare_judges
from evaltoolkit.cli import main
from evaltoolkit.meta import meta_evaluate
from evaltoolkit.scorers import (
    Sample,
    Score,
    Scorer,
    ScorerSpec,
    create_scorer,
    register_scorer,
    scorer_ids,
    unregister_scorer,
)
from evaltoolkit.scorers._base import StepTrace
from evaltoolkit.scorers._internal import scorer_spec, scorer_spec_of

TOY = "shared-words"


class SharedWordsScorer(Scorer):
    """The share of the reference's words that the output repeats; no model."""

    id = TOY

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        reference = set(str(item.ground_truth).lower().split())
        said = set(str(item.output).lower().split())
        share = len(reference & said) / len(reference) if reference else 0.0
        return Score(share, reason=f"{share:.2f} of the words", details={"shared": share})


def create_shared_words_scorer() -> SharedWordsScorer:
    return SharedWordsScorer()


@pytest.fixture
def toy() -> Iterator[ScorerSpec]:
    spec = register_scorer(
        ScorerSpec(
            id=TOY,
            factory=create_shared_words_scorer,
            task="the reference's words repeated",
            layout="answer-reference",
            columns={"question": None, "answer": "said", "reference": "truth"},
            threshold=0.75,
            takes_judge=False,
        )
    )
    yield spec
    unregister_scorer(TOY)


def _labelled() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "said": ["a red cat", "a dog", "the sun is hot", "blue"],
            "truth": [["red cat", "black cat"], ["a dog"], ["the moon"], ["green"]],
            "correct": [True, True, False, False],
        }
    )


def test_a_registered_scorer_is_a_choice_of_run_and_meta_eval(
    toy: ScorerSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("run", "meta-eval"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert f",{TOY}}}" in capsys.readouterr().out, command


def test_a_registered_scorer_runs_from_the_command_line(
    toy: ScorerSpec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "items.jsonl"
    pd.DataFrame(
        {"input": ["q1", "q2"], "output": ["red cat", "a fish"], "ground_truth": ["a red cat"] * 2}
    ).to_json(data, orient="records", lines=True)
    out = tmp_path / "scored.csv"
    # Judge options from the command line go to judged scorers only.
    status = main(["run", str(data), "--scorer", TOY, "--out", str(out), "--no-progress"])
    assert status == 0, capsys.readouterr()
    scored = pd.read_csv(out)
    assert scored["scorer"].tolist() == [TOY, TOY]
    assert scored["score"].tolist() == pytest.approx([2 / 3, 1 / 3])
    assert create_scorer(TOY, model=None, cache=False).id == TOY


def test_meta_evaluate_reads_the_registered_layout_columns_and_threshold(
    toy: ScorerSpec,
) -> None:
    evaluation = meta_evaluate(
        _labelled(), task=TOY, label="correct", n_bootstrap=0, progress=False
    )
    assert evaluation.score_columns == ["score_shared_words"]
    # The best of the references per row: "red cat" is all there, "black cat" half.
    assert evaluation.scores["score_shared_words"].tolist() == pytest.approx([1.0, 1.0, 0.5, 0.0])
    judged = evaluation.agreement[evaluation.agreement["score"] != "baseline"]
    accuracy = judged[judged["metric"] == "accuracy"]
    assert accuracy["threshold"].tolist() == [0.75]
    assert accuracy["value"].tolist() == [1.0]


def test_meta_eval_command_takes_a_registered_task(
    toy: ScorerSpec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "labelled.jsonl"
    _labelled().to_json(data, orient="records", lines=True)
    status = main(["meta-eval", str(data), "--task", TOY, "--label", "correct", "--bootstrap", "0"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "4 labelled items scored, 0 failed" in printed


def test_compare_judges_tells_a_registered_task_by_the_scorers_id(toy: ScorerSpec) -> None:
    judges = {"one": create_shared_words_scorer(), "two": create_shared_words_scorer()}
    board = compare_judges(_labelled(), judges, label="correct", n_bootstrap=0, progress=False)
    assert board.attrs["task"] == TOY
    assert board["judge"].tolist() == ["one", "two"]


def test_a_source_summary_scorer_reports_the_details_it_names() -> None:
    spec = register_scorer(
        ScorerSpec(
            id=TOY,
            factory=create_shared_words_scorer,
            task="the summary's words from the source",
            layout="source-summary",
            columns={"source": "doc", "summary": "text"},
            meta_scores=(("shared", "shared"), ("score", "score")),
            group="doc_id",
            takes_judge=False,
        )
    )
    try:
        frame = pd.DataFrame(
            {
                "doc": ["x y", "x y", "z w", "z w"],
                "text": ["x", "x y", "z", "q"],
                "doc_id": ["d1", "d1", "d2", "d2"],
                "rating": [1.0, 2.0, 2.0, 1.0],
            }
        )
        evaluation = meta_evaluate(frame, task=TOY, label="rating", n_bootstrap=0, progress=False)
        assert evaluation.group == "doc_id"
        assert evaluation.score_columns == ["shared", "score"]
        # The source is the input and has no ground truth: the toy scores against "None".
        assert all(math.isfinite(v) for v in evaluation.scores["shared"])
        assert scorer_spec_of(create_shared_words_scorer()) is spec
    finally:
        unregister_scorer(TOY)


def test_registry_refusals() -> None:
    assert TOY not in scorer_ids()
    with pytest.raises(ConfigurationError, match=r"unknown task 'nope'; choose one of summ"):
        meta_evaluate(_labelled(), task="nope", label="correct", progress=False)
    with pytest.raises(ConfigurationError, match="registered as 'summarization' already"):
        register_scorer(scorer_spec("summarization"))
    with pytest.raises(ConfigurationError, match="layout names the columns source, summary"):
        ScorerSpec(
            id=TOY,
            factory=create_shared_words_scorer,
            task="t",
            layout="source-summary",
            columns={"answer": "a"},
        )
