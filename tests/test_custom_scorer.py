"""Custom judged scorers built from public steps: offline, against a model, in the tuner."""

from __future__ import annotations

import json
import math
import pickle
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _support import DATA, REPO
from conftest import PLANTED_API_KEY
from loopback_server import LoopbackServer, reply

import evaltoolkit as et
from evaltoolkit.errors import ConfigurationError, InputError
from evaltoolkit.judge._litellm_runtime import missing_private_attributes

CITES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"cites": {"type": "boolean"}, "quote": {"type": "string"}},
    "required": ["cites", "quote"],
    "additionalProperties": False,
}
CITES_PROMPT = (
    "Does the ANSWER cite where its facts come from?\nQUESTION: {{input}}\nANSWER: {{output}}\n"
    'Reply with JSON: {"cites": true, "quote": "..."}'
)


def offline_cites(output: str) -> dict[str, Any]:
    """Cites when the answer names where a fact comes from (a rule simple enough to check)."""
    for marker in ("according to", "http", "source:"):
        position = output.lower().find(marker)
        if position >= 0:
            return {"cites": True, "quote": output[position : position + 40]}
    return {"cites": False, "quote": ""}


def cites_step(**changes: Any) -> et.Step:
    settings: dict[str, Any] = {
        "name": "cites",
        "prompt": CITES_PROMPT,
        "schema": CITES_SCHEMA,
        "offline": offline_cites,
        "description": "does the answer cite a source?",
    }
    settings.update(changes)
    return et.Step(**settings)


def cites_score(context: et.StepContext) -> et.Score:
    reply_ = context.replies["cites"]
    return et.Score(1.0 if reply_["cites"] else 0.0, details={"quote": reply_["quote"]})


def cites_scorer(**options: Any) -> et.JudgedScorer:
    return et.create_judged_scorer(
        id="cites-source",
        steps=[cites_step()],
        score=cites_score,
        reason=lambda context: f"cites: {context.replies['cites']['cites']}",
        **options,
    )


ITEMS = [
    {"id": "a", "input": "Population of Oslo?", "output": "According to Statistics Norway, 700k."},
    {"id": "b", "input": "Population of Oslo?", "output": "About 700 thousand people."},
    {"id": "c", "input": "Capital of Peru?", "output": "Lima (source: the CIA World Factbook)."},
]


def test_a_custom_scorer_runs_offline_under_run_evals() -> None:
    result = et.run_evals(ITEMS, cites_scorer(), progress=False)

    scores = {item.item_id: item.scorer_results["cites-source"] for item in result}
    assert [scores[key].score for key in "abc"] == [1.0, 0.0, 1.0]
    assert scores["a"].details["quote"].startswith("According to Statistics")
    assert scores["b"].reason == "cites: False"
    assert scores["a"].preprocess_step_result == {
        "cites": {"cites": True, "quote": "According to Statistics Norway, 700k."}
    }
    call = scores["a"].calls[0]
    assert (call.step, call.stage, call.model) == ("cites", "preprocess", "offline")
    assert "ANSWER: According to Statistics Norway" in call.prompt
    frame = result.to_frame()
    assert list(frame["score"]) == [1.0, 0.0, 1.0]
    assert "quote" in frame.columns


def test_a_custom_scorer_runs_on_the_demo_data_file() -> None:
    result = et.run_evals(DATA / "demo_answers.jsonl", cites_scorer(), progress=False)

    summary = result.scores["cites-source"]
    assert summary.failed == 0
    assert summary.scored == 16


