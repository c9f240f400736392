"""Tests for evaltoolkit.meta._loaders: file formats, column mappings and benchmark presets."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evaltoolkit import EvalToolkitError
from evaltoolkit.meta._loaders import (
    load_qa_equivalence,
    load_sentence_pairs,
    load_summeval,
    load_table,
)

SAMPLE = pd.DataFrame(
    {
        "question": ["who wrote hamlet", "capital of france", "boiling point of water"],
        "answer": ["Shakespeare", "Paris", "100 C"],
        "rating": [4.5, 2.0, 3.0],
        "correct": [True, False, True],
    }
)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _write(frame: pd.DataFrame, path: Path) -> Path:
    suffix = path.suffix
    if suffix == ".jsonl":
        return _write_jsonl(
            path, [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]
        )
    if suffix == ".json":
        path.write_text(json.dumps(frame.to_dict("records")), encoding="utf-8")
    elif suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t")
    else:
        frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize(
    "name", ["data.jsonl", "data.json", "data.csv", "data.tsv", "data.parquet"]
)
def test_each_format_round_trips(tmp_path: Path, name: str) -> None:
    loaded = load_table(_write(SAMPLE, tmp_path / name))
    pd.testing.assert_frame_equal(loaded, SAMPLE, check_dtype=False)
    assert loaded["correct"].tolist() == [True, False, True]
    assert loaded["rating"].tolist() == [4.5, 2.0, 3.0]


def test_json_lines_in_a_json_file_and_blank_lines_are_read(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('{"a": 1}\n\n{"a": 2}\n', encoding="utf-8")
    assert load_table(path)["a"].tolist() == [1, 2]


@pytest.mark.parametrize("name", ["data.jsonl", "data.json", "data.csv", "data.parquet"])
def test_limit_takes_the_first_rows(tmp_path: Path, name: str) -> None:
    loaded = load_table(_write(SAMPLE, tmp_path / name), limit=2)
    assert loaded["question"].tolist() == ["who wrote hamlet", "capital of france"]


def test_limit_zero_and_bad_limits(tmp_path: Path) -> None:
    path = _write(SAMPLE, tmp_path / "data.jsonl")
    assert len(load_table(path, limit=0)) == 0
    with pytest.raises(EvalToolkitError, match="limit"):
        load_table(path, limit=-1)


def test_column_mapping_renames_and_puts_standard_columns_first(tmp_path: Path) -> None:
    path = _write(SAMPLE, tmp_path / "data.csv")
    loaded = load_table(path, columns={"question": "input", "answer": "output"})
    assert list(loaded.columns) == ["input", "output", "rating", "correct"]
    assert loaded["output"].tolist() == SAMPLE["answer"].tolist()


def test_missing_mapped_column_is_named_with_the_columns_present(tmp_path: Path) -> None:
    path = _write(SAMPLE, tmp_path / "data.jsonl")
    with pytest.raises(EvalToolkitError) as raised:
        load_table(path, columns={"article": "input"})
    message = str(raised.value)
    assert "'article'" in message
    assert "'question', 'answer', 'rating', 'correct'" in message


def test_mapping_onto_an_existing_column_is_refused(tmp_path: Path) -> None:
    path = _write(SAMPLE, tmp_path / "data.jsonl")
    with pytest.raises(EvalToolkitError, match="'rating'"):
        load_table(path, columns={"answer": "rating"})
    with pytest.raises(EvalToolkitError, match="'input'"):
        load_table(path, columns={"question": "input", "answer": "input"})


def test_missing_file_error_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.jsonl"
    with pytest.raises(EvalToolkitError, match=re.escape("nowhere.jsonl")):
        load_table(path)


def test_invalid_json_line_names_the_path_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"a": 1}\n{"a": \n', encoding="utf-8")
    with pytest.raises(EvalToolkitError, match=r"broken\.jsonl.*line 2"):
        load_table(path)


def test_non_object_json_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lists.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(EvalToolkitError, match=re.escape("lists.jsonl")):
        load_table(path)


def test_unreadable_parquet_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(EvalToolkitError, match=re.escape("corrupt.parquet")):
        load_table(path)


def test_unsupported_extension_lists_the_supported_ones(tmp_path: Path) -> None:
    path = tmp_path / "data.xlsx"
    path.write_bytes(b"")
    with pytest.raises(EvalToolkitError, match=r"data\.xlsx.*\.jsonl"):
        load_table(path)


def test_csv_keeps_texts_that_look_missing(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("output,rating\nNone,1\nNA,\n", encoding="utf-8")
    loaded = load_table(path)
    assert loaded["output"].tolist() == ["None", "NA"]
    assert loaded["rating"].isna().tolist() == [False, True]


def _summeval_rows() -> list[dict[str, Any]]:
    return [
        {
            "doc_id": doc,
            "system_id": system,
            "source": f"article {doc}",
            "summary": f"summary {doc} by {system}",
            "references": [f"reference {doc}"],
            "consistency": 4.0,
            "relevance": 3.5,
            "coherence": 3.0,
            "fluency": 5.0,
        }
        for doc in ("d1", "d2")
        for system in ("M1", "M2")
    ]


def test_summeval_preset_maps_source_and_summary(tmp_path: Path) -> None:
    frame = load_summeval(_write_jsonl(tmp_path / "summeval.jsonl", _summeval_rows()))
    assert list(frame.columns[:3]) == ["item_id", "input", "output"]
    assert frame["item_id"].tolist() == ["d1/M1", "d1/M2", "d2/M1", "d2/M2"]
    assert frame.loc[1, "input"] == "article d1"
    assert frame.loc[1, "output"] == "summary d1 by M2"
    for kept in ("doc_id", "system_id", "consistency", "relevance", "coherence", "fluency"):
        assert kept in frame.columns
    assert "source" not in frame.columns


def test_summeval_preset_takes_other_column_names(tmp_path: Path) -> None:
    rows = [
        {"article": "text one", "abstract": "short one", "doc": "x", "human": 1.0},
        {"article": "text two", "abstract": "short two", "doc": "y", "human": 2.0},
    ]
    path = _write(pd.DataFrame(rows), tmp_path / "mine.csv")
    frame = load_summeval(path, input_col="article", output_col="abstract", group="doc", limit=1)
    assert frame["input"].tolist() == ["text one"]
    assert frame["output"].tolist() == ["short one"]
    # Without a system_id column the row number is the item id.
    assert frame["item_id"].tolist() == ["0"]
    assert frame["doc"].tolist() == ["x"]


def test_summeval_preset_names_a_missing_column(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "summeval.jsonl", _summeval_rows())
    with pytest.raises(EvalToolkitError, match=r"'article' \(from input_col\).*'summary'"):
        load_summeval(path, input_col="article")
    with pytest.raises(EvalToolkitError, match=r"'document' \(from group\)"):
        load_summeval(path, group="document")
    assert load_summeval(path, group=None)["item_id"].tolist() == ["0", "1", "2", "3"]


def _qa_rows() -> list[dict[str, Any]]:
    return [
        {
            "id": "q1",
            "question": "when was the 50th star added",
            "golden_answers": ["1960", "July 4, 1960"],
            "candidate": "It was added in 1960.",
            "human_correct": True,
        },
        {
            "id": "q2",
            "question": "who painted the mona lisa",
            "golden_answers": "Leonardo da Vinci",
            "candidate": "Michelangelo",
            "human_correct": False,
        },
    ]


def test_qa_preset_makes_a_list_of_golden_answers(tmp_path: Path) -> None:
    frame = load_qa_equivalence(_write_jsonl(tmp_path / "qa.jsonl", _qa_rows()))
    assert frame["item_id"].tolist() == ["q1", "q2"]
    assert frame["input"].tolist() == [row["question"] for row in _qa_rows()]
    assert frame["output"].tolist() == ["It was added in 1960.", "Michelangelo"]
    assert frame["ground_truth"].tolist() == [["1960", "July 4, 1960"], ["Leonardo da Vinci"]]
    assert frame["human_correct"].tolist() == [True, False]


@pytest.mark.parametrize("name", ["qa.csv", "qa.parquet"])
def test_qa_preset_reads_lists_back_from_csv_and_parquet(tmp_path: Path, name: str) -> None:
    rows = pd.DataFrame(_qa_rows())
    rows["golden_answers"] = [["1960", "July 4, 1960"], ["Leonardo da Vinci"]]
    if name.endswith(".csv"):
        rows["golden_answers"] = rows["golden_answers"].map(json.dumps)
    frame = load_qa_equivalence(_write(rows, tmp_path / name))
    assert frame["ground_truth"].tolist() == [["1960", "July 4, 1960"], ["Leonardo da Vinci"]]
    assert frame["human_correct"].tolist() == [True, False]


def test_qa_preset_without_ids_uses_row_numbers_and_missing_answers_stay_missing(
    tmp_path: Path,
) -> None:
    rows: list[dict[str, Any]] = [
        {"q": "a?", "gold": None, "pred": "x", "ok": True},
        {"q": "b?", "gold": "y", "pred": "y", "ok": True},
    ]
    path = _write_jsonl(tmp_path / "qa.jsonl", rows)
    frame = load_qa_equivalence(
        path, input_col="q", ground_truth_col="gold", output_col="pred", label="ok"
    )
    assert frame["item_id"].tolist() == ["0", "1"]
    assert frame["ground_truth"].tolist() == [None, ["y"]]


def test_qa_preset_names_a_missing_label(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "qa.jsonl", _qa_rows())
    with pytest.raises(EvalToolkitError, match=r"'verdict' \(from label\)"):
        load_qa_equivalence(path, label="verdict")
    assert len(load_qa_equivalence(path, label=None, limit=1)) == 1


def test_sentence_pairs_preset(tmp_path: Path) -> None:
    rows = [
        {"sentence1": "a man is dancing .", "sentence2": "a man dances .", "score": 4.5},
        {"sentence1": "a cat sleeps .", "sentence2": "a dog runs .", "score": 0.5},
    ]
    frame = load_sentence_pairs(_write_jsonl(tmp_path / "sts.jsonl", rows))
    assert list(frame.columns) == ["item_id", "input", "output", "ground_truth", "score"]
    assert frame["output"].tolist() == ["a man is dancing .", "a cat sleeps ."]
    assert frame["input"].tolist() == frame["output"].tolist()
    assert frame["ground_truth"].tolist() == ["a man dances .", "a dog runs ."]


def test_sentence_pairs_preset_with_another_label_and_columns(tmp_path: Path) -> None:
    rows = [{"left": "a", "right": "b", "paraphrase": True}]
    path = _write(pd.DataFrame(rows), tmp_path / "pairs.parquet")
    with pytest.raises(EvalToolkitError, match=r"'score' \(from label\).*'paraphrase'"):
        load_sentence_pairs(path, output_col="left", ground_truth_col="right")
    frame = load_sentence_pairs(
        path, output_col="left", ground_truth_col="right", label="paraphrase"
    )
    assert frame.loc[0, "ground_truth"] == "b"
    assert bool(frame.loc[0, "paraphrase"]) is True


@pytest.mark.parametrize(
    "loader",
    [load_summeval, load_qa_equivalence, load_sentence_pairs],
)
def test_presets_report_an_unreadable_path(
    tmp_path: Path, loader: Callable[..., pd.DataFrame]
) -> None:
    with pytest.raises(EvalToolkitError, match=re.escape("missing.jsonl")):
        loader(tmp_path / "missing.jsonl")
