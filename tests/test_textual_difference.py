"""The textual-difference scorer against its definition."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltoolkit import ConfigurationError, create_textual_difference_scorer
from evaltoolkit.scorers._internal import compare_texts


def dp_lcs(a: str, b: str) -> int:
    """Plain dynamic-programming LCS length, the definition the ratio must match."""
    previous = [0] * (len(b) + 1)
    for char_a in a:
        current = [0]
        for j, char_b in enumerate(b, start=1):
            current.append(
                previous[j - 1] + 1 if char_a == char_b else max(previous[j], current[-1])
            )
        previous = current
    return previous[-1]


def dp_word_edits(a: list[str], b: list[str]) -> int:
    previous = list(range(len(b) + 1))
    for i, word_a in enumerate(a, start=1):
        current = [i]
        for j, word_b in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[-1] + 1, previous[j - 1] + (word_a != word_b))
            )
        previous = current
    return previous[-1]


texts = st.text(alphabet="ab c\nde", max_size=40)


@settings(max_examples=300, deadline=None)
@given(texts, texts)
def test_ratio_equals_twice_lcs_over_total_length(a: str, b: str) -> None:
    difference = compare_texts(a, b)
    if a or b:
        assert difference.ratio == 2 * dp_lcs(a, b) / (len(a) + len(b))
    else:
        assert difference.ratio == 1.0


@settings(max_examples=300, deadline=None)
@given(texts, texts)
def test_changes_is_word_edit_distance_and_whitespace_counts(a: str, b: str) -> None:
    difference = compare_texts(a, b)
    expected = dp_word_edits(a.split(), b.split())
    if expected == 0 and a != b:
        expected = 1
    assert difference.changes == expected


@settings(max_examples=200, deadline=None)
@given(texts, texts)
def test_score_is_ratio_times_confidence(a: str, b: str) -> None:
    result = create_textual_difference_scorer(scale=3).run(input="q", output=a, ground_truth=b)
    analysis = result.analyze_step_result
    assert analysis is not None
    longest = max(len(a), len(b))
    length_diff = abs(len(a) - len(b)) / longest if longest else 0.0
    assert analysis["length_diff"] == length_diff
    assert analysis["confidence"] == 1 - length_diff
    assert result.score == analysis["ratio"] * analysis["confidence"] * 3


def test_known_pair_is_unrounded() -> None:
    difference = compare_texts("kitten sat", "sitting sat")
    # LCS("kitten sat", "sitting sat") = "ittn sat" (8): 16 / 21
    assert difference.ratio == 16 / 21
    assert difference.length_diff == 1 / 11
    assert difference.changes == 1
    score = (
        create_textual_difference_scorer()
        .run(input="x", output="kitten sat", ground_truth="sitting sat")
        .score
    )
    assert score == (16 / 21) * (10 / 11)


@pytest.mark.parametrize(
    ("output", "reference", "score"),
    [("same text", "same text", 1.0), ("", "", 1.0), ("", "something", 0.0), ("abc", "", 0.0)],
)
def test_edge_cases(output: str, reference: str, score: float) -> None:
    result = create_textual_difference_scorer().run(
        input="q", output=output, ground_truth=reference
    )
    assert result.score == score
    assert result.error is None


def test_whitespace_only_difference_is_one_change() -> None:
    difference = compare_texts("a  b", "a b")
    assert difference.changes == 1
    assert difference.ratio < 1


def test_compares_with_input_without_ground_truth() -> None:
    result = create_textual_difference_scorer().run(input="hello world", output="hello world")
    assert result.score == 1.0
    assert result.analyze_step_result is not None
    assert result.analyze_step_result["reference"] == "input"
    assert result.details["reference"] == "input"
    assert "input" in (result.reason or "")


def test_prefers_ground_truth_over_input() -> None:
    result = create_textual_difference_scorer().run(
        input="unrelated question", output="Paris", ground_truth="Paris"
    )
    assert result.score == 1.0
    assert result.details["reference"] == "ground_truth"


def test_message_lists_are_read() -> None:
    result = create_textual_difference_scorer().run(
        input={"inputMessages": [{"role": "user", "content": "the cat"}]},
        output=[
            {"role": "user", "content": "ignored"},
            {"role": "assistant", "content": [{"type": "text", "text": "the cat"}]},
        ],
    )
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"input": "q", "output": None}, "output"),
        ({"input": "q", "output": 42}, "output"),
        ({"input": None, "output": "a"}, "input"),
        ({"input": "q", "output": "a", "ground_truth": 3.5}, "ground_truth"),
        ({"input": "q", "output": [{"role": "user", "content": "no reply"}]}, "output"),
    ],
)
def test_bad_input_is_a_clear_error_with_nan(kwargs: dict[str, object], field: str) -> None:
    result = create_textual_difference_scorer().run(item_id="item-7", **kwargs)  # type: ignore[arg-type]
    assert math.isnan(result.score)
    assert result.error is not None
    assert result.error.step == "input"
    assert f"'{field}'" in result.error.message
    assert "item-7" in result.error.message


@pytest.mark.parametrize("scale", [0, -1, float("nan"), "2", True])
def test_bad_scale_is_rejected(scale: object) -> None:
    with pytest.raises(ConfigurationError, match="scale"):
        create_textual_difference_scorer(scale=scale)  # type: ignore[arg-type]


def test_reference_options_dict_is_accepted() -> None:
    scorer = create_textual_difference_scorer(options={"scale": 100})
    assert scorer.run(input="q", output="a", ground_truth="a").score == 100.0
    with pytest.raises(ConfigurationError, match="unknown option 'maxQuestions'"):
        create_textual_difference_scorer(options={"maxQuestions": 3})
