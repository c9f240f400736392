"""Data and results files as a spreadsheet, an editor or another tool leaves them.

Every file goes through one reading path per format (CSV/TSV, JSON Lines, Parquet): a row
with more fields than the header, a quote left open, a repeated column or key, a file saved
in UTF-16 or with ';' between fields each get a message in the toolkit's words naming the
file, the line or the column, and what to do.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import evaltoolkit as et
from evaltoolkit.cli import main
from evaltoolkit.errors import DataLoadError, EvalToolkitError
from evaltoolkit.records.items import load_items, read_records, read_table


def _run(data: Any) -> et.EvalResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return et.run_evals(data, [et.create_textual_difference_scorer()], progress=False)


# -- a CSV or TSV row with more fields than the header ---------------------------------------


@pytest.mark.parametrize(("suffix", "separator"), [(".csv", ","), (".tsv", "\t")])
def test_a_trailing_separator_is_refused_naming_the_line_not_shifted(
    tmp_path: Path, suffix: str, separator: str
) -> None:
    path = tmp_path / f"t{suffix}"
    lines = [
        ["id", "input", "output", "ground_truth"],
        ["q1", "What is 2+2?", "4", "4", ""],
        ["q2", "Capital of France?", "Lyon", "Paris", ""],
    ]
    path.write_text("".join(separator.join(line) + "\n" for line in lines), encoding="utf-8")

    with pytest.raises(DataLoadError) as raised:
        read_records(path)

    message = str(raised.value)
    assert "t" + suffix in message
    assert "line 2" in message
    assert "5 fields" in message and "header has 4" in message
    assert "trailing" in message


def test_the_command_line_refuses_the_shifted_file_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "t.csv"
    data.write_text(
        "id,input,output,ground_truth\nq1,What is 2+2?,4,4,\nq2,Capital of France?,Lyon,Paris,\n"
    )
    out = tmp_path / "o.csv"

    status = main(["run", str(data), "--scorer", "textual-difference", "--out", str(out)])

    assert status == 2
    assert "line 2 has 5 fields" in capsys.readouterr().err
    assert not out.exists()


def test_a_ragged_later_row_is_named_in_the_toolkits_words(tmp_path: Path) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text("id,input,output\na,x,y\nb,c,d,e,f\nc,1,2\n")

    with pytest.raises(DataLoadError) as raised:
        read_table(path)

    message = str(raised.value)
    assert "line 3 has 5 fields" in message
    assert "Error tokenizing" not in message and "C error" not in message


def test_an_unterminated_quote_names_the_line_where_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "quote.csv"
    path.write_text('id,input,output\na,"x,y\nb,c,d\n')

    with pytest.raises(DataLoadError) as raised:
        read_records(path)

    message = str(raised.value)
    assert "line 2" in message and "quote" in message
    assert "C error" not in message


def test_a_quoted_field_over_several_lines_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "multi.csv"
    path.write_text('id,input,output\na,"line one\nline two",y\nb,c,d\n')

    rows = read_records(path)

    assert rows == [
        {"id": "a", "input": "line one\nline two", "output": "y"},
        {"id": "b", "input": "c", "output": "d"},
    ]


# -- encodings ---------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_a_utf16_file_is_named_as_such(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"u16{suffix}"
    if suffix == ".csv":
        text = "id,input,output\na,x,y\n"
    else:
        text = json.dumps({"id": "a", "input": "x", "output": "y"}) + "\n"
    path.write_text(text, encoding="utf-16")

    with pytest.raises(DataLoadError) as raised:
        read_records(path)

    assert "not UTF-8 (looks like UTF-16)" in str(raised.value)
    assert "re-save it as UTF-8" in str(raised.value)


def test_a_utf16_jsonl_on_the_command_line_says_so_not_no_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "u16.jsonl"
    path.write_text(json.dumps({"input": "x", "output": "y"}) + "\n", encoding="utf-16-le")

    status = main(["run", str(path), "--scorer", "textual-difference"])

    err = capsys.readouterr().err
    assert status == 2
    assert "looks like UTF-16" in err
    assert "(none)" not in err


def test_a_utf16_results_file_says_so(tmp_path: Path) -> None:
    saved = _run([{"input": "q", "output": "a", "ground_truth": "a"}]).to_jsonl(
        tmp_path / "r.jsonl"
    )
    saved.write_text(saved.read_text(encoding="utf-8"), encoding="utf-16")

    with pytest.raises(DataLoadError, match=r"looks like UTF-16"):
        et.read_results(saved)


# -- repeated columns and keys -----------------------------------------------------------------


def test_a_parquet_file_with_a_repeated_column_says_so_in_one_line(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "dup.parquet"
    columns = [pa.array(["a"]), pa.array(["x"]), pa.array(["y"]), pa.array(["z"])]
    pq.write_table(pa.table(columns, names=["id", "input", "output", "output"]), path)

    for read in (read_table, read_records, et.read_results):
        with pytest.raises(DataLoadError) as raised:
            read(path)
        message = str(raised.value)
        assert "'output' (2 times)" in message, read
        assert "\n" not in message and "FieldRef" not in message


def test_a_json_line_with_a_repeated_key_fails_its_item_not_the_last_value_wins(
    tmp_path: Path,
) -> None:
    path = tmp_path / "dupkey.jsonl"
    path.write_text(
        '{"id": "a", "input": "x", "output": "y", "output": "z"}\n'
        '{"id": "b", "input": "x", "output": "x"}\n'
    )

    result = _run(path)

    assert len(result) == 2
    failed = result[0].scorer_results["textual-difference"]
    assert failed.failed
    assert failed.error is not None and "line 1" in failed.error.message
    assert "the key 'output' appears twice" in failed.error.message
    assert result["b"].scorer_results["textual-difference"].score == 1.0


def test_a_json_file_with_a_repeated_key_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "dupkey.json"
    path.write_text('[{"input": "x", "output": "y", "input": "z"}]')

    with pytest.raises(DataLoadError, match=r"the key 'input' appears twice"):
        read_table(path)


@pytest.mark.parametrize("column", ["score", "output"])
def test_a_results_csv_with_a_second_column_of_a_name_is_refused(
    tmp_path: Path, column: str
) -> None:
    saved = _run([{"id": 1, "input": "q", "output": "a", "ground_truth": "a"}]).to_csv(
        tmp_path / "r.csv"
    )
    frame = pd.read_csv(saved)
    frame.insert(3, "extra", [9.0])
    text = frame.to_csv(index=False).replace("extra", column, 1)
    saved.write_text(text)

    with pytest.raises(DataLoadError) as raised:
        et.read_results(saved)

    assert f"{column!r} (2 times)" in str(raised.value)


# -- a spreadsheet's ';' separator -------------------------------------------------------------


def test_a_semicolon_separated_results_file_is_read_with_a_warning(tmp_path: Path) -> None:
    result = _run(
        [
            {"id": 1, "input": "a, b", "output": "a b", "ground_truth": "a, b"},
            {"id": 2, "input": "q", "output": "x", "ground_truth": "q"},
        ]
    )
    saved = result.to_csv(tmp_path / "r.csv")
    european = tmp_path / "european.csv"
    # As a spreadsheet set to a European locale saves it: ';' between fields, decimal commas
    # (latencies such as 1,2e-05 included).
    pd.read_csv(saved).to_csv(european, sep=";", decimal=",", index=False)
    assert ";0," in european.read_text()  # a decimal comma

    with pytest.warns(UserWarning, match=r"separated by ';'"):
        again = et.read_results(european)

    assert [item.item_id for item in again] == [1, 2]
    assert again[0].input == "a, b"
    scores = [item.scorer_results["textual-difference"].score for item in again]
    expected = [item.scorer_results["textual-difference"].score for item in result]
    assert scores == pytest.approx(expected)


def test_a_semicolon_separated_data_file_is_read_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("id;input;output\n1;Paris, France;Paris\n")

    with pytest.warns(UserWarning, match=r"separated by ';'"):
        rows = read_records(path)

    assert rows == [{"id": "1", "input": "Paris, France", "output": "Paris"}]


def test_a_comma_file_with_semicolons_in_its_text_is_not_taken_for_one(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text('id,input,output\n1,"a; b; c",x\n')

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = read_records(path)

    assert rows == [{"id": "1", "input": "a; b; c", "output": "x"}]


# -- reading results ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, 3, b"r.csv"])
def test_read_results_of_something_that_is_not_a_path_says_what_it_takes(value: Any) -> None:
    with pytest.raises(EvalToolkitError) as raised:
        et.read_results(value)

    assert isinstance(raised.value, TypeError)
    assert "read_results takes the path of a results file" in str(raised.value)
    assert type(value).__name__ in str(raised.value)


def test_infinity_in_a_text_column_stays_text_after_a_jsonl_round_trip(tmp_path: Path) -> None:
    items = [
        {
            "id": index,
            "input": "q",
            "output": "a",
            "ground_truth": "a",
            "film": film,
            "label": label,
        }
        for index, (film, label) in enumerate(
            [("Avatar", 1.0), ("Infinity", float("inf")), ("Up", 2.0)]
        )
    ]
    result = _run(items)

    again = et.read_results(result.to_jsonl(tmp_path / "r.jsonl"))

    assert [item.fields["film"] for item in again] == ["Avatar", "Infinity", "Up"]
    assert [item.fields["label"] for item in again] == [1.0, float("inf"), 2.0]
    assert again.to_frame().equals(result.to_frame())


def test_a_lone_infinity_text_field_stays_text(tmp_path: Path) -> None:
    result = _run([{"id": 1, "input": "q", "output": "a", "ground_truth": "a", "film": "Infinity"}])

    again = et.read_results(result.to_jsonl(tmp_path / "r.jsonl"))

    assert again[0].fields["film"] == "Infinity"


# -- item fields whose names the results use ----------------------------------------------------


def test_fields_named_like_result_columns_are_kept_with_a_note() -> None:
    with pytest.warns(UserWarning, match=r"renamed"):
        [item] = load_items(
            [
                {
                    "id": "a",
                    "item_id": "A-7",
                    "input": "x",
                    "output": "y",
                    "score": 3,
                    "reason": "r",
                    "error": "e",
                }
            ]
        )

    assert item.item_id == "a"
    notes = " ".join(item.notes)
    for name in ("score", "reason", "error"):
        assert f"field {name!r} is exported as 'item_{name}'" in notes
    assert "'item_id'" in notes and "'id' is the item id" in notes
    assert item.fields["item_id"] == "A-7"


def test_both_ids_reach_the_export(tmp_path: Path) -> None:
    result = _run([{"id": "a", "item_id": "A-7", "input": "x", "output": "y"}])

    frame = result.to_frame()

    assert frame["item_id"].tolist() == ["a"]
    assert frame["item_item_id"].tolist() == ["A-7"]
    assert "'item_id'" in frame["notes"].iloc[0]
