"""read_results and EvalResult.from_frame: saved results come back as they were written."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from _support import DATA
from fake_judge import FAIL_MARK, CoverageFailingJudge

import evaltoolkit as et
from evaltoolkit import (
    DataLoadError,
    EvalResult,
    ItemResult,
    ModelCall,
    ScoreResult,
    StepError,
    Usage,
    read_results,
)
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.records._internal import as_eval_result, frame_layout

FORMATS = ("parquet", "csv", "jsonl")
UNICODE = "Zoë's café — 東京 ☃ «quoted» \"double\" 'single', commas, and\nnew lines"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def summaries() -> EvalResult:
    """Summarization and textual difference; the first item fails at input, one at coverage."""
    rows = _lines(DATA / "demo_summaries.jsonl")
    source = rows[0]["input"]
    data = [
        {"id": "no-output", "input": source, "output": None, "doc_id": "x"},
        *rows,
        {"id": "ünï-☃", "input": source, "output": f"{UNICODE} {FAIL_MARK}", "doc_id": "u"},
    ]
    return et.run_evals(
        data,
        [
            et.create_summarization_scorer(CoverageFailingJudge()),
            et.create_textual_difference_scorer(),
        ],
        progress=False,
    )


@pytest.fixture(scope="module")
def answers() -> EvalResult:
    """Answer similarity over the demo answers (string ids) plus an item without an output."""
    rows = [*_lines(DATA / "demo_answers.jsonl"), {"id": "none", "input": "q", "output": None}]
    return et.run_evals(rows, et.create_answer_similarity_scorer(), progress=False)


@pytest.fixture(scope="module")
def int_ids() -> EvalResult:
    """Textual difference with integer ids, unicode text, a nested field and a failure."""
    data = [
        {"id": 10, "input": UNICODE, "output": UNICODE, "ground_truth": UNICODE},
        {"id": 11, "input": "q", "output": None, "meta": {"k": [1, 2], "é": True}},
        {"id": 12, "input": "q", "output": "a b c", "ground_truth": "a b d", "score": 5},
    ]
    return et.run_evals(data, et.create_textual_difference_scorer(), progress=False)


@pytest.fixture(scope="module")
def mixed_ids() -> EvalResult:
    """Ids that are numbers and text in one run."""
    data = [
        {"id": 1, "input": "q", "output": "a", "ground_truth": "a"},
        {"id": "b-2", "input": "q", "output": None},
        {"id": 3, "input": "q", "output": "x y", "ground_truth": "x"},
    ]
    return et.run_evals(data, et.create_textual_difference_scorer(), progress=False)


def _call(step: str, stage: Any, *, usage: Usage | None, cost: float | None, cached: bool = False):
    return ModelCall(
        step=step,
        stage=stage,
        model="openai/judge",
        prompt=f"[user]\nprompt of {step} <b>",
        raw_reply=None if step == "broken" else f'{{"step": "{step}"}}',
        usage=usage,
        cost=cost,
        cached=cached,
    )


@pytest.fixture(scope="module")
def with_calls() -> EvalResult:
    """Hand-built results with usage, cost, cached calls, a repeated step and a judged source."""
    fresh = ScoreResult(
        scorer="summarization",
        score=0.5,
        reason="coverage decided",
        preprocess_step_result={"alignment": [{"claim": "c", "supported": True, "reason": "r"}]},
        analyze_step_result={"coverage": []},
        details={"alignment_score": 1.0, "coverage_score": 0.5, "source": UNICODE, "flag": True},
        calls=(
            _call("source_judgement", "preprocess", usage=Usage(120, 30), cost=0.002),
            _call("coverage", "analyze", usage=Usage(80, 20), cost=0.001),
            _call("coverage", "analyze", usage=Usage(5, 5), cost=0.0005),
            _call("reason", "reason", usage=Usage(7, 7), cost=0.25, cached=True),
        ),
        judge_model="openai/judge",
        latency_s=1.25,
        run_id="run-1",
    )
    unknown_cost = ScoreResult(
        scorer="summarization",
        score=math.nan,
        calls=(_call("broken", "preprocess", usage=Usage(9, 0), cost=None),),
        judge_model="openai/judge",
        error=StepError("broken", "the reply never validated", "JudgeReplyError"),
        run_id="run-1",
    )
    items = [
        ItemResult(
            item_id=0,
            index=0,
            input=[{"role": "user", "content": UNICODE}],
            output=[{"role": "assistant", "content": "summary"}],
            fields={"doc_id": "d1", "human": 4},
            scorer_results={"summarization": fresh},
        ),
        ItemResult(
            item_id=1,
            index=1,
            input="plain",
            output="summary two",
            fields={"doc_id": "d2", "human": 1},
            scorer_results={"summarization": unknown_cost},
        ),
    ]
    return EvalResult(items=items, scorer_ids=["summarization"], run_id="run-1")


RUNS = ("summaries", "answers", "int_ids", "with_calls")


def _write(result: EvalResult, folder: Path, fmt: str, *, wide: bool) -> Path:
    path = folder / f"results{'-wide' if wide else ''}.{fmt}"
    getattr(result, f"to_{fmt}")(path, wide=wide)
    return path


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("run", RUNS)
def test_long_exports_read_back_to_the_same_frame(
    run: str, fmt: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    result: EvalResult = request.getfixturevalue(run)
    again = read_results(_write(result, tmp_path, fmt, wide=False))
    pd.testing.assert_frame_equal(again.to_frame(), result.to_frame())
    assert again.scorer_ids == result.scorer_ids
    assert [item.item_id for item in again] == [item.item_id for item in result]
    for scorer, summary in result.scores.items():
        back = again.scores[scorer]
        assert (back.scored, back.failed) == (summary.scored, summary.failed)
        assert back.mean == pytest.approx(summary.mean, nan_ok=True)
    assert again.usage == result.usage
    assert again.cost == pytest.approx(result.cost) if result.cost is not None else True


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("run", RUNS)
def test_wide_exports_read_back_to_the_same_frames(
    run: str, fmt: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    result: EvalResult = request.getfixturevalue(run)
    again = read_results(_write(result, tmp_path, fmt, wide=True))
    pd.testing.assert_frame_equal(again.to_wide(), result.to_wide())
    pd.testing.assert_frame_equal(again.to_frame(), result.to_frame())


@pytest.mark.parametrize("fmt", ["parquet", "jsonl", "csv"])
def test_ids_that_are_numbers_and_text_keep_their_types(
    fmt: str, mixed_ids: EvalResult, tmp_path: Path
) -> None:
    again = read_results(_write(mixed_ids, tmp_path, fmt, wide=False))
    assert [item.item_id for item in again] == [1, "b-2", 3]
    pd.testing.assert_frame_equal(again.to_frame(), mixed_ids.to_frame())


def test_failures_come_back_with_their_step_message_and_nan_score(
    summaries: EvalResult, tmp_path: Path
) -> None:
    again = read_results(_write(summaries, tmp_path, "csv", wide=False))
    first = again[0].scorer_results["summarization"]
    assert math.isnan(first.score) and first.error is not None
    assert first.error.step == "input"
    assert "output" in first.error.message
    last = again[len(again) - 1]
    coverage = last.scorer_results["summarization"]
    assert coverage.error is not None and coverage.error.step == "coverage"
    assert coverage.raw_replies["coverage"] == '{"verdicts": [oops'
    assert UNICODE in str(last.output)
    # The other scorer of the same item scored it.
    assert not math.isnan(last.scorer_results["textual-difference"].score)


def test_details_fields_and_calls_come_back_typed(with_calls: EvalResult, tmp_path: Path) -> None:
    again = read_results(_write(with_calls, tmp_path, "jsonl", wide=False))
    item = again[0]
    result = item.scorer_results["summarization"]
    assert result.details == with_calls[0].scorer_results["summarization"].details
    assert item.fields == {"doc_id": "d1", "human": 4}
    assert item.input == [{"role": "user", "content": UNICODE}]  # a message list again
    assert result.preprocess_step_result == {
        "alignment": [{"claim": "c", "supported": True, "reason": "r"}]
    }
    assert result.prompts == with_calls[0].scorer_results["summarization"].prompts
    assert result.usage == Usage(205, 55)  # the cached call's tokens do not count
    assert result.cost == pytest.approx(0.0035)
    assert sum(call.cached for call in result.calls) == 1
    assert len(result.calls) == 4
    assert result.latency_s == 1.25 and result.run_id == "run-1"
    assert again.run_id == "run-1"
    failed = again[1].scorer_results["summarization"]
    assert failed.cost is None and failed.raw_replies == {"broken": None}


def test_an_item_field_named_like_a_column_keeps_its_name(
    int_ids: EvalResult, tmp_path: Path
) -> None:
    assert "item_score" in int_ids.to_frame().columns
    again = read_results(_write(int_ids, tmp_path, "parquet", wide=False))
    assert again[2].fields["score"] == 5
    assert again[1].fields["meta"] == {"k": [1, 2], "é": True}


def test_from_frame_is_the_inverse_of_to_frame(summaries: EvalResult) -> None:
    frame = summaries.to_frame()
    pd.testing.assert_frame_equal(EvalResult.from_frame(frame).to_frame(), frame)
    assert frame_layout(frame) == "long"
    assert frame_layout(summaries.to_wide()) == "wide"
    assert frame_layout(pd.DataFrame({"score": [1.0]})) is None


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_an_empty_run_round_trips(tmp_path: Path, suffix: str) -> None:
    empty = EvalResult(items=[], scorer_ids=[])
    written = getattr(empty, f"to_{suffix[1:]}")(tmp_path / f"empty{suffix}")
    again = read_results(written)
    assert len(again) == 0 and again.scorer_ids == []


def test_an_empty_file_that_cannot_be_an_export_says_it_is_empty(tmp_path: Path) -> None:
    for name in ("blank.csv", "blank.parquet"):
        (tmp_path / name).write_text("\n")
        with pytest.raises(DataLoadError, match=rf"{name}' is empty: it is not a results"):
            read_results(tmp_path / name)


def test_a_file_that_is_not_an_export_names_the_missing_columns(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    pd.DataFrame({"item_id": [1], "input": ["q"], "output": ["a"]}).to_csv(path, index=False)
    with pytest.raises(DataLoadError) as caught:
        read_results(path)
    message = str(caught.value)
    assert "not an evaltoolkit results export" in message
    assert "'scorer'" in message and "'score'" in message and "'raw_replies'" in message
    assert "'input'" not in message  # present columns are not reported missing
    assert "to_parquet" in message


def test_read_results_errors_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(DataLoadError, match="no such results file"):
        read_results(tmp_path / "missing.parquet")
    other = tmp_path / "results.xlsx"
    other.write_text("x")
    with pytest.raises(DataLoadError, match=r"\.parquet, \.csv or \.jsonl"):
        read_results(other)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"item_id": 1}\nnot json\n')
    with pytest.raises(DataLoadError, match="line 2"):
        read_results(broken)
    with pytest.raises(ConfigurationError, match="expected an EvalResult"):
        as_eval_result(42)  # type: ignore[arg-type]


def test_a_path_a_frame_and_a_result_give_the_same_result(
    answers: EvalResult, tmp_path: Path
) -> None:
    path = answers.to_parquet(tmp_path / "answers.parquet")
    for value in (path, str(path), answers.to_frame(), answers):
        pd.testing.assert_frame_equal(as_eval_result(value).to_frame(), answers.to_frame())


# -- files edited the way people edit CSV files -----------------------------------------------


def _scores_by_item(result: EvalResult) -> dict[tuple[Any, int], dict[str, float]]:
    return {
        (item.item_id, item.index): {s: r.score for s, r in item.scorer_results.items()}
        for item in result
    }


def _same_scores(got: dict[str, float], expected: dict[str, float]) -> bool:
    return got.keys() == expected.keys() and all(
        (math.isnan(got[k]) and math.isnan(expected[k])) or got[k] == expected[k] for k in got
    )


def test_a_csv_sorted_by_score_gives_each_item_once_in_data_order(
    summaries: EvalResult, tmp_path: Path
) -> None:
    path = summaries.to_csv(tmp_path / "results.csv")
    rows = pd.read_csv(path)
    rows.sample(frac=1, random_state=3).sort_values("score").to_csv(path, index=False)

    again = read_results(path)

    assert [item.item_id for item in again] == [item.item_id for item in summaries]
    expected = _scores_by_item(summaries)
    for key, scores in _scores_by_item(again).items():
        assert _same_scores(scores, expected[key]), key
    assert {s: (v.scored, v.failed) for s, v in again.scores.items()} == {
        s: (v.scored, v.failed) for s, v in summaries.scores.items()
    }


def test_a_wide_csv_sorted_by_a_score_reads_back_in_data_order(
    summaries: EvalResult, tmp_path: Path
) -> None:
    path = summaries.to_csv(tmp_path / "wide.csv", wide=True)
    pd.read_csv(path).sort_values("textual-difference.score").to_csv(path, index=False)
    again = read_results(path)
    assert [item.item_id for item in again] == [item.item_id for item in summaries]
    expected = _scores_by_item(summaries)
    for key, scores in _scores_by_item(again).items():
        assert _same_scores(scores, expected[key]), key


@pytest.mark.parametrize("edit", ["deleted", "renamed"])
def test_a_deleted_row_or_renamed_scorer_keeps_every_item_with_an_error(
    summaries: EvalResult, tmp_path: Path, edit: str
) -> None:
    path = summaries.to_csv(tmp_path / "results.csv")
    rows = pd.read_csv(path).sort_values("score", kind="stable")
    target = rows.index[rows["scorer"] == "textual-difference"][1]
    item_id = rows.loc[target, "item_id"]
    if edit == "deleted":
        rows = rows.drop(index=target)
    else:
        rows.loc[target, "scorer"] = "textual-diff"
    rows.to_csv(path, index=False)

    with pytest.warns(UserWarning, match="no row for a scorer"):
        again = read_results(path)

    assert len(again) == len(summaries)
    [item] = [item for item in again if str(item.item_id) == str(item_id)]
    missing = item.scorer_results["textual-difference"]
    assert math.isnan(missing.score)
    assert missing.error is not None and missing.error.step == "read_results"
    assert "no 'textual-difference' row for this item" in missing.error.message
    before, summary = summaries.scores["textual-difference"], again.scores["textual-difference"]
    assert (summary.scored, summary.failed) == (before.scored - 1, before.failed + 1)
    if edit == "renamed":
        assert again.scores["textual-diff"].scored == 1


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_a_score_cell_that_is_not_a_number_names_the_row_and_column(
    int_ids: EvalResult, tmp_path: Path, suffix: str
) -> None:
    rows = int_ids.to_frame()
    rows["score"] = rows["score"].astype(object)
    rows.loc[1, "score"] = "n/a"
    path = tmp_path / f"results.{suffix}"
    if suffix == "csv":
        rows.to_csv(path, index=False)
        where = r"row 3 \(the header is row 1\), column 'score'"
    else:
        rows.to_json(path, orient="records", lines=True)
        where = "line 2, column 'score'"
    with pytest.raises(DataLoadError, match=rf"{where}: 'n/a' is not a number"):
        read_results(path)


def test_a_number_edited_into_text_is_read_as_the_number(
    int_ids: EvalResult, tmp_path: Path
) -> None:
    path = int_ids.to_jsonl(tmp_path / "results.jsonl")
    rows = _lines(path)
    rows[0]["score"], rows[0]["latency_s"] = " 0.25", "3"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    again = read_results(path)
    assert again[0].scorer_results["textual-difference"].score == 0.25
    assert again[0].scorer_results["textual-difference"].latency_s == 3


def test_rows_that_contradict_each_other_are_named(int_ids: EvalResult) -> None:
    rows = int_ids.to_frame()
    twice = pd.concat([rows, rows.iloc[[0]]], ignore_index=True)
    with pytest.raises(ConfigurationError, match="position 0 and the row at position 3 are both"):
        EvalResult.from_frame(twice)
    other_id = rows.copy()
    other_id.loc[0, "item_index"] = 1
    with pytest.raises(ConfigurationError, match="rows of item_index 1 have different item ids"):
        EvalResult.from_frame(other_id)


# -- numbers JSON has no words for ------------------------------------------------------------


@pytest.mark.parametrize("wide", [False, True])
def test_infinite_values_are_written_to_json_lines_and_read_back(
    tmp_path: Path, wide: bool
) -> None:
    # A label column of numbers; a title column of text, where "Infinity" is a title.
    data = [
        {"id": "a", "input": "q", "output": "a", "ground_truth": "a", "label": math.inf},
        {"id": "b", "input": "q", "output": "b", "ground_truth": "a", "label": -math.inf},
        {"id": "c", "input": "q", "output": "c", "ground_truth": "a", "label": 2.0},
    ]
    for item, title in zip(data, ["Infinity!", "Infinity", "-Infinity"], strict=True):
        item["title"] = title
    result = et.run_evals(data, et.create_textual_difference_scorer(), progress=False)
    result[0].scorer_results["textual-difference"].score = math.inf

    path = result.to_jsonl(tmp_path / "results.jsonl", wide=wide)

    def strict(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    rows = [json.loads(line, parse_constant=strict) for line in path.read_text().splitlines()]
    score = "textual-difference.score" if wide else "score"
    assert (rows[0][score], rows[0]["label"], rows[1]["label"]) == (
        "Infinity",
        "Infinity",
        "-Infinity",
    )
    again = read_results(path)
    assert [item.fields["label"] for item in again] == [math.inf, -math.inf, 2.0]
    assert [item.fields["title"] for item in again] == ["Infinity!", "Infinity", "-Infinity"]
    assert again[0].scorer_results["textual-difference"].score == math.inf
    pd.testing.assert_frame_equal(again.to_frame(), result.to_frame())