def test_a_custom_scorer_against_a_model_caches_and_renders_its_prompt(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    loopback_server.set_responder(lambda body: reply({"cites": True, "quote": "x"}))
    options = {
        "model": "openai/loopback",
        "api_base": loopback_server.url,
        "api_key": PLANTED_API_KEY,
        "cache": tmp_path / "cache",
    }

    first = et.run_evals(ITEMS, cites_scorer(**options), progress=False)
    requests_first = loopback_server.requests_total
    again = et.run_evals(ITEMS, cites_scorer(**options), progress=False)

    assert requests_first == 3
    assert loopback_server.requests_total == 3  # the rerun is answered from the cache
    assert [item.scorer_results["cites-source"].score for item in first] == [1.0, 1.0, 1.0]
    assert all(item.scorer_results["cites-source"].calls[0].cached for item in again)
    user_messages = [body["messages"][-1]["content"] for body in loopback_server.requests]
    assert any("ANSWER: About 700 thousand people." in text for text in user_messages)
    schema = loopback_server.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema == CITES_SCHEMA


def test_with_prompts_changes_what_the_model_is_sent(loopback_server: LoopbackServer) -> None:
    loopback_server.set_responder(lambda body: reply({"cites": False, "quote": ""}))
    scorer = cites_scorer(
        model="openai/loopback", api_base=loopback_server.url, api_key=PLANTED_API_KEY, cache=False
    )
    tuned = scorer.with_prompts({"cites": "TUNED. " + CITES_PROMPT})

    tuned.run(input="q", output="an answer")

    assert loopback_server.messages_of(0)[-1]["content"].startswith("TUNED. Does the ANSWER")
    assert scorer.prompts["cites"] == CITES_PROMPT
    with pytest.raises(ConfigurationError, match="placeholder"):
        scorer.with_prompts({"cites": "no placeholders at all"})


def test_a_custom_scorer_in_the_prompt_tuner(loopback_server: LoopbackServer) -> None:
    from evaltoolkit.widgets import PromptTuner

    def respond(body: dict[str, Any]) -> Any:
        tuned = "STRICT" in body["messages"][-1]["content"]
        return reply({"cites": not tuned, "quote": ""})

    loopback_server.set_responder(respond)
    scorer = cites_scorer(
        model="openai/loopback", api_base=loopback_server.url, api_key=PLANTED_API_KEY, cache=False
    )
    labelled = [{**item, "human": index % 2 == 0} for index, item in enumerate(ITEMS)]
    tuner = PromptTuner(scorer, labelled, labels="human", sample=3, n_bootstrap=0)

    assert set(tuner.textareas) == {"system", "cites"}
    tuner.textareas["cites"].value = "STRICT. " + CITES_PROMPT
    comparison = tuner.run()

    assert list(comparison["before"]) == [1.0, 1.0, 1.0]
    assert list(comparison["after"]) == [0.0, 0.0, 0.0]
    assert tuner.export() == {"cites": "STRICT. " + CITES_PROMPT}


def test_a_step_without_an_offline_function_is_refused_at_creation() -> None:
    with pytest.raises(ConfigurationError, match=r"cannot answer step.*cites"):
        et.create_judged_scorer(id="x", steps=[cites_step(offline=None)], score=lambda context: 1.0)
    scorer = et.create_judged_scorer(
        id="x", steps=[cites_step(offline=None)], score=lambda context: 1.0, model="openai/x"
    )
    assert scorer.judge_model == "openai/x"


def test_steps_and_scorers_are_checked_when_made() -> None:
    with pytest.raises(ConfigurationError, match="letters, digits"):
        cites_step(name="two words")
    with pytest.raises(ConfigurationError, match="schema"):
        cites_step(schema={"type": "array"})
    with pytest.raises(ConfigurationError, match="two steps are named"):
        et.create_judged_scorer(id="x", steps=[cites_step(), cites_step()], score=cites_score)
    with pytest.raises(ConfigurationError, match="uses verdicts"):
        et.create_judged_scorer(
            id="x",
            steps=[cites_step(prompt="{{verdicts}}")],
            score=cites_score,
        )
    second = et.Step(
        name="second",
        prompt="Earlier: {{cites}}",
        schema=CITES_SCHEMA,
        offline=lambda cites: {"cites": bool(cites["cites"]), "quote": ""},
    )
    chained = et.create_judged_scorer(
        id="x", steps=[cites_step(), second], score=lambda context: 1.0
    )
    result = chained.run(input="q", output="according to me")
    assert result.analyze_step_result == {"second": {"cites": True, "quote": ""}}
    assert '"cites": true' in result.calls[1].prompt


def test_an_offline_reply_breaking_the_schema_is_a_reply_error_on_its_item() -> None:
    scorer = et.create_judged_scorer(
        id="x", steps=[cites_step(offline=lambda output: {"cites": "yes"})], score=cites_score
    )

    result = scorer.run(input="q", output="a", item_id="bad")

    assert math.isnan(result.score)
    assert result.error is not None
    assert result.error.kind == "JudgeReplyError"
    assert result.error.step == "cites"
    assert "does not match the step's schema" in result.error.message
    assert json.loads(result.error.raw_reply or "") == {"cites": "yes"}


def test_an_input_error_from_an_offline_function_fails_its_item_as_input() -> None:
    def too_long(output: str) -> dict[str, Any]:
        raise InputError("the output is longer than 10 characters", field="output")

    scorer = et.create_judged_scorer(
        id="x", steps=[cites_step(offline=too_long)], score=cites_score
    )
    result = scorer.run(input="q", output="a long answer")

    assert result.error is not None
    assert result.error.step == "input"
    assert "longer than 10 characters" in result.error.message


def test_a_bug_in_a_score_function_keeps_its_traceback_and_is_reported_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(context: et.StepContext) -> float:
        return float(context.replies["cites"]["missing-key"])

    scorer = et.create_judged_scorer(id="buggy", steps=[cites_step()], score=broken)
    result = et.run_evals(ITEMS, scorer, progress=False)

    errors = [item.scorer_results["buggy"].error for item in result]
    assert all(error is not None and error.kind == "KeyError" for error in errors)
    assert all(
        "Traceback" in error.message and "broken" in error.message for error in errors if error
    )
    assert all(error.step == "score" for error in errors if error)
    printed = capsys.readouterr().err
    assert printed.count("raised KeyError") == 1
    assert "bug in the scorer" in printed


def test_a_score_function_must_return_a_number() -> None:
    scorer = et.create_judged_scorer(id="x", steps=[cites_step()], score=lambda context: "high")

    result = scorer.run(input="q", output="a")

    assert result.error is not None
    assert "return a number or a Score" in result.error.message


def test_create_scorer_still_builds_the_built_ins() -> None:
    assert et.create_scorer("summarization").id == "summarization"
    assert et.create_scorer("answer-similarity").id == "answer-similarity"


def test_scorers_pickle_with_their_judge_settings() -> None:
    scorer = et.create_answer_similarity_scorer(
        "openai/x", api_base="http://127.0.0.1:1/v1", temperature=0.3, cache=False
    )

    copy = pickle.loads(pickle.dumps(scorer))

    assert copy.judge_model == "openai/x"
    assert copy.judge.config == scorer.judge.config
    assert pickle.loads(pickle.dumps(et.create_summarization_scorer())).judge.offline


def test_the_judge_layer_knows_no_scorer() -> None:
    completed = subprocess.run(
        ["grep", "-riE", "summari|answer.?similar|coverage|alignment", "evaltoolkit/judge/"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )

    assert completed.stdout == ""
    assert completed.returncode == 1  # grep found nothing


def test_the_litellm_internals_we_rely_on_are_there() -> None:
    assert missing_private_attributes() == []


def test_litellm_has_an_upper_version_bound() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    litellm = [spec for spec in project["project"]["dependencies"] if spec.startswith("litellm")]
    assert litellm and "<" in litellm[0]
