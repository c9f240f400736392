"""Human labels made in the notebook: the Annotator view, the labels file, agreement between
annotators and the judge against them. Every figure is checked against the libraries
(krippendorff, scikit-learn) or a published example."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
import pytest

import evaltoolkit as et
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.meta import judge_vs_humans, label_agreement, meta_evaluate, read_labels
from evaltoolkit.meta._internal import human_labels
from evaltoolkit.widgets import Annotator

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo_summaries.jsonl"

ITEMS = [
    {"id": f"item-{n}", "input": f"Source text number {n}.", "output": f"Summary {n}."}
    for n in range(6)
]


def annotator(path: Path, who: str = "alice", data: Any = None, **options: Any) -> Annotator:
    options.setdefault("label", "consistency")
    options.setdefault("scale", (1, 5))
    return Annotator(ITEMS if data is None else data, path=path, annotator=who, **options)


def labels_frame(matrix: list[list[Any]], level: str = "ordinal") -> pd.DataFrame:
    """A read_labels-like frame from one row per annotator and one column per item."""
    rows = [
        {"item_id": item, "label": "x", "annotator": f"r{rater}", "value": value, "level": level}
        for rater, values in enumerate(matrix)
        for item, value in enumerate(values)
        if not (isinstance(value, float) and math.isnan(value))
    ]
    return pd.DataFrame(rows)


# The labels file ----------------------------------------------------------------------------


def test_each_label_is_a_json_line_on_disk_before_the_view_moves_on(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = annotator(path)
    view.label(4, note="the year is wrong")
    [record] = [json.loads(line) for line in path.read_text().splitlines()]
    assert record["item_id"] == "item-0"
    assert record["value"] == 4
    assert record["annotator"] == "alice"
    assert record["note"] == "the year is wrong"
    assert record["label"] == "consistency"
    assert record["text_hash"] and record["time"]
    assert view.position == 1


def test_the_last_value_wins_and_the_history_stays(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = annotator(path)
    view.label(2)
    view.previous()
    view.label(5)
    assert read_labels(path)["value"].tolist() == [5]
    history = read_labels(path, history=True)
    assert history["value"].tolist() == [2, 5]
    assert annotator(path).value_of(position=0) == 5


def test_reopening_resumes_at_the_first_item_not_labelled(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = annotator(path)
    view.label(3)
    view.skip()
    view.label(4)
    assert annotator(path).position == 1  # the skipped item
    # Another annotator's labels do not count for this one.
    assert annotator(path, who="bob").position == 0


def test_a_changed_text_is_flagged_and_not_reused(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = annotator(path)
    view.label(3)
    view.label(4)
    changed = [dict(item) for item in ITEMS]
    changed[0]["output"] = "A different summary."
    reopened = annotator(path, data=changed)
    assert reopened.position == 0
    assert reopened.text_changed(0) and not reopened.is_labelled(0)
    assert reopened.value_of(position=0) is None
    assert "text changed since labelled" in reopened.progress.value
    assert reopened.is_labelled(1) and not reopened.text_changed(1)


def test_a_killed_writer_keeps_every_completed_label(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    script = textwrap.dedent(
        f"""
        import sys, time
        from evaltoolkit.widgets import Annotator
        items = [{{"id": n, "input": "s" * 5000, "output": "t"}} for n in range(500)]
        view = Annotator(items, label="ok", scale=(1, 5), path={str(path)!r}, annotator="a")
        for n in range(500):
            view.label(1 + n % 5, note="x" * 2000)
            print(n, flush=True)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert child.stdout is not None
    completed = -1
    for line in child.stdout:
        completed = int(line)
        if completed >= 5:
            break
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    # Simulate the worst a kill during a write can leave: a partial last line.
    with path.open("a") as handle:
        handle.write('{"kind": "label", "item_id": 999, "val')
    with pytest.warns(UserWarning, match="a partial last line"):
        frame = read_labels(path)
    ids = set(frame["item_id"])
    assert set(range(completed + 1)) <= ids  # every label reported done is on disk
    assert 999 not in ids
    assert (frame["value"] == [1 + n % 5 for n in frame["item_id"]]).all()


