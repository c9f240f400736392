"""Result records: flattening, failures, reprs."""

from __future__ import annotations

import json
import math

import pytest

from evaltoolkit import (
    ModelCall,
    ScoreResult,
    StepError,
    Usage,
    create_textual_difference_scorer,
    run_evals,
)


def _call(step: str, stage: str, tokens: int, cost: float | None) -> ModelCall:
    return ModelCall(
        step=step,
        stage=stage,  # type: ignore[arg-type]
        model="openai/x",
        prompt=f"[user]\nprompt of {step}",
        raw_reply='{"ok": true}',
        usage=Usage(tokens, 1),
        cost=cost,
    )


def test_to_record_is_flat_with_nested_values_as_json() -> None:
    result = ScoreResult(
        scorer="summarization",
        score=0.5,
        reason="because",
        preprocess_step_result={"alignment": [{"claim": "a", "supported": True}]},
        details={"alignment_score": 1.0, "coverage_score": 0.5, "nested": {"k": [1, 2]}},
        calls=(
            _call("source_judgement", "preprocess", 10, 0.01),
            _call("coverage", "analyze", 5, 0.02),
        ),
        judge_model="openai/x",
    )
    record = result.to_record()
    assert all(
        value is None or isinstance(value, str | int | float | bool) for value in record.values()
    )
    assert record["alignment_score"] == 1.0
    assert json.loads(str(record["nested"])) == {"k": [1, 2]}
    assert json.loads(str(record["preprocess_step_result"]))["alignment"][0]["claim"] == "a"
    assert json.loads(str(record["prompts"])) == {
        "source_judgement": "[user]\nprompt of source_judgement",
        "coverage": "[user]\nprompt of coverage",
    }
    assert record["prompt_tokens"] == 15
    assert record["completion_tokens"] == 2
    assert math.isclose(float(record["cost"]), 0.03)  # type: ignore[arg-type]
    assert record["model_calls"] == 2
    assert result.preprocess_prompt == "[user]\nprompt of source_judgement"
    assert result.analyze_prompt == "[user]\nprompt of coverage"
    assert result.generate_reason_prompt is None


def test_unknown_cost_stays_unknown() -> None:
    result = ScoreResult(
        scorer="s",
        score=1.0,
        calls=(_call("a", "preprocess", 1, None), _call("b", "analyze", 1, 0.5)),
    )
    assert result.cost is None
    assert result.to_record()["cost"] is None


def test_failed_result_is_nan_with_its_step() -> None:
    result = ScoreResult(
        scorer="s", score=math.nan, error=StepError("coverage", "the reply never validated")
    )
    record = result.to_record()
    assert math.isnan(float(record["score"]))  # type: ignore[arg-type]
    assert record["error"] == "the reply never validated"
    assert record["error_step"] == "coverage"
    assert result.failed
    assert "coverage" in repr(result)


def test_html_repr_escapes_model_text() -> None:
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    result = ScoreResult(scorer="s", score=0.1, reason=payload, details={"claim": payload})
    rendered = result._repr_html_()
    assert "<script>" not in rendered
    assert "<img" not in rendered
    assert "&lt;script&gt;" in rendered


def test_text_repr_is_short() -> None:
    result = ScoreResult(scorer="s", score=0.25, reason="x" * 500)
    text = repr(result)
    assert text.startswith("ScoreResult(scorer='s', score=0.25")
    assert len(text) < 200


def test_cache_hits_cost_nothing_but_keep_their_original_usage() -> None:
    fresh = _call("source_judgement", "preprocess", 10, 0.01)
    hit = ModelCall(
        step="coverage",
        stage="analyze",
        model="openai/x",
        prompt="p",
        raw_reply="{}",
        usage=Usage(7, 3),
        cost=0.5,
        cached=True,
    )
    result = ScoreResult(scorer="s", score=1.0, calls=(fresh, hit))
    assert result.usage == Usage(10, 1)
    assert result.cost == 0.01
    assert result.to_record()["cached_calls"] == 1
    assert hit.usage == Usage(7, 3)


def test_an_item_is_found_by_its_id_and_by_its_position() -> None:
    data = [
        {"id": "harbour-bridge-1", "input": "q", "output": "a"},
        {"id": 7, "input": "q", "output": "b"},
        {"id": "twice", "input": "q", "output": "c"},
        {"id": "twice", "input": "q", "output": "d"},
    ]
    with pytest.warns(UserWarning, match="shares an id"):
        result = run_evals(data, create_textual_difference_scorer(), progress=False)
    assert result["harbour-bridge-1"] is result.items[0]
    assert result[1].item_id == 7 and result[-1].output == "d"
    assert [item.output for item in result[1:3]] == ["b", "c"]
    with pytest.raises(KeyError, match=r"no item has the id 'nope'; the ids are 'harbour"):
        result["nope"]
    with pytest.raises(KeyError, match=r"2 items have the id 'twice' \(positions 2, 3\)"):
        result["twice"]
