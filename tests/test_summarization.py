"""The summarization scorer over scripted judge replies (in process; one test over HTTP)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from fake_judge import FakeJudge
from judge_script import prompt_text, requests_for, script_steps
from loopback_server import LoopbackServer, invalid_json

from evaltoolkit import (
    ConfigurationError,
    create_summarization_scorer,
    extract_tool_results,
    run_evals,
)

SOURCE = (
    "The Zephyr observatory opened in 2011 on Mount Arlo. It houses a 4-metre telescope. "
    "Its first director was Dr. Ines Vardi."
)
SUMMARY = "The Zephyr observatory opened in 2011 and has a 4-metre telescope."
QUESTIONS = [
    "Does the text say the observatory opened in 2011?",
    "Does the text say it is on Mount Arlo?",
    "Does the text say it houses a 4-metre telescope?",
    "Does the text say its first director was Dr. Ines Vardi?",
]


def claims(*supported: bool) -> list[dict[str, Any]]:
    return [
        {"claim": f"claim {i}", "supported": flag, "reason": f"why {i}"}
        for i, flag in enumerate(supported)
    ]


def verdicts(*answered: bool, questions: list[str] = QUESTIONS) -> list[dict[str, Any]]:
    return [
        {"question": q, "answered": flag, "reason": "from the summary"}
        for q, flag in zip(questions, answered, strict=False)
    ]


@pytest.fixture
def scorer_for(fake_judge: FakeJudge) -> Callable[..., Any]:
    def build(**options: Any) -> Any:
        return create_summarization_scorer(fake_judge, **options)

    return build


def test_three_calls_and_the_lower_axis_decides(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True, True, True, False), "questions": QUESTIONS},
            "coverage": {"verdicts": verdicts(True, False, True, True)},
            "reason": {"reason": "Alignment decided it."},
        },
    )
    result = scorer_for().run(input=SOURCE, output=SUMMARY)
    assert result.error is None
    assert result.score == 0.75
    assert result.details["alignment_score"] == 0.75
    assert result.details["coverage_score"] == 0.75
    assert result.details["decided_by"] == "tie"
    assert result.reason == "Alignment decided it."
    assert [call.step for call in result.calls] == ["source_judgement", "coverage", "reason"]
    assert fake_judge.requests_total == 3
    assert result.preprocess_step_result is not None
    assert result.preprocess_step_result["questions"] == QUESTIONS
    assert len(result.preprocess_step_result["alignment"]) == 4
    assert result.analyze_step_result is not None
    assert [v["answered"] for v in result.analyze_step_result["coverage"]] == [
        True,
        False,
        True,
        True,
    ]
    record = result.to_record()
    assert (record["claims"], record["unsupported_claims"]) == (4, 1)
    assert (record["questions"], record["unanswered_questions"]) == (4, 1)


@pytest.mark.parametrize(
    ("supported", "answered", "score", "decided_by"),
    [
        ((True, False), (True, True, True, True), 0.5, "alignment"),
        ((True, True, True), (True, False, False, False), 0.25, "coverage"),
        ((True, True), (True, True, True, True), 1.0, "tie"),
    ],
)
def test_formula_branches(
    fake_judge: FakeJudge,
    scorer_for: Callable[..., Any],
    supported: tuple[bool, ...],
    answered: tuple[bool, ...],
    score: float,
    decided_by: str,
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(*supported), "questions": QUESTIONS},
            "coverage": {"verdicts": verdicts(*answered)},
        },
    )
    result = scorer_for(reason="template", scale=10).run(input=SOURCE, output=SUMMARY)
    assert result.score == pytest.approx(score * 10)
    assert result.details["decided_by"] == decided_by
    assert fake_judge.requests_total == 2  # the template reason makes no call
    assert result.reason is not None
    if decided_by != "tie":
        assert f"decided by {decided_by}" in result.reason
    assert "alignment" in result.reason.lower()
    assert "coverage" in result.reason.lower()


def test_coverage_request_never_contains_the_source(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS[:2]},
            "coverage": {"verdicts": verdicts(True, True)},
            "reason": {"reason": "ok"},
        },
    )
    scorer_for().run(input=SOURCE, output=SUMMARY)
    (coverage_request,) = requests_for(fake_judge, "coverage")
    text = prompt_text(coverage_request)
    assert SUMMARY in text
    for sentence in SOURCE.split(". "):
        assert sentence.rstrip(".") not in text
    assert "Mount Arlo. It houses" not in text
    (judgement_request,) = requests_for(fake_judge, "source_judgement")
    assert SOURCE in prompt_text(judgement_request)


def test_no_claims_scores_zero(fake_judge: FakeJudge, scorer_for: Callable[..., Any]) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": [], "questions": QUESTIONS},
            "coverage": {"verdicts": verdicts(True, True, True, True)},
        },
    )
    result = scorer_for(reason="template").run(input=SOURCE, output="")
    assert result.score == 0
    assert result.details["alignment_score"] == 0
    assert result.details["coverage_score"] == 1.0
    assert result.error is None


def test_no_questions_scores_zero_without_a_coverage_call(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(fake_judge, {"source_judgement": {"claims": claims(True, True), "questions": []}})
    result = scorer_for(reason="template").run(input=SOURCE, output=SUMMARY)
    assert result.score == 0
    assert result.details["coverage_score"] == 0
    assert requests_for(fake_judge, "coverage") == []


def test_only_the_first_max_questions_count(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS},
            "coverage": {"verdicts": verdicts(True, False, False, False)},
        },
    )
    result = scorer_for(reason="template", max_questions=2).run(input=SOURCE, output=SUMMARY)
    assert result.details["questions"] == 2
    assert result.details["coverage_score"] == 0.5
    (judgement_request,) = requests_for(fake_judge, "source_judgement")
    assert "at most 2 closed questions" in prompt_text(judgement_request)
    (coverage_request,) = requests_for(fake_judge, "coverage")
    assert QUESTIONS[1] in prompt_text(coverage_request)
    assert QUESTIONS[2] not in prompt_text(coverage_request)


def test_missing_verdicts_count_as_unanswered_and_extras_are_dropped(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    reordered = [
        {"question": QUESTIONS[2], "answered": True, "reason": "r"},
        {"question": QUESTIONS[0], "answered": True, "reason": "r"},
        {"question": "An extra question nobody asked?", "answered": True, "reason": "r"},
        {"question": "Yet another one?", "answered": True, "reason": "r"},
        {"question": "And one more?", "answered": True, "reason": "r"},
    ]
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS},
            "coverage": {"verdicts": reordered},
        },
    )
    result = scorer_for(reason="template").run(input=SOURCE, output=SUMMARY)
    assert result.analyze_step_result is not None
    coverage = result.analyze_step_result["coverage"]
    assert [v["question"] for v in coverage] == QUESTIONS
    assert [v["answered"] for v in coverage] == [True, False, True, False]
    assert "no verdict" in coverage[1]["reason"]
    assert result.details["coverage_score"] == 0.5


@pytest.mark.parametrize("max_questions", [0, -3, 2.5, True, "10"])
def test_bad_max_questions_is_rejected_at_creation(max_questions: Any) -> None:
    with pytest.raises(ConfigurationError, match="max_questions"):
        create_summarization_scorer(max_questions=max_questions)


def test_source_option_and_extractor_precedence(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS[:1]},
            "coverage": {"verdicts": verdicts(True)},
        },
    )
    output = [
        {
            "role": "assistant",
            "tool_calls": [{"id": "1", "function": {"name": "fetch_document", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "1", "content": "TOOL DOCUMENT about the observatory."},
        {"role": "assistant", "content": SUMMARY},
    ]

    def from_tool(item_input: Any, item_output: Any) -> str:
        return "\n\n".join(
            str(r.result)
            for r in extract_tool_results(item_output)
            if r.tool_name == "fetch_document"
        )

    scorer_for(reason="template", source="FIXED SOURCE text.").run(input=SOURCE, output=SUMMARY)
    scorer_for(reason="template", source="FIXED SOURCE text.", source_extractor=from_tool).run(
        input={"inputMessages": [{"role": "user", "content": "Summarise the fetched page."}]},
        output=output,
    )
    first, second = requests_for(fake_judge, "source_judgement")
    assert "FIXED SOURCE text." in prompt_text(first)
    assert SOURCE not in prompt_text(first)
    assert "TOOL DOCUMENT about the observatory." in prompt_text(second)
    assert "FIXED SOURCE" not in prompt_text(second)
    assert SUMMARY in prompt_text(second)


def test_reference_options_are_accepted(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS},
            "coverage": {"verdicts": verdicts(True, True, True, True)},
        },
    )
    scorer = scorer_for(
        reason="template", options={"maxQuestions": 3, "scale": 5, "source": "Option source."}
    )
    assert scorer.max_questions == 3
    result = scorer.run(input=SOURCE, output=SUMMARY)
    assert result.score == 5.0
    assert "Option source." in prompt_text(requests_for(fake_judge, "source_judgement")[0])


def test_a_reply_that_never_validates_fails_its_step_with_nan(
    loopback_server: LoopbackServer,
) -> None:
    # Through litellm and HTTP: the repair request is the judge's, and its count is recorded.
    script_steps(
        loopback_server,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS},
            "coverage": lambda body: invalid_json('{"verdicts": [oops'),
        },
    )
    scorer = create_summarization_scorer(
        "openai/loopback",
        api_base=loopback_server.url,
        api_key="sk-test",
        cache=False,
        reason="template",
        max_repairs=1,
    )
    result = scorer.run(input=SOURCE, output=SUMMARY)
    assert math.isnan(result.score)
    assert result.error is not None
    assert result.error.step == "coverage"
    assert result.error.raw_reply == '{"verdicts": [oops'
    assert result.error.attempts == 2
    assert [call.step for call in result.calls] == ["source_judgement", "coverage"]
    assert result.to_record()["error_step"] == "coverage"


def test_prompt_overrides_are_checked_and_used(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    with pytest.raises(ConfigurationError, match="unknown prompt 'coverge'"):
        create_summarization_scorer(prompts={"coverge": "x"})
    with pytest.raises(ConfigurationError, match=r"missing the placeholder \{\{questions\}\}"):
        create_summarization_scorer(prompts={"coverage": "Only {{summary}} here."})
    with pytest.raises(ConfigurationError, match=r"unknown placeholder \{\{source\}\}"):
        create_summarization_scorer(
            prompts={"coverage": "{{summary}} {{questions}} and {{source}}"}
        )
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS[:1]},
            "coverage": {"verdicts": verdicts(True)},
        },
    )
    custom = "CUSTOM COVERAGE.\nSummary: {{summary}}\nQuestions:\n{{questions}}"
    scorer = scorer_for(reason="template", prompts={"coverage": custom})
    assert scorer.prompts["coverage"] == custom
    # reason="template" writes the reason without a call, so it has no reason prompt.
    assert set(scorer.prompts) == {"system", "source_judgement", "coverage"}
    assert set(scorer_for().prompts) == {"system", "source_judgement", "coverage", "reason"}
    scorer.run(input=SOURCE, output=SUMMARY)
    assert "CUSTOM COVERAGE." in prompt_text(requests_for(fake_judge, "coverage")[0])
    tuned = scorer.with_prompts({"system": scorer.prompts["system"] + "\nBe brief."})
    assert tuned.prompts.changed.keys() == {"coverage", "system"}
    assert scorer.prompts.changed.keys() == {"coverage"}


def test_bad_inputs_name_the_field(scorer_for: Callable[..., Any]) -> None:
    scorer = scorer_for(reason="template")
    missing = scorer.run(input=SOURCE, output=None, item_id="s-1")
    assert missing.error is not None
    assert "item 's-1': field 'output'" in missing.error.message
    empty_source = scorer.run(input="   ", output=SUMMARY, item_id="s-2")
    assert empty_source.error is not None
    assert "source" in empty_source.error.message

    def broken(item_input: Any, item_output: Any) -> str:
        raise KeyError("document")

    failed = create_summarization_scorer(source_extractor=broken).run(input=SOURCE, output=SUMMARY)
    assert failed.error is not None
    assert "source_extractor raised KeyError" in failed.error.message
    assert math.isnan(failed.score)


def test_an_items_source_field_is_judged_and_recorded(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True), "questions": QUESTIONS[:1]},
            "coverage": {"verdicts": verdicts(True)},
        },
    )
    items = [
        {"id": "own", "input": "Summarise the report.", "output": SUMMARY, "source": SOURCE},
        {"id": "option", "input": "Summarise the report.", "output": SUMMARY},
    ]
    scorer = scorer_for(reason="template", source="FALLBACK SOURCE text.")

    result = run_evals(items, scorer, progress=False)

    first, second = requests_for(fake_judge, "source_judgement")
    assert SOURCE in prompt_text(first)
    assert "Summarise the report." not in prompt_text(first)
    assert "FALLBACK SOURCE text." in prompt_text(second)
    recorded = [item.scorer_results["summarization"].details["source"] for item in result]
    assert recorded == [SOURCE, "FALLBACK SOURCE text."]
    bad = run_evals([{**items[0], "source": ["not", "text"]}], scorer, progress=False)
    error = bad[0].scorer_results["summarization"].error
    assert error is not None and "field 'source' is list" in error.message


# --- the offline judge's named rules --------------------------------------------------------------

ELECTION = (
    "Maria Lopez won the mayoral election in Riverton on Sunday with 52 percent of the vote. "
    "Her rival, Tom Becker, conceded the race on Monday. Lopez will take office in January, "
    "and Becker said he would stay on the city council."
)
ELECTION_ITEMS = [
    {
        "input": ELECTION,
        "output": "Maria Lopez won the mayoral election in Riverton with 58 percent of the vote.",
    },
    {
        "input": ELECTION,
        "output": "Maria Lopez won the mayoral election in Riverton on Sunday. Becker conceded "
        "the race on Monday.",
    },
]


def test_offline_verdicts_name_their_rule_and_rule_counts_counts_them() -> None:
    scorer = create_summarization_scorer(reason="template", max_questions=3)
    result = run_evals(ELECTION_ITEMS, scorer, progress=False)
    first, second = result.results("summarization")
    # 58 percent: the source gives 52 percent; the second summary's claims are verbatim.
    assert [claim["rule"] for claim in first.preprocess_step_result["alignment"]] == [
        "changed_number"
    ]
    assert [claim["rule"] for claim in second.preprocess_step_result["alignment"]] == [
        "supported",
        "supported",
    ]
    question_rules = [
        verdict["rule"]
        for item in (first, second)
        for verdict in item.analyze_step_result["coverage"]
    ]
    assert len(question_rules) == 6
    counts = result.rule_counts()
    assert list(counts.columns) == ["scorer", "step", "rule", "count"]
    found = {(row.step, row.rule): row.count for row in counts.itertuples()}
    expected = {("alignment", "changed_number"): 1, ("alignment", "supported"): 2}
    for rule in set(question_rules):
        expected[("coverage", rule)] = question_rules.count(rule)
    assert found == expected
    assert set(counts["scorer"]) == {"summarization"}


def test_a_model_judges_verdicts_name_no_rule(
    fake_judge: FakeJudge, scorer_for: Callable[..., Any]
) -> None:
    script_steps(
        fake_judge,
        {
            "source_judgement": {"claims": claims(True, False), "questions": QUESTIONS},
            "coverage": {"verdicts": verdicts(True, False, True, False)},
        },
    )
    result = run_evals(
        [{"input": SOURCE, "output": SUMMARY}], scorer_for(reason="template"), progress=False
    )
    claimed = result.results("summarization")[0].preprocess_step_result["alignment"]
    assert claimed and all("rule" not in claim for claim in claimed)
    assert result.rule_counts().empty
    # A model is asked for no rule: only the offline judge's reply schemas name one.
    model_claims = scorer_for().steps[0].schema["properties"]["claims"]["items"]
    offline_claims = create_summarization_scorer().steps[0].schema["properties"]["claims"]
    assert "rule" not in model_claims["properties"]
    assert "rule" in offline_claims["items"]["properties"]


def test_disabled_rules_change_the_score_and_unknown_ones_fail_at_creation() -> None:
    scorer = create_summarization_scorer(reason="template", max_questions=3)
    # The wrong number is caught two ways: given for the same thing, and missing from the
    # evidence; switched off, nothing else stops the claim.
    rules = {"changed_number", "low_support"}
    lenient = scorer.with_offline_settings({"disabled_rules": sorted(rules)})
    assert lenient.offline_settings.disabled_rules == rules
    one_off = scorer.with_offline_settings({"disabled_rules": ["changed_number"]})
    (claim,) = one_off.run(**ELECTION_ITEMS[0]).preprocess_step_result["alignment"]
    assert (claim["supported"], claim["rule"]) == (False, "low_support")
    before = run_evals(ELECTION_ITEMS[:1], scorer, progress=False).results("summarization")[0]
    after = run_evals(ELECTION_ITEMS[:1], lenient, progress=False).results("summarization")[0]
    assert before.details["alignment_score"] == 0.0
    assert after.details["alignment_score"] == 1.0
    with pytest.raises(ConfigurationError, match="did you mean 'changed_agent'"):
        create_summarization_scorer(offline_settings={"disabled_rules": ["changed_agnt"]})
    with pytest.raises(ConfigurationError, match="cannot be switched off"):
        scorer.with_offline_settings({"disabled_rules": ["supported"]})
