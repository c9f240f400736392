"""meta_evaluate and `evaltoolkit meta-eval`: score labelled files, report agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from _support import benchmarks_dir
from judge_script import script_steps
from loopback_server import LoopbackServer, reply

from evaltoolkit import ConfigurationError
from evaltoolkit.cli import main
from evaltoolkit.meta import ANSWER_THRESHOLD, ameta_evaluate, meta_evaluate


def metric(evaluation_table: pd.DataFrame, score: str, name: str, level: str = "pooled") -> float:
    rows = evaluation_table[
        (evaluation_table["score"] == score)
        & (evaluation_table["metric"] == name)
        & (evaluation_table["level"] == level)
    ]
    return float(rows["value"].iloc[0])


def test_textual_difference_agreement_on_a_ranked_pair_set() -> None:
    # Each pair differs more than the one before; the label falls with it.
    base = "the quick brown fox jumps over the lazy dog"
    words = base.split()
    pairs = [" ".join(words[: len(words) - cut]) for cut in range(6)]
    frame = pd.DataFrame({"sentence1": [base] * 6, "sentence2": pairs, "score": [5, 4, 3, 2, 1, 0]})
    evaluation = meta_evaluate(
        frame, task="textual-difference", label="score", n_bootstrap=0, progress=False
    )
    assert evaluation.score_columns == ["score_textual_difference"]
    assert metric(evaluation.agreement, "score_textual_difference", "spearman") == pytest.approx(
        1.0
    )
    assert evaluation.scores["score_textual_difference"].is_monotonic_decreasing


def test_answer_similarity_keeps_the_best_reference(tmp_path: Path) -> None:
    rows = [
        {
            "id": "q1",
            "question": "capital of france",
            "golden_answers": ["Lyon", "Paris"],
            "candidate": "Paris",
            "human_correct": True,
        },
        {
            "id": "q2",
            "question": "capital of italy",
            "golden_answers": ["Rome"],
            "candidate": "Milan is the capital.",
            "human_correct": False,
        },
        {
            "id": "q3",
            "question": "2+2",
            "golden_answers": "4",
            "candidate": "four",
            "human_correct": True,
        },
        {
            "id": "q4",
            "question": "largest planet",
            "golden_answers": ["Jupiter"],
            "candidate": "I do not know",
            "human_correct": False,
        },
    ]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    evaluation = meta_evaluate(
        path, task="answer-similarity", label="human_correct", n_bootstrap=0, progress=False
    )
    scores = evaluation.scores.set_index("item_id")["score_answer_similarity"]
    assert scores["q1"] == 1.0
    assert scores["q3"] == 1.0
    assert scores["q2"] < 0.5
    assert len(evaluation.result) == 5  # q1 was scored against both references
    assert metric(evaluation.agreement, "score_answer_similarity", "auroc") == 1.0
    accuracy = evaluation.agreement[evaluation.agreement["metric"] == "accuracy"]
    assert float(accuracy["threshold"].iloc[0]) == ANSWER_THRESHOLD == 0.4


def test_missing_columns_are_named(tmp_path: Path) -> None:
    frame = pd.DataFrame({"article": ["x"], "summary": ["y"], "consistency": [3.0]})
    with pytest.raises(
        ConfigurationError, match=r"no column 'source' \(from input_col= / --input-col\)"
    ):
        meta_evaluate(frame, task="summarization", label="consistency", progress=False)
    with pytest.raises(ConfigurationError, match=r"no column 'human' \(from --label\)"):
        meta_evaluate(
            frame, task="summarization", label="human", input_col="article", progress=False
        )


@pytest.mark.parametrize(
    ("task", "label", "group"),
    [
        ("summarization", "score", None),
        ("summarization", "coverage", None),
        ("summarization", "human", "alignment"),
        ("textual-difference", "score_textual_difference", None),
        ("summarization", "item_id", None),
    ],
)
def test_a_label_or_group_named_like_a_score_column_is_refused_before_scoring(
    task: str, label: str, group: str | None
) -> None:
    # Before, the score column silently overwrote the label: agreement with the judge's own
    # scores, reported as agreement with the humans.
    frame = pd.DataFrame(
        {
            "source": ["The cat sat on the mat.", "The dog ran home."],
            "summary": ["A cat sat.", "A dog ran."],
            "sentence1": ["a", "b"],
            "sentence2": ["a", "c"],
            "human": [5.0, 1.0],
            label: [5.0, 1.0],
            **({group: ["d1", "d2"]} if group else {}),
        }
    )
    clash = group if group else label
    with pytest.raises(ConfigurationError, match=rf"column '{clash}' has the name of a column"):
        meta_evaluate(frame, task=task, label=label, group=group, progress=False)


def test_the_label_cannot_be_the_group() -> None:
    frame = pd.DataFrame({"source": ["s"], "summary": ["t"], "doc": [1.0]})
    with pytest.raises(ConfigurationError, match=r"the label and the group are the same column"):
        meta_evaluate(frame, task="summarization", label="doc", group="doc", progress=False)


def test_the_cli_refuses_a_label_named_score_with_exit_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "labelled.jsonl"
    rows = [
        {"source": "The cat sat on the mat.", "summary": "A cat sat.", "score": 5},
        {"source": "The dog ran home.", "summary": "A dog ran.", "score": 1},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))

    code = main(["meta-eval", str(path), "--task", "summarization", "--label", "score"])

    assert code == 2
    assert "rename it first" in capsys.readouterr().err


def test_a_second_run_reuses_the_judge_cache(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    script_steps(
        loopback_server,
        {
            "source_judgement": lambda body: reply(
                {
                    "claims": [
                        {"claim": "c", "supported": "wrong" not in json.dumps(body), "reason": "r"}
                    ],
                    "questions": ["Q?"],
                }
            ),
            "coverage": {"verdicts": [{"question": "Q?", "answered": True, "reason": "r"}]},
        },
    )
    frame = pd.DataFrame(
        {
            "doc_id": ["d"] * 4,
            "source": ["The sky is blue."] * 4,
            "summary": ["blue sky", "wrong sky", "blue", "wrong"],
            "consistency": [5.0, 1.0, 4.0, 2.0],
        }
    )
    options = {
        "model": "openai/loopback",
        "api_base": loopback_server.url,
        "api_key": "k",
        "cache": tmp_path / "cache",
        "n_bootstrap": 0,
        "progress": False,
    }
    first = meta_evaluate(frame, task="summarization", label="consistency", **options)
    assert loopback_server.requests_total == 8
    second = meta_evaluate(frame, task="summarization", label="consistency", **options)
    assert loopback_server.requests_total == 8
    pd.testing.assert_frame_equal(first.scores, second.scores)
    assert first.group == "doc_id"
    assert metric(first.agreement, "alignment", "spearman", "per_group") == pytest.approx(
        0.894, abs=1e-3
    )


def test_cli_on_summeval_with_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summeval = benchmarks_dir() / "summeval_dev.jsonl"
    out = tmp_path / "agreement.csv"
    status = main(
        [
            "meta-eval",
            str(summeval),
            "--task",
            "summarization",
            "--label",
            "consistency",
            "--limit",
            "48",
            "--bootstrap",
            "100",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "48 labelled items scored, 0 failed" in printed
    assert "alignment [per doc_id (3 groups)" in printed
    table = pd.read_csv(out)
    assert set(table["score"]) == {"alignment", "coverage", "score", "baseline"}
    assert set(table["level"]) == {"pooled", "per_group", "system", "baseline"}
    assert "alignment [system level: means of 16 systems" in printed
    assert "baseline [no judgement" in printed
    assert (table["n"] == 48).all()
    assert table["value"].between(-1, 1).all()


async def test_ameta_evaluate_is_the_async_twin() -> None:
    frame = pd.DataFrame(
        {
            "sentence1": ["a b c", "a b c", "a b c"],
            "sentence2": ["a b c", "a b", "x"],
            "score": [5.0, 3.0, 0.0],
        }
    )
    evaluation = await ameta_evaluate(
        frame, task="textual-difference", label="score", n_bootstrap=0, progress=False
    )
    assert metric(evaluation.agreement, "score_textual_difference", "spearman") == pytest.approx(
        1.0
    )


def test_against_another_label_equals_a_second_meta_evaluation_without_scoring_again() -> None:
    frame = pd.DataFrame(
        {
            "source": ["The cat sat on the mat in Paris on Monday."] * 3
            + ["The dog ran home to Rome after the storm."] * 3,
            "summary": [
                "The cat sat on the mat.",
                "The cat sat in Paris.",
                "The dog sat on the mat in Rome.",
                "The dog ran home to Rome.",
                "The dog ran home.",
                "The cat flew to Paris.",
            ],
            "faithful": [5.0, 4.0, 1.0, 5.0, 4.0, 1.0],
            "complete": [3.0, 2.0, 1.0, 4.0, 1.0, 2.0],
            "doc": ["a", "a", "a", "b", "b", "b"],
            "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],  # a label named like a score column
        }
    )
    options = {"task": "summarization", "group": "doc", "n_bootstrap": 50, "progress": False}
    faithful = meta_evaluate(frame, label="faithful", **options)

    complete = faithful.against("complete")
    expected = meta_evaluate(frame, label="complete", **options)

    assert complete.result is faithful.result  # the same run: nothing scored twice
    assert complete.label == "complete"
    assert complete.scores["complete"].tolist() == [3.0, 2.0, 1.0, 4.0, 1.0, 2.0]
    assert "faithful" not in complete.scores.columns
    pd.testing.assert_frame_equal(complete.scores, expected.scores)
    pd.testing.assert_frame_equal(complete.agreement, expected.agreement)
    assert not complete.agreement["value"].equals(faithful.agreement["value"])
    with pytest.raises(ConfigurationError, match=r"no column 'fluency'"):
        faithful.against("fluency")
    with pytest.raises(ConfigurationError, match=r"column 'score' has the name"):
        faithful.against("score")


def _meta_eval_demo(path: str) -> int:
    """`meta-eval` of a demo-shaped file, with no column named: run's columns are read."""
    return main(
        [
            "meta-eval",
            path,
            "--task",
            "summarization",
            "--label",
            "human_score",
            "--bootstrap",
            "0",
            "--no-progress",
        ]
    )


