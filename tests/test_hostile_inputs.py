"""Data a careless or hostile user hands to the library: every item kept, every export written."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import evaltoolkit as et
from evaltoolkit.errors import ConfigurationError, DataLoadError
from evaltoolkit.records import EvalResult
from evaltoolkit.records.items import load_items, read_records, read_table

LONE = "\ud800"


def _difference() -> Any:
    return et.create_textual_difference_scorer()


def _run(data: Any, **options: Any) -> EvalResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return et.run_evals(data, [_difference()], progress=False, **options)


def _export_everything(result: EvalResult, folder: Path) -> dict[str, Path]:
    return {
        "parquet": result.to_parquet(folder / "r.parquet"),
        "wide.parquet": result.to_parquet(folder / "w.parquet", wide=True),
        "csv": result.to_csv(folder / "r.csv"),
        "jsonl": result.to_jsonl(folder / "r.jsonl"),
    }


# -- characters UTF-8 cannot encode ---------------------------------------------------------


def test_a_lone_surrogate_anywhere_is_replaced_and_noted(tmp_path: Path) -> None:
    items = [
        {"id": "a", "input": f"question{LONE}", "output": "x", "ground_truth": "x"},
        {
            "id": "b",
            "input": [{"role": "user", "content": f"nested {LONE}"}],
            "output": [{"role": "assistant", "content": "y"}],
            "ground_truth": "y",
            f"label{LONE}": f"v{LONE}",
        },
        {"id": "c", "input": "clean", "output": "z", "ground_truth": "z"},
    ]
    result = _run(items)

    frame = result.to_frame()
    assert frame["input"].iloc[0] == "question\ufffd"
    assert "nested \ufffd" in frame["input"].iloc[1]
    assert "label\ufffd" in frame.columns
    assert "field 'input'" in frame["notes"].iloc[0] and "U+FFFD" in frame["notes"].iloc[0]
    assert "field 'label\ufffd'" in frame["notes"].iloc[1]
    assert pd.isna(frame["notes"].iloc[2])
    assert result.scores["textual-difference"].failed == 0

    written = _export_everything(result, tmp_path)
    assert pd.read_parquet(written["parquet"])["input"].iloc[0] == "question\ufffd"
    assert pd.read_csv(written["csv"])["input"].iloc[0] == "question\ufffd"
    assert len(pd.read_json(written["jsonl"], lines=True)) == 3


def test_a_json_escaped_surrogate_in_a_file_and_a_dataframe(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"input": "q\\ud800", "output": "a", "ground_truth": "a"}\n', encoding="utf-8")
    frame = pd.DataFrame(
        {"input": [f"q{LONE}"], "output": ["a"], "ground_truth": ["a"]}, dtype=object
    )

    for data in (path, frame):
        result = _run(data)
        assert result[0].input == "q\ufffd"
        assert result[0].notes
        result.to_csv(tmp_path / "out.csv")
        assert pd.read_csv(tmp_path / "out.csv")["input"].iloc[0] == "q\ufffd"


def test_an_unencodable_reply_from_a_target_still_exports(tmp_path: Path) -> None:
    result = et.run_evals(
        [{"input": "q", "ground_truth": "a"}],
        [_difference()],
        target=lambda _: f"a{LONE}",
        progress=False,
    )
    written = _export_everything(result, tmp_path)
    assert pd.read_parquet(written["parquet"])["output"].iloc[0] == "a\ufffd"


# -- numbers where text is expected ---------------------------------------------------------


def test_csv_number_columns_are_read_as_text_with_leading_zeros(tmp_path: Path) -> None:
    path = tmp_path / "zip.csv"
    path.write_text(
        "id,input,output,ground_truth,label\n007,zip?,02134,02134,5\n8,2+2,4,4,3\n",
        encoding="utf-8",
    )
    result = _run(path)

    assert [item.output for item in result] == ["02134", "4"]
    assert [item.item_id for item in result] == ["007", "8"]
    assert result.scores["textual-difference"].failed == 0
    assert [item.fields["label"] for item in result] == [5, 3]  # other columns stay numbers
    result.to_csv(tmp_path / "out.csv")
    exported = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert exported["output"].tolist() == ["02134", "4"]


def test_tsv_and_named_columns_are_read_as_text(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("q\tanswer\tgold\n1\t0042\t0042\n", encoding="utf-8")
    [row] = read_records(path, text_columns=["q", "answer", "gold"])
    assert row == {"q": "1", "answer": "0042", "gold": "0042"}
    assert read_table(path, text_columns=["answer"])["gold"].tolist() == [42]


def test_numbers_in_lists_and_frames_become_text_with_a_note() -> None:
    frame = pd.DataFrame(
        {"input": ["q", "q", "q"], "output": [4, None, 2.5], "gt": [4.0, None, "2.5"]}
    )
    with pytest.warns(UserWarning, match="changed on loading"):
        scored = et.score_frame(frame, _difference(), ground_truth_col="gt", progress=False)
    assert scored["textual-difference.score"].tolist()[0] == 1.0
    assert scored["textual-difference.score"].tolist()[2] == 1.0
    assert "read as the text '4'" in scored["notes"].iloc[0]
    assert "read as the text '2.5'" in scored["notes"].iloc[2]
    # The missing output is still a clear failure, not the text "nan".
    assert "missing" in scored["textual-difference.error"].iloc[1]

    with pytest.warns(UserWarning, match="changed on loading"):
        [item] = load_items([{"input": 12, "output": 4.0, "ground_truth": True}])
    assert (item.input, item.output) == ("12", "4")
    assert item.ground_truth is True  # a bool is not a number written as text


def test_score_frame_names_a_duplicated_column() -> None:
    frame = pd.DataFrame([["q", "a", "a"]], columns=["input", "output", "output"])
    with pytest.raises(ConfigurationError, match=r"'output' \(2 times\)"):
        et.score_frame(frame, _difference(), progress=False)
    with pytest.raises(ConfigurationError, match="duplicated column names"):
        et.run_evals(frame, _difference(), progress=False)


# -- files that are empty, mislabelled or not UTF-8 -----------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.jsonl", b""),
        ("blank.jsonl", b"\n  \n\n"),
        ("empty.csv", b""),
        ("header.csv", b"input,output\n"),
        ("empty.json", b"[]"),
    ],
)
def test_a_file_without_items_is_an_error(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataLoadError, match="no items in"):
        et.run_evals(path, _difference(), progress=False)


def test_a_json_array_in_a_jsonl_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps([{"input": "a", "output": "b"}], indent=2), encoding="utf-8")
    with pytest.raises(DataLoadError, match=r"JSON array.*rename it to 'items\.json'"):
        et.run_evals(path, _difference(), progress=False)
    (tmp_path / "items.json").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert len(_run(tmp_path / "items.json")) == 1


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    lines = tmp_path / "bad.jsonl"
    lines.write_bytes(b'{"input": "a", "output": "a"}\n{"input": "\xff", "output": "b"}\n')
    result = _run(lines)
    assert len(result) == 2
    error = result[1].scorer_results["textual-difference"].error
    assert error is not None and "line 2 is not valid UTF-8" in error.message
    assert "column 12" in error.message

    table = tmp_path / "bad.csv"
    table.write_bytes(b"input,output\na,b\nc,\xe9t\xe9\n")
    with pytest.raises(DataLoadError, match="line 3 is not valid UTF-8"):
        _run(table)


def test_a_byte_order_mark_is_not_part_of_the_first_column(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffinput,output\nq,a\n".encode())
    assert _run(path)[0].input == "q"


# -- ids --------------------------------------------------------------------------------------


def test_duplicate_ids_warn_once_and_item_index_tells_rows_apart(tmp_path: Path) -> None:
    items = [
        {"id": 1, "input": "a", "output": "a"},
        {"id": "1", "input": "b", "output": "b"},
        {"id": 1, "input": "c", "output": "c"},
        {"id": 2, "input": "d", "output": "d"},
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = et.run_evals(items, _difference(), progress=False)
    messages = [str(w.message) for w in caught if "share an id" in str(w.message)]
    assert len(messages) == 1 and messages[0].startswith("2 items share an id")
    assert len(result) == 4

    result.to_csv(tmp_path / "r.csv")
    exported = pd.read_csv(tmp_path / "r.csv")
    assert exported["item_index"].tolist() == [0, 1, 2, 3]
    assert exported["item_id"].astype(str).tolist() == ["1", "1", "1", "2"]
    assert list(result.to_wide()["item_index"]) == [0, 1, 2, 3]


def test_an_integral_float_id_is_an_integer() -> None:
    frame = pd.DataFrame({"id": [4.0, None], "input": ["a", "b"], "output": ["a", "b"]})
    result = _run(frame)
    assert [repr(item.item_id) for item in result] == ["4", "1"]  # not 4.0


# -- exports are written whole or not at all ------------------------------------------------


def test_a_failed_export_leaves_the_previous_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run([{"input": "a", "output": "a"}])
    for suffix, method in (("csv", "to_csv"), ("parquet", "to_parquet"), ("jsonl", "dumps")):
        target = tmp_path / f"r.{suffix}"
        target.write_text("previous", encoding="utf-8")

        def half_then_fail(self: pd.DataFrame, path: Any, *args: Any, **kwargs: Any) -> None:
            Path(path).write_text("half a fi", encoding="utf-8")
            raise KeyboardInterrupt

        def fail_midway(*args: Any, **kwargs: Any) -> str:
            raise KeyboardInterrupt  # JSON Lines are written row by row, from an open file

        with monkeypatch.context() as patch:
            if suffix == "jsonl":
                patch.setattr(json, method, fail_midway)
            else:
                patch.setattr(pd.DataFrame, method, half_then_fail)
            with pytest.raises(KeyboardInterrupt):
                getattr(result, f"to_{suffix}")(target)
        assert target.read_text(encoding="utf-8") == "previous"
        assert sorted(os.listdir(tmp_path)) == sorted(
            p.name for p in tmp_path.iterdir() if not p.name.endswith(".tmp")
        )
        getattr(result, f"to_{suffix}")(target)
        assert target.read_text(encoding="utf-8", errors="replace") != "previous"


def test_an_export_through_a_link_writes_the_linked_file(tmp_path: Path) -> None:
    result = _run([{"input": "a", "output": "a"}])
    real = tmp_path / "real.csv"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    result.to_csv(link)
    assert link.is_symlink()
    assert "item_index" in real.read_text(encoding="utf-8")


# -- deep nesting, repeated headers, links that lead nowhere ----------------------------------


@pytest.mark.parametrize("depth", [3000, 500])
def test_a_deeply_nested_line_is_an_error_on_its_item_alone(tmp_path: Path, depth: int) -> None:
    deep = "[" * depth + "1" + "]" * depth
    path = tmp_path / "deep.jsonl"
    path.write_text(
        '{"id": "a", "input": "q", "output": "x", "ground_truth": "x"}\n'
        f'{{"id": "b", "input": "q", "output": "x", "extra": {deep}}}\n'
        '{"id": "c", "input": "q", "output": "y", "ground_truth": "y"}\n',
        encoding="utf-8",
    )
    result = _run(path)
    assert [item.scorer_results["textual-difference"].score for item in result][::2] == [1, 1]
    error = result[1].scorer_results["textual-difference"].error
    assert error is not None and "nested more than 200 levels deep" in str(error)
    assert len(et.read_results(result.to_jsonl(tmp_path / "r.jsonl"))) == 3


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_a_header_naming_a_column_twice_is_refused(tmp_path: Path, suffix: str) -> None:
    separator = "\t" if suffix == ".tsv" else ","
    path = tmp_path / f"items{suffix}"
    rows = [["id", "input", "output", "output"], ["1", "q", "first", "second"]]
    path.write_text("".join(separator.join(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(DataLoadError, match=r"names a column more than once: 'output' \(2 times\)"):
        _run(path)
    with pytest.raises(DataLoadError, match=r"'output' \(2 times\)"):
        read_table(path)


def test_a_symbolic_link_loop_is_called_one(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.symlink_to(second)
    second.symlink_to(first)
    with pytest.raises(DataLoadError, match=r"a\.jsonl' is a symbolic link loop"):
        _run(first)
    with pytest.raises(DataLoadError, match="symbolic link loop"):
        et.read_results(first)
    dangling = tmp_path / "c.jsonl"
    dangling.symlink_to(tmp_path / "gone.jsonl")
    with pytest.raises(DataLoadError, match=r"link to '.*gone\.jsonl', which does not"):
        _run(dangling)


def test_a_number_longer_than_python_converts_is_scored_like_any_other() -> None:
    # Python refuses to turn a string of more than 4,300 digits into an int: the offline
    # judge's tokenizer read such a number (and its ordinal) through int() and failed.
    digits = "1" * 5000
    item = {
        "id": "long-number",
        "input": f"The {digits} cats sat on the {digits}th mat. It cost {digits} million.",
        "output": f"The {digits} cats sat on the mat.",
        "ground_truth": f"{digits} cats",
    }
    scorers = [
        et.create_summarization_scorer(reason="template"),
        et.create_answer_similarity_scorer(),
    ]
    rows = et.run_evals([item], scorers, progress=False).to_frame()
    assert rows["error"].isna().all(), rows["error"].tolist()
    assert (rows["score"] > 0.5).all(), rows["score"].tolist()
