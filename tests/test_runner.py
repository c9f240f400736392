"""run_evals / arun_evals / score_frame over every kind of data, with failures kept."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evaltoolkit import (
    ConfigurationError,
    DataLoadError,
    ItemResult,
    arun_evals,
    ascore_frame,
    create_answer_similarity_scorer,
    create_textual_difference_scorer,
    run_evals,
    score_frame,
)
from evaltoolkit.scorers import Sample, Score, Scorer
from evaltoolkit.scorers._base import StepTrace

ITEMS = [
    {"id": "a", "input": "q1", "output": "Paris", "ground_truth": "Paris", "topic": "geo"},
    {"id": "b", "input": "q2", "output": "Lyon", "groundTruth": "Paris", "topic": "geo"},
    {"id": "c", "input": "hello there", "output": "hello there", "topic": "greeting"},
]


class SlowLengthScorer(Scorer):
    """A test scorer that waits, tracks concurrency and scores by output length."""

    id = "slow-length"

    def __init__(self, delay: float = 0.01) -> None:
        self.delay = delay
        self.in_flight = 0
        self.max_in_flight = 0

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        return Score(float(len(str(item.output))), reason="length", details={"length": 1})


def test_scores_and_counts() -> None:
    result = run_evals(
        [*ITEMS, {"id": "d", "input": "q", "output": None}],
        [create_textual_difference_scorer()],
        progress=False,
    )
    summary = result.scores["textual-difference"]
    assert (summary.scored, summary.failed) == (3, 1)
    # "Lyon" against "Paris" shares no character in order: ratio 0, so a score of 0.
    assert result[1].scorer_results["textual-difference"].score == 0.0
    assert summary.mean == pytest.approx((1.0 + 0.0 + 1.0) / 3)
    assert float(summary) == summary.mean


def test_ground_truth_alias_and_fields_kept() -> None:
    result = run_evals(ITEMS, create_textual_difference_scorer(), progress=False)
    assert result[1].ground_truth == "Paris"
    assert result[2].scorer_results["textual-difference"].details["reference"] == "input"
    frame = result.to_frame()
    assert list(frame.columns[:6]) == [
        "item_id",
        "scorer",
        "score",
        "reason",
        "error",
        "error_step",
    ]
    assert list(frame["item_id"]) == ["a", "b", "c"]
    assert list(frame["topic"]) == ["geo", "geo", "greeting"]
    assert {"ratio", "changes", "length_diff", "confidence", "reference"} <= set(frame.columns)


def test_bad_items_stay_in_the_results_with_their_error() -> None:
    data: list[Any] = [
        {"id": 1, "input": "q", "output": "a", "ground_truth": "a"},
        "not a mapping",
        {"id": 3, "input": "q", "output": True},
        {"id": 4, "input": "q"},
        {"id": 5, "input": "q", "output": "b", "ground_truth": "b"},
        {"id": 6, "input": "q", "output": 12, "ground_truth": "12"},
    ]
    with pytest.warns(UserWarning, match="1 item changed on loading"):
        result = run_evals(data, create_textual_difference_scorer(), progress=False)
    assert len(result) == 6
    scores = [item.scorer_results["textual-difference"] for item in result]
    assert [s.failed for s in scores] == [False, True, True, True, False, False]
    assert "item 1: expected a mapping" in str(scores[1].error)
    assert "item 3: field 'output' is bool" in str(scores[2].error)
    assert "item 4: field 'output' is missing" in str(scores[3].error)
    assert all(math.isnan(s.score) for s in scores[1:4])
    # A number where text is expected is scored as its text, with a note saying so.
    assert (result[5].output, scores[5].score) == ("12", 1.0)
    assert result[5].notes == ("field 'output' held the number 12, read as the text '12'",)
    frame = result.to_frame()
    assert len(frame) == 6
    assert frame["error"].notna().sum() == 3


def test_files_of_every_format(tmp_path: Path) -> None:
    frame = pd.DataFrame(ITEMS).drop(columns=["groundTruth"])
    paths = [tmp_path / "d.csv", tmp_path / "d.parquet", tmp_path / "d.jsonl"]
    frame.to_csv(paths[0], index=False)
    frame.to_parquet(paths[1], index=False)
    frame.to_json(paths[2], orient="records", lines=True)
    for path in paths:
        result = run_evals(path, create_textual_difference_scorer(), progress=False)
        assert [item.item_id for item in result] == ["a", "b", "c"], path
        assert result[0].scorer_results["textual-difference"].score == 1.0, path
        assert result[1].ground_truth is None  # the row's ground truth was the alias, dropped


def test_a_bad_jsonl_line_is_one_failed_item(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(
        json.dumps({"input": "q", "output": "a", "ground_truth": "a"})
        + "\n{broken\n"
        + json.dumps({"input": "q", "output": "b", "ground_truth": "b"})
        + "\n"
    )
    result = run_evals(path, create_textual_difference_scorer(), progress=False)
    assert len(result) == 3
    error = result[1].scorer_results["textual-difference"].error
    assert error is not None and "line 2 is not JSON" in error.message


@pytest.mark.parametrize("name", ["missing.jsonl", "data.txt"])
def test_unreadable_files_raise_a_clear_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".txt"):
        path.write_text("x")
    with pytest.raises(DataLoadError, match=r"no such file|unknown file type"):
        run_evals(path, create_textual_difference_scorer(), progress=False)


def test_dataframe_input() -> None:
    frame = pd.DataFrame({"input": ["x", "y"], "output": ["x", "z"], "extra": [1, 2]})
    result = run_evals(frame, create_textual_difference_scorer(), progress=False)
    assert [item.fields["extra"] for item in result] == [1, 2]
    assert result[0].scorer_results["textual-difference"].score == 1.0


def test_sync_and_async_targets_make_the_output() -> None:
    data = [{"input": "abc", "ground_truth": "ABC"}, {"input": "xyz", "ground_truth": "XYZ"}]

    async def shout(text: str) -> str:
        await asyncio.sleep(0)
        return text.upper()

    for target in (str.upper, shout):
        result = run_evals(data, create_textual_difference_scorer(), target=target, progress=False)
        assert [item.output for item in result] == ["ABC", "XYZ"]
        assert result.scores["textual-difference"].mean == 1.0


def test_failing_target_fails_only_its_item() -> None:
    def flaky(text: str) -> str:
        if text == "boom":
            raise RuntimeError("model unavailable")
        return text

    data = [{"id": i, "input": text} for i, text in enumerate(["ok", "boom", "fine"])]
    result = run_evals(data, create_textual_difference_scorer(), target=flaky, progress=False)
    errors = [item.scorer_results["textual-difference"].error for item in result]
    assert errors[0] is None and errors[2] is None
    assert errors[1] is not None
    assert errors[1].step == "target"
    assert "item 1" in errors[1].message and "model unavailable" in errors[1].message


def test_on_item_complete_runs_once_per_item() -> None:
    seen: list[ItemResult] = []
    result = run_evals(
        ITEMS, create_textual_difference_scorer(), on_item_complete=seen.append, progress=False
    )
    assert sorted(item.item_id for item in seen) == ["a", "b", "c"]
    scores_seen = {item.item_id: item.scorer_results["textual-difference"].score for item in seen}
    assert scores_seen == {"a": 1.0, "b": 0.0, "c": 1.0}
    assert len(result) == 3


def test_broken_callback_warns_and_keeps_results() -> None:
    def broken(item: ItemResult) -> None:
        raise ValueError("oops")

    with pytest.warns(RuntimeWarning, match="on_item_complete raised ValueError"):
        result = run_evals(
            ITEMS, create_textual_difference_scorer(), on_item_complete=broken, progress=False
        )
    assert len(result) == 3


def test_concurrency_bounds_items_in_flight() -> None:
    scorer = SlowLengthScorer(delay=0.02)
    data = [{"input": "q", "output": "x" * i} for i in range(20)]
    result = run_evals(data, scorer, concurrency=3, progress=False)
    assert scorer.max_in_flight == 3
    assert [item.scorer_results["slow-length"].score for item in result] == [
        float(i) for i in range(20)
    ]


async def test_sync_call_inside_a_running_event_loop() -> None:
    asyncio.get_running_loop()  # as in a Jupyter cell
    result = run_evals(ITEMS, create_textual_difference_scorer(), progress=False)
    assert len(result) == 3
    scorer_result = create_textual_difference_scorer().run(input="q", output="a", ground_truth="a")
    assert scorer_result.score == 1.0
    async_result = await arun_evals(ITEMS, create_textual_difference_scorer(), progress=False)
    assert (
        async_result.scores["textual-difference"].mean == result.scores["textual-difference"].mean
    )


def test_several_scorers_and_named_scorers() -> None:
    result = run_evals(
        ITEMS,
        {
            "td": create_textual_difference_scorer(),
            "td100": create_textual_difference_scorer(scale=100),
        },
        progress=False,
    )
    assert result.scorer_ids == ["td", "td100"]
    assert result[0].scorer_results["td100"].score == 100.0
    wide = result.to_wide()
    assert len(wide) == 3
    assert {"td.score", "td100.score", "td.ratio", "topic"} <= set(wide.columns)
    with pytest.raises(ConfigurationError, match="share the id"):
        run_evals(ITEMS, [create_textual_difference_scorer(), create_textual_difference_scorer()])


@pytest.mark.parametrize("concurrency", [0, -2, 1.5, True])
def test_bad_concurrency_is_rejected(concurrency: Any) -> None:
    with pytest.raises(ConfigurationError, match="concurrency"):
        run_evals(ITEMS, create_textual_difference_scorer(), concurrency=concurrency)


def test_exports_round_trip(tmp_path: Path) -> None:
    data = [*ITEMS, {"id": "bad", "input": "q", "output": None}]
    result = run_evals(data, create_textual_difference_scorer(), progress=False)
    expected = result.to_frame()
    parquet = pd.read_parquet(result.to_parquet(tmp_path / "r.parquet"))
    csv = pd.read_csv(result.to_csv(tmp_path / "r.csv"))
    jsonl = pd.read_json(result.to_jsonl(tmp_path / "r.jsonl"), lines=True)
    for frame in (parquet, csv, jsonl):
        assert list(frame["item_id"].astype(str)) == ["a", "b", "c", "bad"]
        assert frame["score"].iloc[:3].tolist() == pytest.approx(
            expected["score"].iloc[:3].tolist()
        )
        assert math.isnan(frame["score"].iloc[3])
        assert "field 'output' is missing" in str(frame["error"].iloc[3])
    wide = pd.read_parquet(result.to_parquet(tmp_path / "w.parquet", wide=True))
    assert len(wide) == 4


def test_progress_bar_shows_on_long_runs(capsys: pytest.CaptureFixture[str]) -> None:
    data = [{"input": "q", "output": "x"} for _ in range(8)]
    run_evals(data, SlowLengthScorer(delay=0.25), concurrency=2, progress=True)
    assert "scoring" in capsys.readouterr().err
    run_evals(data, SlowLengthScorer(delay=0.25), concurrency=2, progress=False)
    assert "scoring" not in capsys.readouterr().err


def test_score_frame_adds_columns() -> None:
    frame = pd.DataFrame(
        {"question": ["a", "b"], "answer": ["Paris", "Rome"], "expected": ["Paris", "Paris"]}
    )
    scored = score_frame(
        frame,
        create_textual_difference_scorer(),
        input_col="question",
        output_col="answer",
        ground_truth_col="expected",
        progress=False,
    )
    assert list(scored.columns[:3]) == ["question", "answer", "expected"]
    assert scored["textual-difference.score"].iloc[0] == 1.0
    assert scored["textual-difference.score"].iloc[1] < 1.0
    assert "textual-difference.ratio" in scored.columns
    assert "textual-difference.score" not in frame.columns
    with pytest.raises(ConfigurationError, match="no column 'nope'"):
        score_frame(frame, create_textual_difference_scorer(), input_col="nope")


async def test_ascore_frame_is_the_async_twin() -> None:
    frame = pd.DataFrame({"input": ["q"], "output": ["Paris"], "expected": ["Paris"]})
    scored = await ascore_frame(
        frame, create_textual_difference_scorer(), ground_truth_col="expected", progress=False
    )
    assert scored["textual-difference.score"].tolist() == [1.0]


@pytest.mark.parametrize("column", ["ground_truth", "groundTruth"])
def test_score_frame_uses_a_ground_truth_column_by_default(column: str) -> None:
    frame = pd.DataFrame({"input": ["q", "q"], "output": ["Paris", "Rome"], column: ["Paris"] * 2})
    scored = score_frame(frame, create_answer_similarity_scorer(), progress=False)
    assert scored["answer-similarity.error"].isna().all()
    assert scored["answer-similarity.score"].iloc[0] > scored["answer-similarity.score"].iloc[1]
    named = score_frame(
        frame, create_answer_similarity_scorer(), ground_truth_col=column, progress=False
    )
    pd.testing.assert_series_equal(
        named["answer-similarity.score"], scored["answer-similarity.score"]
    )


def test_the_wrong_kind_of_argument_says_what_was_expected() -> None:
    with pytest.raises(ConfigurationError, match="scorers is None; pass a scorer"):
        run_evals(ITEMS, None, progress=False)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"create it: create_scorer\('summarization'\)"):
        run_evals(ITEMS, "summarization", progress=False)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="score_frame takes a pandas or Dask DataFrame"):
        score_frame(ITEMS, create_textual_difference_scorer(), progress=False)  # type: ignore[call-overload]


def test_a_loading_warning_names_the_users_line_not_the_toolkits() -> None:
    data = [{"input": "q", "output": 12, "ground_truth": "12"}]

    with pytest.warns(UserWarning, match="changed on loading") as blocking:
        run_evals(data, create_textual_difference_scorer(), progress=False)
    with pytest.warns(UserWarning, match="changed on loading") as awaited:
        asyncio.run(arun_evals(data, create_textual_difference_scorer(), progress=False))

    for caught in (blocking, awaited):
        [warning] = [w for w in caught if "changed on loading" in str(w.message)]
        assert warning.filename == __file__


def test_a_loading_warning_in_a_running_loop_names_the_cells_line() -> None:
    # As in a Jupyter cell: run_evals inside a running loop runs on a worker thread.
    data = [{"input": "q", "output": 12, "ground_truth": "12"}]

    async def cell() -> None:
        with pytest.warns(UserWarning, match="changed on loading") as caught:
            run_evals(data, create_textual_difference_scorer(), progress=False)
        [warning] = [w for w in caught if "changed on loading" in str(w.message)]
        assert warning.filename == __file__

    asyncio.run(cell())
