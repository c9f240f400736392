"""Options that cannot be mistyped, and a concurrency that means what it says."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from conftest import PLANTED_API_KEY
from loopback_server import LoopbackServer, reply

import evaltoolkit as et
from evaltoolkit._internal.options import camel_case
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.judge import JudgeConfig
from evaltoolkit.judge._internal import judge_option_names
from evaltoolkit.meta import meta_evaluate


@pytest.mark.parametrize(
    ("factory", "options", "suggestion"),
    [
        (et.create_summarization_scorer, {"temprature": 0.2}, "temperature"),
        (et.create_summarization_scorer, {"api_bse": "x"}, "api_base"),
        (et.create_summarization_scorer, {"max_question": 3}, "max_questions"),
        (et.create_answer_similarity_scorer, {"semantic_treshold": 0.5}, "semantic_threshold"),
        (et.create_answer_similarity_scorer, {"timout": 5}, "timeout"),
        (et.create_judge, {"concurency": 4}, "concurrency"),
    ],
)
def test_a_mistyped_option_names_the_closest_valid_one(
    factory: Any, options: dict[str, Any], suggestion: str
) -> None:
    with pytest.raises(ConfigurationError, match=f"did you mean '{suggestion}'"):
        factory("openai/x", **options)


def test_a_reference_style_options_dict_is_checked_too() -> None:
    scorer = et.create_summarization_scorer(options={"maxQuestions": 3, "scale": 2})
    assert (scorer.max_questions, scorer.scale) == (3, 2.0)
    with pytest.raises(ConfigurationError, match="did you mean 'max_questions'"):
        et.create_summarization_scorer(options={"maxQuestion": 3})


def test_meta_evaluate_refuses_a_mistyped_judge_option() -> None:
    frame = [{"source": "a b c", "summary": "a b", "label": 1.0}]
    import pandas as pd

    with pytest.raises(ConfigurationError, match="did you mean 'temperature'"):
        meta_evaluate(pd.DataFrame(frame), task="summarization", label="label", temprature=0.1)


@pytest.mark.parametrize(
    "options",
    [
        {"api_base": "http://127.0.0.1:8000/v1"},
        {"api_key": "sk-a-key-1234"},
        {"temperature": 0.5},
        {"max_tokens": 10},
        {"structured_output": "off"},
        {"extra": {"top_p": 0.5}},
    ],
)
def test_the_offline_judge_rejects_model_only_options(options: dict[str, Any]) -> None:
    name = next(iter(options))
    with pytest.raises(ConfigurationError, match=f"offline judge takes no {name}"):
        et.create_summarization_scorer(**options)


def test_options_shared_by_every_judge_are_accepted_offline() -> None:
    scorer = et.create_answer_similarity_scorer(cache=False, concurrency=4)
    assert scorer.judge.offline


def test_every_option_has_a_derived_camel_case_spelling() -> None:
    for name in judge_option_names():
        spelled = camel_case(name)
        value = getattr(JudgeConfig(model="openai/x"), name)
        config = (
            JudgeConfig.from_options("openai/x", **{spelled: value}) if name != "model" else None
        )
        if config is not None:
            assert getattr(config, name) == value
    assert camel_case("structured_output") == "structuredOutput"
    assert JudgeConfig.from_options("openai/x", structuredOutput="off").structured_output == "off"


def test_the_config_is_frozen_and_hides_the_key() -> None:
    config = JudgeConfig.from_options("openai/x", api_key=PLANTED_API_KEY, temperature=0.3)

    with pytest.raises(dataclasses.FrozenInstanceError):
        config.temperature = 1.0  # type: ignore[misc]
    assert PLANTED_API_KEY not in repr(config)
    assert "temperature=0.3" in repr(config)
    assert config.replace(temperature=0.0).temperature == 0.0


@pytest.mark.parametrize(
    "options",
    [
        {"timeout": 0},
        {"max_retries": -1},
        {"concurrency": 0},
        {"temperature": -1},
        {"structured_output": "yaml"},
        {"extra": {"response_format": {}}},
        {"extra": {"temperature": 0.1}},
        {"cache": 12},
    ],
)
def test_out_of_range_values_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        JudgeConfig.from_options("openai/x", **options)


def test_extra_arguments_reach_the_server(loopback_server: LoopbackServer) -> None:
    loopback_server.set_responder(lambda body: reply({"reason": "fine"}))
    scorer = et.create_judged_scorer(
        id="x",
        steps=[
            et.Step(
                name="reason",
                prompt="{{output}}",
                schema={"type": "object", "properties": {"reason": {"type": "string"}}},
            )
        ],
        score=lambda context: 1.0,
        model="openai/loopback",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        cache=False,
        extra={"top_p": 0.25, "presence_penalty": 0.5},
    )

    scorer.run(input="q", output="a")

    body = loopback_server.requests[0]
    assert body["top_p"] == 0.25
    assert body["presence_penalty"] == 0.5
    assert body["max_tokens"] == 256  # sized from the one-string schema


def _summaries(count: int) -> list[dict[str, Any]]:
    return [
        {"input": f"Source text number {index}.", "output": "A summary."} for index in range(count)
    ]


def test_the_run_concurrency_is_the_one_knob(loopback_server: LoopbackServer) -> None:
    loopback_server.latency_s = 0.3
    loopback_server.set_responder(
        lambda body: reply({"claims": [], "questions": [], "verdicts": [], "reason": "r"})
    )
    scorer = et.create_summarization_scorer(
        "openai/loopback",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        cache=False,
        reason="template",
    )

    et.run_evals(_summaries(48), scorer, concurrency=24, progress=False)

    # Each judge used to cap itself at 16 calls whatever the run allowed.
    assert loopback_server.max_in_flight > 16
    assert loopback_server.max_in_flight <= 24


def test_a_judge_limit_applies_when_the_user_sets_one(loopback_server: LoopbackServer) -> None:
    loopback_server.latency_s = 0.1
    loopback_server.set_responder(
        lambda body: reply({"claims": [], "questions": [], "verdicts": [], "reason": "r"})
    )
    scorer = et.create_summarization_scorer(
        "openai/loopback",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        cache=False,
        reason="template",
        concurrency=3,
    )

    et.run_evals(_summaries(12), scorer, concurrency=12, progress=False)

    assert 2 <= loopback_server.max_in_flight <= 3
