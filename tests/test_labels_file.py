"""A labels file as a killed kernel, a text editor or a mistyped path leaves it.

Labels are read by one function (``read_labels``): a partial last line is repaired before the
next label is appended; a value off the label's scale, or a label without an annotator, is set
aside with a warning naming the file and the line (never read as 5.5 or inf); a byte order
mark is not a damaged line; a file that is not a labels file, or is not there, says so.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import krippendorff
import pytest

from evaltoolkit.errors import EvalToolkitError
from evaltoolkit.meta import label_agreement, meta_evaluate, read_labels
from evaltoolkit.meta._internal import append_label_record, human_labels, is_labels_source
from evaltoolkit.widgets import Annotator

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo_summaries.jsonl"
ITEMS = [
    {"id": f"item-{n}", "input": f"Source text number {n}.", "output": f"Summary {n}."}
    for n in range(6)
]
SCALE = [1, 2, 3, 4, 5]
ALICE = [5, 2, 4, 1, 5, 3]
BOB = [5, 3, 4, 1, 4, 3]


def _record(item: int, who: str | None, value: Any, *, scale: bool = True) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "label", "item_id": f"item-{item}", "label": "c"}
    if who is not None:
        record["annotator"] = who
    record["value"] = value
    if scale:
        record.update(level="ordinal", scale=SCALE)
    return record


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    for record in records:
        append_label_record(path, record)
    return path


def _clean(path: Path, *, scale: bool = True) -> Path:
    records = [_record(n, "alice", v, scale=scale) for n, v in enumerate(ALICE)]
    records += [_record(n, "bob", v, scale=scale) for n, v in enumerate(BOB)]
    return _write(path, records)


def _alpha() -> float:
    return float(krippendorff.alpha(reliability_data=[ALICE, BOB], level_of_measurement="ordinal"))


# -- a partial last line ------------------------------------------------------------------------


def test_a_label_given_after_a_partial_last_line_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = Annotator(ITEMS, label="c", scale=(1, 5), path=path, annotator="alice")
    view.label(4)
    with path.open("a", encoding="utf-8") as handle:  # a kernel killed while writing
        handle.write('{"kind": "label", "item_id": "item-9", "lab')

    with pytest.warns(UserWarning, match=r"line 2, a partial last line"):
        again = Annotator(ITEMS, label="c", scale=(1, 5), path=path, annotator="alice")
    again.label(3)

    with pytest.warns(UserWarning, match=r"line 2"):
        frame = read_labels(path)
    assert dict(zip(frame["item_id"], frame["value"], strict=True)) == {"item-0": 4, "item-1": 3}
    assert path.read_text(encoding="utf-8").splitlines()[2].startswith('{"kind": "label"')


# -- values off the scale -----------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["three", 7, float("inf"), True, 4.5, None, [4]])
def test_a_value_off_the_scale_is_set_aside_naming_the_line(tmp_path: Path, bad: Any) -> None:
    path = _clean(tmp_path / "labels.jsonl")
    # bob relabels item 2 by hand, with a value that is not on the 1-5 scale.
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(_record(2, "bob", bad)) + "\n")

    with pytest.warns(UserWarning, match=r"set aside") as caught:
        agreement = label_agreement(path, n_bootstrap=0)
    messages = " ".join(str(warning.message) for warning in caught)

    assert "labels.jsonl" in messages and "line 13" in messages
    assert "set aside" in messages
    assert agreement.value("alpha_ordinal") == pytest.approx(_alpha())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resolved = human_labels(path)
    assert resolved["c"].tolist() == [(a + b) / 2 for a, b in zip(ALICE, BOB, strict=True)]


def test_a_whole_number_written_as_a_float_is_on_an_integer_scale(tmp_path: Path) -> None:
    path = _clean(tmp_path / "labels.jsonl")
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(_record(2, "bob", 4.0)) + "\n")

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = read_labels(path)

    keys = zip(frame["annotator"], frame["item_id"], strict=True)
    values = dict(zip(keys, frame["value"], strict=True))
    assert values[("bob", "item-2")] == 4
    assert sorted(values.values()) == sorted(ALICE + BOB)


@pytest.mark.parametrize("bad", ["three", float("inf"), True])
def test_without_a_recorded_scale_a_value_of_another_kind_is_set_aside(
    tmp_path: Path, bad: Any
) -> None:
    path = _clean(tmp_path / "labels.jsonl", scale=False)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(_record(2, "bob", bad, scale=False)) + "\n")

    with pytest.warns(UserWarning, match=r"line 13"):
        agreement = label_agreement(path, level="ordinal", n_bootstrap=0)

    assert agreement.value("alpha_ordinal") == pytest.approx(_alpha())


def test_meta_evaluate_never_uses_an_off_scale_value(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    ids = [json.loads(line)["id"] for line in DEMO.read_text(encoding="utf-8").splitlines()]
    for item_id, value in zip(ids, [5, 2, 4, 1, 5, 3], strict=False):
        append_label_record(
            path,
            {
                "kind": "label",
                "item_id": item_id,
                "label": "consistency",
                "annotator": "alice",
                "value": value,
                "level": "ordinal",
                "scale": SCALE,
            },
        )
    with path.open("a", encoding="utf-8") as handle:
        for value in (5.5, "Infinity"):
            record = {"kind": "label", "item_id": ids[0], "label": "consistency"}
            record["annotator"] = "bob"
            handle.write(json.dumps({**record, "value": value, "scale": SCALE}) + "\n")

    with pytest.warns(UserWarning, match=r"set aside"):
        evaluation = meta_evaluate(
            str(DEMO),
            task="textual-difference",
            label="consistency",
            labels=path,
            output_col="input",
            ground_truth_col="output",
            n_bootstrap=0,
            progress=False,
        )

    assert evaluation.scores["consistency"].tolist() == [5.0, 2.0, 4.0, 1.0, 5.0, 3.0]


# -- a label without an annotator ----------------------------------------------------------------


def test_a_label_without_an_annotator_is_set_aside_not_a_key_error(tmp_path: Path) -> None:
    path = _clean(tmp_path / "labels.jsonl")
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(_record(3, None, 2)) + "\n")
        handle.write(json.dumps({**_record(4, "", 2)}) + "\n")

    with pytest.warns(UserWarning, match=r"lines? 13, 14.*without an annotator"):
        agreement = label_agreement(path, n_bootstrap=0)

    assert agreement.annotators == ["alice", "bob"]
    assert agreement.value("alpha_ordinal") == pytest.approx(_alpha())


# -- encodings and garbage -----------------------------------------------------------------------


def test_a_byte_order_mark_keeps_the_first_label(tmp_path: Path) -> None:
    clean = _clean(tmp_path / "clean.jsonl")
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + clean.read_bytes())

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = read_labels(marked)

    assert len(frame) == 12


@pytest.mark.parametrize(
    "content",
    [
        bytes(range(256)) * 4,
        '{"item_id": "a"}\n'.encode("utf-16"),
        b"\x1f\x8b\x08\x00" + b"\x00\x17\xa3" * 50,
    ],
    ids=["binary", "utf-16", "gzip"],
)
def test_a_file_that_is_not_a_labels_file_is_refused_clearly(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_bytes(content)

    with pytest.raises(EvalToolkitError) as raised:
        Annotator(ITEMS, label="c", scale=(1, 5), path=path, annotator="alice")

    assert "labels.jsonl" in str(raised.value)
    assert "not a labels file" in str(raised.value)
    assert path.read_bytes() == content  # nothing appended to it


def test_a_lone_surrogate_escape_in_a_note_does_not_break_the_annotator(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"kind": "label", "item_id": "item-0", "label": "c", "annotator": "alice", '
        '"value": 3, "note": "\\ud800 odd"}\n',
        encoding="utf-8",
    )

    view = Annotator(ITEMS, label="c", scale=(1, 5), path=path, annotator="alice")
    view.label(2, note="fine \ud800")

    frame = read_labels(path)
    assert frame["value"].tolist() == [3, 2]
    assert frame["note"].tolist() == ["\ufffd odd", "fine \ufffd"]


# -- a mistyped path -----------------------------------------------------------------------------


def test_a_mistyped_labels_path_says_no_such_file(tmp_path: Path) -> None:
    missing = tmp_path / "labelz.jsonl"

    for call in (
        lambda: label_agreement(missing),
        lambda: label_agreement(str(missing)),
        lambda: human_labels(missing),
    ):
        with pytest.raises(EvalToolkitError, match=r"no such labels file: .*labelz\.jsonl"):
            call()
    assert is_labels_source(str(missing))
    with pytest.raises(EvalToolkitError, match=r"no such labels file"):
        meta_evaluate(
            str(DEMO),
            task="textual-difference",
            label="consistency",
            labels=str(missing),
            output_col="input",
            ground_truth_col="output",
            progress=False,
        )