def test_tags_go_to_the_labels_file_and_come_back_as_a_column(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = annotator(path)
    view.tag("judge too strict on paraphrase")
    view.label(2)
    view.tag("label noise")
    view.label(3)
    frame = read_labels(path).set_index("item_id")
    assert frame.loc["item-0", "tags"] == ("judge too strict on paraphrase",)
    assert frame.loc["item-1", "tags"] == ("label noise",)
    bob = annotator(path, who="bob")
    bob.next()
    bob.tag("label noise")  # on an item bob did not label: a row without a value
    frame = read_labels(path)
    counts = frame.explode("tags")["tags"].value_counts()
    assert (counts["label noise"], counts["judge too strict on paraphrase"]) == (2, 1)
    [bobs] = frame[frame["annotator"] == "bob"].to_dict("records")
    assert (bobs["item_id"], bobs["tags"]) == ("item-1", ("label noise",))
    assert pd.isna(bobs["value"])
    assert "label noise" in bob.item_view.value


# The view -----------------------------------------------------------------------------------


def test_keys_label_and_move(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = annotator(path)
    view.keys.value = "3"
    assert (view.position, view.value_of(position=0)) == (1, 3)
    assert view.keys.value == ""  # the key box empties after each key
    view.keys.value = "s"
    assert view.position == 2
    view.keys.value = "p"
    view.keys.value = "p"
    assert view.position == 0
    view.keys.value = "n9"  # 9 is not on a 1-5 scale: nothing is written
    assert view.position == 1
    assert len(path.read_text().splitlines()) == 1
    boolean = annotator(tmp_path / "b.jsonl", label="ok", scale=bool)
    boolean.keys.value = "0"
    boolean.keys.value = "1"
    assert read_labels(tmp_path / "b.jsonl")["value"].tolist() == [False, True]
    kinds = annotator(tmp_path / "c.jsonl", label="fault", scale=["none", "number", "name"])
    kinds.keys.value = "2"
    assert read_labels(tmp_path / "c.jsonl")["value"].tolist() == ["number"]


def test_several_labels_move_on_once_each_has_a_value(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    view = Annotator(
        ITEMS,
        labels={"consistency": (1, 5), "relevance": (1, 5)},
        path=path,
        annotator="alice",
    )
    view.label(4)
    assert (view.position, view.active) == (0, "relevance")
    view.keys.value = "2"
    assert view.position == 1
    assert read_labels(path)[["label", "value"]].values.tolist() == [
        ["consistency", 4],
        ["relevance", 2],
    ]


@pytest.fixture(scope="module")
def judged() -> et.EvalResult:
    return et.run_evals(str(DEMO), et.create_summarization_scorer(), progress=False)


def test_blind_by_default_and_shown_after_or_always(tmp_path: Path, judged: Any) -> None:
    reason = judged.items[0].scorer_results["summarization"].reason
    blind = annotator(tmp_path / "a.jsonl", data=judged)
    assert reason not in blind.verdicts.value and "hidden" in blind.verdicts.value
    blind.label(3)
    blind.previous()
    assert not blind.verdicts_shown()  # never: still blind after labelling
    after = annotator(tmp_path / "b.jsonl", data=judged, show="after")
    assert "hidden until you label" in after.verdicts.value
    after.label(3)
    after.previous()
    assert after.verdicts_shown()
    score = judged.items[0].scorer_results["summarization"].score
    assert f"{score:.3f}" in after.verdicts.value
    always = annotator(tmp_path / "c.jsonl", data=judged, show="always")
    assert always.verdicts_shown() and "The judge" in always.verdicts.value


def test_payloads_in_items_notes_and_tags_are_shown_as_text(tmp_path: Path) -> None:
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    items = [{"id": payload, "input": payload, "output": payload}, *ITEMS]
    view = annotator(tmp_path / "labels.jsonl", data=items)
    view.tag(payload)
    shown = view.item_view.value + view.progress.value
    assert "<script" not in shown and "<img" not in shown
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in shown


def test_bad_input_fails_when_the_view_is_built(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ConfigurationError, match="cannot write labels"):
        annotator(blocker / "labels.jsonl")
    with pytest.raises(ConfigurationError, match="is a folder"):
        annotator(tmp_path)
    with pytest.raises(ConfigurationError, match="unknown scale"):
        annotator(path, scale="1-5")
    with pytest.raises(ConfigurationError, match="item 'b' has no output"):
        annotator(path, data=[{"id": "a", "input": "x", "output": "y"}, {"id": "b", "input": "x"}])
    with pytest.raises(ConfigurationError, match="has no ground_truth"):
        annotator(path, task="answer-similarity")
    with pytest.raises(ConfigurationError, match="holds no items"):
        annotator(path, data=[])
    with pytest.raises(ConfigurationError, match="must name the person"):
        annotator(path, who="")
    with pytest.raises(ConfigurationError, match="unknown show"):
        annotator(path, show="later")
    view = annotator(path)
    with pytest.raises(ConfigurationError, match="not a value of 'consistency'"):
        view.label(7)
    assert not path.read_text()


# Agreement ------------------------------------------------------------------------------------

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders x 12 units.
RELIABILITY_DATA = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, math.nan, math.nan, math.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, math.nan, 3],
    [math.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, math.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, math.nan],
]


@pytest.mark.parametrize(
    ("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_label_agreement_gives_the_published_alpha(level: str, published: float) -> None:
    result = label_agreement(labels_frame(RELIABILITY_DATA, level), n_bootstrap=0)
    assert round(result.value(f"alpha_{level}"), 3) == published
    assert result.table.iloc[0]["items"] == 11  # units coded by at least two coders


def test_kappa_and_percent_agreement_of_two_annotators_match_the_libraries() -> None:
    from sklearn.metrics import cohen_kappa_score  # here: about 1.3 s to import

    generator = np.random.default_rng(4)
    first = generator.integers(1, 6, size=40)
    second = np.clip(first + generator.integers(-1, 2, size=40), 1, 5)
    result = label_agreement(labels_frame([list(first), list(second)]), n_bootstrap=200)
    rows = result.table.set_index("metric")
    assert rows.loc["kappa_quadratic", "value"] == pytest.approx(
        cohen_kappa_score(first, second, weights="quadratic", labels=[1, 2, 3, 4, 5])
    )
    assert rows.loc["alpha_ordinal", "value"] == pytest.approx(
        krippendorff.alpha(reliability_data=[first, second], level_of_measurement="ordinal")
    )
    assert rows.loc["percent_agreement", "value"] == pytest.approx(np.mean(first == second))
    for metric in rows.index:
        assert (
            rows.loc[metric, "ci_low"] <= rows.loc[metric, "value"] <= rows.loc[metric, "ci_high"]
        )
    # The largest disagreement comes first, with each annotator's value.
    top = result.disagreements.iloc[0]
    assert top["spread"] == np.max(np.abs(first - second))
    assert abs(top["r0"] - top["r1"]) == top["spread"]


def test_category_labels_get_unweighted_kappa_and_nominal_alpha() -> None:
    from sklearn.metrics import cohen_kappa_score  # here: about 1.3 s to import

    first = ["ok", "bad", "ok", "ok", "bad", "meh"]
    second = ["ok", "bad", "bad", "ok", "bad", "ok"]
    result = label_agreement(labels_frame([first, second], "nominal"), n_bootstrap=0)
    assert result.value("kappa") == pytest.approx(cohen_kappa_score(first, second))
    codes = {"bad": 0, "meh": 1, "ok": 2}
    assert result.value("alpha_nominal") == pytest.approx(
        krippendorff.alpha(
            reliability_data=[[codes[v] for v in first], [codes[v] for v in second]],
            level_of_measurement="nominal",
        )
    )
    with pytest.raises(ConfigurationError, match="two or more annotators"):
        label_agreement(labels_frame([first], "nominal"))


def test_human_labels_are_the_mean_or_the_majority() -> None:
    ratings = human_labels(labels_frame([[1, 2, 5], [2, 2, math.nan], [3, 5, math.nan]]))
    assert ratings["x"].tolist() == [2.0, 3.0, 5.0]
    assert ratings["annotators"].tolist() == [3, 3, 1]
    votes = labels_frame([["a", "b", "a"], ["a", "a", "b"], ["b", "a", math.nan]], "nominal")
    with pytest.warns(UserWarning, match="no majority"):
        resolved = human_labels(votes)
    assert resolved["x"].tolist()[:2] == ["a", "a"]
    assert pd.isna(resolved["x"].iloc[2])  # one vote each: no label, not a guess


def test_the_judge_is_measured_in_the_units_the_annotators_are() -> None:
    humans = [[1, 2, 3, 4, 5, 3], [1, 3, 3, 4, 4, 2]]
    labels = labels_frame(humans).assign(scale=[(1, 2, 3, 4, 5)] * 12)
    scores = pd.DataFrame({"item_id": range(6), "score": [0.0, 0.25, 0.5, 1.0, 1.0, 0.0]})
    comparison = judge_vs_humans(scores, labels, n_bootstrap=100)
    judge = [1, 2, 3, 5, 5, 1]  # the scores mapped onto 1-5
    expected_judge = np.mean(
        [
            krippendorff.alpha(reliability_data=[judge, h], level_of_measurement="ordinal")
            for h in humans
        ]
    )
    assert comparison.judge[0] == pytest.approx(expected_judge)
    assert comparison.humans[0] == pytest.approx(
        krippendorff.alpha(reliability_data=humans, level_of_measurement="ordinal")
    )
    line = str(comparison)
    assert "judge vs annotators" in line and "annotators vs each other" in line
    assert comparison.gaps.iloc[0]["item_id"] == 5  # judge 1, humans 2.5: the largest gap


@pytest.fixture(scope="module")
def two_annotators(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six demo summaries labelled by two annotators, who disagree on two of them."""
    path = tmp_path_factory.mktemp("labels") / "labels.jsonl"
    alice = Annotator(str(DEMO), label="consistency", scale=(1, 5), path=path, annotator="alice")
    bob = Annotator(str(DEMO), label="consistency", scale=(1, 5), path=path, annotator="bob")
    for value in (5, 2, 4, 1, 5, 3):
        alice.label(value)
    for value in (5, 3, 4, 1, 4, 3):
        bob.label(value)
    return path


def test_meta_evaluate_reads_a_labels_file(two_annotators: Path) -> None:
    evaluation = meta_evaluate(
        str(DEMO),
        task="summarization",
        label="consistency",
        labels=two_annotators,
        input_col="input",
        output_col="output",
        n_bootstrap=50,
        progress=False,
    )
    scores = evaluation.scores
    assert len(scores) == 6  # only the labelled items are scored
    assert scores["consistency"].tolist() == [5.0, 2.5, 4.0, 1.0, 4.5, 3.0]
    assert scores["annotators"].tolist() == [2] * 6
    comparison = evaluation.versus_humans
    assert comparison is not None
    assert comparison.humans[0] == pytest.approx(
        krippendorff.alpha(
            reliability_data=[[5, 2, 4, 1, 5, 3], [5, 3, 4, 1, 4, 3]],
            level_of_measurement="ordinal",
        )
    )
    assert str(comparison).startswith("consistency: judge vs annotators alpha_ordinal")


def test_compare_judges_and_the_prompt_tuner_read_a_labels_file(two_annotators: Path) -> None:
    from evaltoolkit.meta import compare_judges
    from evaltoolkit.widgets import PromptTuner

    board = compare_judges(
        str(DEMO),
        {"offline": et.create_summarization_scorer()},
        label="consistency",
        labels=read_labels(two_annotators),
        input_col="input",
        output_col="output",
        n_bootstrap=0,
        progress=False,
    )
    assert board["n"].iloc[0] == 6
    tuner = PromptTuner(
        et.create_summarization_scorer(), str(DEMO), labels=str(two_annotators), sample=20
    )
    assert tuner.label_column == "consistency"
    assert sorted(row["consistency"] for row in tuner._data) == [1.0, 2.5, 3.0, 4.0, 4.5, 5.0]


def test_the_result_browser_sorts_and_filters_by_the_judge_human_gap(
    two_annotators: Path, judged: Any, tmp_path: Path
) -> None:
    from evaltoolkit.widgets import ResultBrowser

    labels = read_labels(two_annotators)
    payload = "<script>alert(1)</script>"
    first_id = judged.items[0].item_id
    with (two_annotators.parent / "notes.jsonl").open("w") as handle:
        for record in read_labels(two_annotators, history=True).to_dict("records"):
            if record["item_id"] == first_id and record["annotator"] == "bob":
                record["note"] = payload
            handle.write(json.dumps(record, default=str) + "\n")
    browser = ResultBrowser(judged, labels=two_annotators.parent / "notes.jsonl")
    comparison = judge_vs_humans(judged, labels, n_bootstrap=0)
    expected = comparison.gaps.set_index("item_id")["gap"]
    browser.sort_by.value = "gap"
    browser.descending.value = True
    shown = [item_id for item_id, _ in browser.visible]
    gaps = [expected.get(item_id, math.nan) for item_id in shown]
    assert gaps[: len(expected)] == sorted(expected, reverse=True)
    browser.min_gap.value = 1.0
    assert browser.matching == int((expected.abs() >= 1.0).sum())
    assert {item_id for item_id, _ in browser.visible} == set(expected[expected.abs() >= 1].index)
    browser.show(first_id)
    assert "human_consistency" in browser.detail.value
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in browser.detail.value
    assert "<script>" not in browser.detail.value


def test_the_judge_versus_annotators_verdict_says_when_it_cannot_tell() -> None:
    # Issue 32: "the judge agrees with the annotators 0.39 below their agreement" was printed
    # on 8 items whose two intervals overlapped.
    from evaltoolkit.meta import HumanComparison

    def comparison(items: int, judge: tuple[float, float, float]) -> HumanComparison:
        return HumanComparison(
            label="consistency",
            level="ordinal",
            judge=judge,
            humans=(0.73, 0.60, 0.85),
            items=items,
            annotators=["alice", "bob"],
            pairs=pd.DataFrame(),
            gaps=pd.DataFrame(),
        )

    assert comparison(8, (0.34, -0.38, 0.72)).verdict == (
        "8 items (fewer than 10) are too few to tell the judge's agreement from the annotators'"
    )
    assert comparison(40, (0.34, 0.10, 0.62)).verdict == (
        "the two intervals overlap: these items cannot tell the judge's agreement from the "
        "annotators'"
    )
    assert comparison(40, (0.34, 0.20, 0.48)).verdict == (
        "the judge agrees with the annotators 0.39 below their agreement with each other"
    )
