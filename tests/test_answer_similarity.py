"""The answer-similarity scorer over scripted judge replies, answered in process."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import pytest
from fake_judge import FakeJudge
from judge_script import prompt_text, requests_for, script_steps

from evaltoolkit import ConfigurationError, create_answer_similarity_scorer

QUESTION = "What are the primary colors?"
ANSWER = "Red, blue and a sort of yellow; also green."
TRUTH = "The primary colors are red, blue, and yellow"


def match(unit: str, kind: str, output_unit: str | None = "x") -> dict[str, Any]:
    return {
        "ground_truth_unit": unit,
        "output_unit": None if kind == "missing" else output_unit,
        "match_type": kind,
        "explanation": f"{kind} match",
    }


def contradiction(text: str) -> dict[str, str]:
    return {"output_unit": text, "ground_truth_unit": "red", "explanation": "differs"}


def analysis(
    matches: list[dict[str, Any]],
    contradictions: list[dict[str, str]] | None = None,
    extra: list[str] | None = None,
) -> dict[str, Any]:
    return {"matches": matches, "contradictions": contradictions or [], "extra_info": extra or []}


@pytest.fixture
def scorer_for(fake_judge: FakeJudge) -> Callable[..., Any]:
    def build(**options: Any) -> Any:
        return create_answer_similarity_scorer(fake_judge, **options)

    return build


def run_scripted(
    server: FakeJudge,
    scorer: Any,
    units: list[str],
    analyzed: dict[str, Any],
    **item: Any,
) -> Any:
    script_steps(
        server,
        {
            "extract": {
                "output_units": ["red", "blue", "yellow-ish", "green"],
                "ground_truth_units": units,
            },
            "analyze": analyzed,
            "reason": {"reason": "Scripted reason."},
        },
    )
    fields = {"input": QUESTION, "output": ANSWER, "ground_truth": TRUTH, **item}
    return scorer.run(**fields)


def test_exact_match_scores_one(fake_judge: FakeJudge, scorer_for: Callable[..., Any]) -> None:
    result = run_scripted(fake_judge, scorer_for(), ["red"], analysis([match("red", "exact")]))
    assert result.error is None
    assert result.score == 1.0
    assert result.reason == "Scripted reason."
    assert result.details["exact_matches"] == 1


def test_every_match_type_in_the_formula(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    units = ["red", "blue", "yellow", "the primary colors"]
    matches = [
        match("red", "exact"),
        match("blue", "semantic"),
        match("yellow", "partial"),
        match("the primary colors", "missing"),
    ]
    result = run_scripted(fake_judge, scorer_for(), units, analysis(matches, extra=["green"]))
    expected = (1.2 + 0.8 + 0.4 - 0.15) / (4 * 1.2) - 0.05
    assert result.score == pytest.approx(expected)
    assert result.details["base_similarity"] == pytest.approx((1.2 + 0.8 + 0.4 - 0.15) / 4.8)
    assert (result.details["semantic_matches"], result.details["missing_matches"]) == (1, 1)
    assert result.details["extra_info"] == 1


def test_custom_weights_and_reference_options(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    scorer = scorer_for(
        options={
            "semanticThreshold": 0.5,
            "exactMatchBonus": 0.0,
            "missingPenalty": 0.5,
            "scale": 10,
        }
    )
    matches = [match("red", "semantic"), match("blue", "partial"), match("yellow", "missing")]
    result = run_scripted(fake_judge, scorer, ["red", "blue", "yellow"], analysis(matches))
    assert result.score == pytest.approx(10 * (0.5 + 0.25 - 0.5) / 3)


def test_a_contradiction_sends_the_score_to_zero(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    result = run_scripted(
        fake_judge,
        scorer_for(),
        ["red"],
        analysis([match("red", "exact")], contradictions=[contradiction("purple")]),
    )
    assert result.score == 0.0
    assert result.details["contradictions"] == 1
    softer = run_scripted(
        fake_judge,
        scorer_for(contradiction_penalty=0.3),
        ["red"],
        analysis([match("red", "exact")], contradictions=[contradiction("purple")]),
    )
    assert softer.score == pytest.approx(0.7)


def test_extra_information_penalty_is_capped(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    two = run_scripted(
        fake_judge, scorer_for(), ["red"], analysis([match("red", "exact")], extra=["a", "b"])
    )
    assert two.score == pytest.approx(0.9)
    many = run_scripted(
        fake_judge,
        scorer_for(),
        ["red"],
        analysis([match("red", "exact")], extra=list("abcdefgh")),
    )
    assert many.score == pytest.approx(0.8)


def test_all_missing_clamps_at_zero(fake_judge: FakeJudge, scorer_for: Callable[..., Any]) -> None:
    result = run_scripted(
        fake_judge,
        scorer_for(),
        ["red", "blue"],
        analysis([match("red", "missing"), match("blue", "missing")]),
    )
    assert result.score == 0.0


def test_units_without_a_match_are_missing_and_extra_matches_dropped(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    matches = [
        match("Blue!", "exact"),  # reworded and out of order: matched by text
        match("red", "exact"),
        match("an invented unit", "exact"),
        match("another invented unit", "exact"),
    ]
    result = run_scripted(fake_judge, scorer_for(), ["red", "blue", "yellow"], analysis(matches))
    aligned = result.analyze_step_result["matches"]
    assert [m["ground_truth_unit"] for m in aligned] == ["red", "blue", "yellow"]
    assert [m["match_type"] for m in aligned] == ["exact", "exact", "missing"]
    assert result.score == pytest.approx((1.2 + 1.2 - 0.15) / 3.6)


def test_result_carries_the_three_prompts(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    result = run_scripted(fake_judge, scorer_for(), ["red"], analysis([match("red", "exact")]))
    assert result.preprocess_prompt is not None
    assert TRUTH in result.preprocess_prompt
    assert ANSWER in result.preprocess_prompt
    assert result.analyze_prompt is not None
    assert "1. red" in result.analyze_prompt
    assert result.generate_reason_prompt is not None
    assert "Score: 1" in result.generate_reason_prompt
    assert result.preprocess_step_result == {
        "output_units": ["red", "blue", "yellow-ish", "green"],
        "ground_truth_units": ["red"],
    }
    extract_request = requests_for(fake_judge, "extract")[0]
    assert QUESTION in prompt_text(extract_request)


def test_missing_ground_truth(fake_judge: FakeJudge, scorer_for: Callable[..., Any]) -> None:
    failed = scorer_for().run(input=QUESTION, output=ANSWER, item_id="qa-9")
    assert math.isnan(failed.score)
    assert failed.error is not None
    assert failed.error.step == "input"
    assert "item 'qa-9': field 'ground_truth' is missing" in failed.error.message
    lenient = scorer_for(require_ground_truth=False).run(input=QUESTION, output=ANSWER)
    assert lenient.score == 0.0
    assert lenient.error is None
    assert "no ground truth" in (lenient.reason or "")
    assert fake_judge.requests_total == 0


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("semantic_threshold", 1.5),
        ("exact_match_bonus", -0.1),
        ("missing_penalty", "x"),
        ("contradiction_penalty", float("inf")),
        ("scale", 0),
    ],
)
def test_bad_weights_are_rejected(option: str, value: Any) -> None:
    with pytest.raises(ConfigurationError, match=option):
        create_answer_similarity_scorer(**{option: value})


def test_prompt_overrides(fake_judge: FakeJudge, scorer_for: Callable[..., Any]) -> None:
    with pytest.raises(ConfigurationError, match="unknown prompt"):
        create_answer_similarity_scorer(prompts={"extraction": "{{output}}"})
    with pytest.raises(ConfigurationError, match="missing the placeholder"):
        create_answer_similarity_scorer(prompts={"extract": "{{output}} only"})
    custom = "UNITS PLEASE {{question}} / {{output}} / {{ground_truth}}"
    scorer = scorer_for(prompts={"extract": custom})
    run_scripted(fake_judge, scorer, ["red"], analysis([match("red", "exact")]))
    assert "UNITS PLEASE" in prompt_text(requests_for(fake_judge, "extract")[0])


# --- the offline judge's thresholds ---------------------------------------------------------------


def test_offline_settings_round_trip_and_are_checked() -> None:
    from evaltoolkit import AnswerSimilarityOfflineSettings

    names = [spec.name for spec in AnswerSimilarityOfflineSettings.specs()]
    assert names == [
        "semantic_coverage",
        "partial_coverage",
        "semantic_fuzz",
        "partial_fuzz",
        "restatement_share",
    ]
    chosen = AnswerSimilarityOfflineSettings(partial_coverage=0.3, semantic_fuzz=95)
    assert AnswerSimilarityOfflineSettings.from_mapping(dataclasses.asdict(chosen)) == chosen
    scorer = create_answer_similarity_scorer(offline_settings={"partial_coverage": 0.3})
    assert scorer.offline_settings == AnswerSimilarityOfflineSettings(partial_coverage=0.3)
    assert scorer.with_offline_settings({"semantic_fuzz": 95}).offline_settings == chosen
    assert scorer.offline_setting_specs == AnswerSimilarityOfflineSettings.specs()
    with pytest.raises(ConfigurationError, match="semantic_fuzz must be from 50 to 100"):
        create_answer_similarity_scorer(offline_settings={"semantic_fuzz": 101})
    with pytest.raises(ConfigurationError, match="did you mean 'partial_fuzz'"):
        create_answer_similarity_scorer(offline_settings={"partial_fuz": 70})


def test_a_moved_threshold_changes_the_offline_score() -> None:
    item = {"input": "Which games?", "output": "the summer games"}
    truth = "1960 summer olympics in Rome"
    default = create_answer_similarity_scorer()
    lenient = default.with_offline_settings({"partial_coverage": 0.1, "partial_fuzz": 30})
    # One word of five: missing by default, partial once a tenth of the content is enough.
    assert default.run(**item, ground_truth=truth).details["missing_matches"] == 1
    assert lenient.run(**item, ground_truth=truth).details["partial_matches"] == 1
    assert (
        lenient.run(**item, ground_truth=truth).score
        > default.run(**item, ground_truth=truth).score
    )


def test_offline_settings_need_the_offline_judge(fake_judge: FakeJudge) -> None:
    with pytest.raises(ConfigurationError, match="offline_settings tune the offline judge"):
        create_answer_similarity_scorer(fake_judge, offline_settings={"semantic_fuzz": 90})
    with pytest.raises(ConfigurationError, match="tune the offline judge"):
        create_answer_similarity_scorer(fake_judge).with_offline_settings({"semantic_fuzz": 90})