def test_meta_eval_reads_the_columns_run_reads_by_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = _meta_eval_demo("data/demo_summaries.jsonl")

    out = capsys.readouterr().out
    assert status == 0
    assert "16 labelled items scored, 0 failed" in out
    answers = meta_evaluate(
        "data/demo_answers.jsonl",
        task="answer-similarity",
        label="human_correct",
        n_bootstrap=0,
        progress=False,
    )
    assert len(answers.scores) == 16


def test_a_missing_default_column_names_both_names_it_looked_for() -> None:
    frame = pd.DataFrame({"article": ["x"], "summary": ["y"], "consistency": [3.0]})

    with pytest.raises(ConfigurationError) as raised:
        meta_evaluate(frame, task="summarization", label="consistency", progress=False)

    message = str(raised.value)
    assert "no column 'source'" in message and "'input'" in message
    assert "its columns are article, summary, consistency" in message


def test_meta_eval_counts_the_items_that_have_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        json.loads(line)
        for line in Path("data/demo_summaries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    for position, row in enumerate(rows):
        if position % 2:
            row["human_score"] = None
    half = tmp_path / "half.jsonl"
    half.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    status = _meta_eval_demo(str(half))

    out = capsys.readouterr().out
    assert status == 0
    assert "16 items scored, 8 of them with a 'human_score' label, 0 failed" in out
    assert "16 labelled" not in out


def test_meta_eval_on_two_items_says_they_are_too_few(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 32: two items printed "spearman -1.000 [-1.000, -1.000]", an interval that
    # looks exact and means nothing.
    data = tmp_path / "two.jsonl"
    rows = [
        {"sentence1": "a cat sat", "sentence2": "a cat sat", "score": 1.0},
        {"sentence1": "a dog", "sentence2": "the sun rose", "score": 5.0},
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    command = ["meta-eval", str(data), "--task", "textual-difference", "--label", "score"]
    status = main([*command, "--no-progress", "--bootstrap", "200"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "[-1.000, -1.000]" not in printed
    assert "spearman               -1.000  (too few items for an interval)" in printed
    assert "note: only 2 items (fewer than 10): too few for a firm figure" in printed
    evaluation = meta_evaluate(
        pd.DataFrame(rows), task="textual-difference", label="score", progress=False
    )
    pooled = evaluation.agreement.query("level == 'pooled'").set_index("metric")
    assert pooled.loc["spearman", "note"] == (
        "only 2 items (fewer than 10): too few for a firm figure"
    )
