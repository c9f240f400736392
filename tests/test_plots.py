"""The matplotlib figures, built from real offline-judge results on the demo data."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from typing import Any

import pandas as pd
import pytest
from _support import DATA, REPO
from matplotlib.figure import Figure
from scipy import stats

import evaltoolkit as et
from evaltoolkit import ConfigurationError, EvalResult
from evaltoolkit.plots import axis_points, axis_scatter, score_histograms, score_vs_label


@pytest.fixture(scope="module")
def summaries() -> EvalResult:
    rows = [
        *pd.read_json(DATA / "demo_summaries.jsonl", lines=True).to_dict(orient="records"),
        {"id": "no-output", "input": "A source text.", "output": None},
    ]
    return et.run_evals(rows, et.create_summarization_scorer(), progress=False)


@pytest.fixture(scope="module")
def answers() -> EvalResult:
    return et.run_evals(
        DATA / "demo_answers.jsonl",
        [et.create_answer_similarity_scorer(), et.create_textual_difference_scorer()],
        progress=False,
    )


def _legend_labels(ax: Any) -> list[str]:
    legend = ax.get_legend()
    return [] if legend is None else [text.get_text() for text in legend.get_texts()]


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def test_axis_scatter_colours_items_by_the_deciding_axis(summaries: EvalResult) -> None:
    figure = axis_scatter(summaries)
    assert isinstance(figure, Figure)
    [ax] = figure.axes
    assert ax.get_xlabel() == "alignment (supported claims / claims)"
    assert ax.get_ylabel() == "coverage (answered questions / questions)"
    assert ax.get_title() == (
        "summarization: alignment vs coverage (16 items)\n1 failed item not shown"
    )
    decided = [
        score.details["decided_by"]
        for score in summaries.results("summarization")
        if not score.failed
    ]
    present = [axis for axis in ("alignment", "coverage", "tie") if axis in decided]
    assert len(ax.collections) == len(present)
    assert [collection.get_label() for collection in ax.collections] == [
        f"decided by {axis} ({decided.count(axis)})" for axis in present
    ]
    # Items sharing a point draw one marker, with their count written beside it.
    markers = sum(len(collection.get_offsets()) for collection in ax.collections)
    shared = [int(text.get_text()) for text in ax.texts]
    assert markers + sum(count - 1 for count in shared) == 16
    assert len(ax.lines) == 1  # the diagonal
    assert _png(figure).startswith(b"\x89PNG")


def test_axis_scatter_threshold_band_and_highlight(summaries: EvalResult) -> None:
    plain = axis_scatter(summaries)
    figure = axis_scatter(summaries, threshold=0.3, highlight="harbour-bridge-0")
    [ax] = figure.axes
    assert len(ax.lines) == 3  # the diagonal and both edges of the band
    assert "|alignment - coverage| = 0.30" in _legend_labels(ax)
    assert len(ax.collections) == len(plain.axes[0].collections) + 1
    ring = ax.collections[-1]
    assert ring.get_label() == "selected: harbour-bridge-0"
    point = next(p for p in axis_points(summaries) if p.item_id == "harbour-bridge-0")
    assert tuple(ring.get_offsets()[0]) == (point.alignment, point.coverage)


def test_axis_scatter_reads_long_and_wide_frames_alike(summaries: EvalResult) -> None:
    def scored(points: list[Any]) -> list[Any]:
        return [point for point in points if not point.failed]  # NaN != NaN

    expected = axis_points(summaries)
    assert [point.decided_by for point in expected].count("failed") == 1
    assert scored(axis_points(summaries.to_frame())) == scored(expected)
    assert scored(axis_points(summaries.to_wide())) == scored(expected)
    assert [point.item_id for point in axis_points(summaries.to_wide())] == [
        point.item_id for point in expected
    ]
    offsets = [
        [tuple(row) for row in collection.get_offsets()]
        for collection in axis_scatter(summaries.to_wide()).axes[0].collections
    ]
    assert offsets == [
        [tuple(row) for row in collection.get_offsets()]
        for collection in axis_scatter(summaries).axes[0].collections
    ]


def test_axis_scatter_names_what_is_wrong(answers: EvalResult) -> None:
    with pytest.raises(ConfigurationError, match="no rows of scorer 'summarization'"):
        axis_scatter(answers)
    with pytest.raises(ConfigurationError, match="no alignment and coverage scores"):
        axis_scatter(answers, scorer="answer-similarity")
    with pytest.raises(ConfigurationError, match="expected an EvalResult or a DataFrame"):
        axis_scatter([1, 2, 3])  # type: ignore[arg-type]


def test_a_run_whose_every_item_failed_plots_its_failures() -> None:
    # Before, it was refused as if the scorer were not the summarization scorer.
    failed = et.run_evals(
        [{"id": "a", "input": "", "output": "x"}, {"id": "b", "input": "", "output": "y"}],
        et.create_summarization_scorer(),
        progress=False,
    )
    assert all(item.scorer_results["summarization"].error is not None for item in failed)

    for layout in (failed, failed.to_frame(), failed.to_wide()):
        points = axis_points(layout)
        assert [(p.item_id, p.decided_by) for p in points] == [("a", "failed"), ("b", "failed")]
    title = axis_scatter(failed).axes[0].get_title()
    assert "(0 items)" in title and "2 failed items not shown" in title
    answers = et.run_evals(
        [{"input": "q", "output": "a", "ground_truth": "a"}],
        et.create_answer_similarity_scorer(),
        progress=False,
    )
    with pytest.raises(ConfigurationError, match="no alignment and coverage scores"):
        axis_points(answers, scorer="answer-similarity")  # a scorer without axes still is one


def test_score_histograms_one_panel_per_scorer(answers: EvalResult, summaries: EvalResult) -> None:
    figure = score_histograms(answers, bins=5)
    assert isinstance(figure, Figure)
    assert [ax.get_title() for ax in figure.axes] == [
        "answer-similarity (16 scored)",
        "textual-difference (16 scored)",
    ]
    for ax, scorer in zip(figure.axes, answers.scorer_ids, strict=True):
        assert len(ax.patches) == 5
        assert sum(patch.get_height() for patch in ax.patches) == 16
        mean = answers.scores[scorer].mean
        assert _legend_labels(ax) == [f"mean {mean:.3f}"]
        assert ax.get_xlabel() == "score" and ax.get_ylabel() == "items"
    [ax] = score_histograms(summaries).axes
    assert ax.get_title() == "summarization (16 scored, 1 failed)"
    assert sum(patch.get_height() for patch in ax.patches) == 16
    assert len(score_histograms(answers.to_wide()).axes) == 2
    with pytest.raises(ConfigurationError, match="bins"):
        score_histograms(answers, bins=0)


def test_score_vs_numeric_label_is_a_scatter_by_group(summaries: EvalResult) -> None:
    frame = summaries.to_frame()
    figure = score_vs_label(frame, "score", "human_score", group="doc_id")
    [ax] = figure.axes
    groups = frame["doc_id"].dropna().unique().tolist()
    assert len(ax.collections) == len(groups)
    assert _legend_labels(ax) == groups
    assert sum(len(collection.get_offsets()) for collection in ax.collections) == 16
    # Computed here with scipy, not with the agreement() the plot calls.
    paired = frame[["score", "human_score"]].dropna()
    spearman = stats.spearmanr(paired["score"], paired["human_score"])[0]
    assert ax.get_title() == (
        f"score vs human_score: Spearman ρ = {spearman:.3f} (n = 16)\n"
        "1 item without a score or label"
    )
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("human_score", "score")
    # Whole-number grades are jittered a little, never moved to another grade.
    xs = [x for collection in ax.collections for x, _ in collection.get_offsets()]
    assert all(abs(x - round(x)) <= 0.08 for x in xs)


def test_score_vs_boolean_label_is_boxes_by_class(answers: EvalResult) -> None:
    frame = answers.to_frame()
    frame = frame[frame["scorer"] == "answer-similarity"]
    figure = score_vs_label(frame, "score", "human_correct")
    [ax] = figure.axes
    counts = frame["human_correct"].value_counts()
    assert [label.get_text() for label in ax.get_xticklabels()] == [
        f"False ({counts[False]})",
        f"True ({counts[True]})",
    ]
    assert len(ax.lines) >= 2 * 5  # two boxes: whiskers, caps and medians
    assert len(ax.collections) == 1
    xs = [x for x, _ in ax.collections[0].get_offsets()]
    assert sum(1 for x in xs if x > 0.5) == counts[True]
    # AUROC computed here by counting pairs: the share of (correct, wrong) pairs in which the
    # correct answer scores higher, ties counting half.
    correct = frame.loc[frame["human_correct"].astype(bool), "score"].tolist()
    wrong = frame.loc[~frame["human_correct"].astype(bool), "score"].tolist()
    wins = sum((c > w) + 0.5 * (c == w) for c in correct for w in wrong)
    value = wins / (len(correct) * len(wrong))
    assert ax.get_title() == f"score vs human_correct: AUROC = {value:.3f} (n = 16)"


def test_score_vs_label_refuses_mixed_scorers_and_missing_columns(answers: EvalResult) -> None:
    with pytest.raises(ConfigurationError, match="mix the scorers"):
        score_vs_label(answers.to_frame(), "score", "human_correct")
    with pytest.raises(ConfigurationError, match="no column 'nope' \\(the label\\)"):
        score_vs_label(answers.to_frame(), "score", "nope")
    tiny = pd.DataFrame({"judge": [0.5], "human": [1.0]})
    assert (
        score_vs_label(tiny, "judge", "human")
        .axes[0]
        .get_title()
        .startswith("judge vs human: Spearman ρ = n/a")
    )


def test_plots_need_no_display_and_no_pyplot(tmp_path: Any) -> None:
    code = (
        "import sys\n"
        "import evaltoolkit as et\n"
        "from evaltoolkit.plots import axis_scatter, score_histograms\n"
        "r = et.run_evals('data/demo_summaries.jsonl', et.create_summarization_scorer(),\n"
        "                 progress=False)\n"
        f"axis_scatter(r).savefig({str(tmp_path / 'axes.png')!r})\n"
        f"score_histograms(r).savefig({str(tmp_path / 'hist.png')!r})\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "MPLBACKEND")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=environment,
        check=True,
    )
    assert done.stdout.strip() == "False"
    assert (tmp_path / "axes.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "hist.png").stat().st_size > 1000
