"""What a model judge costs: the estimate, the budget, and prompt-cache tokens, on the loopback
server replying with usage counted the way the provider counts it (o200k_base tokens)."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from judge_script import requests_for, script_steps, step_of
from loopback_server import Action, LoopbackServer, reply

import evaltoolkit as et
from evaltoolkit.cli import BUDGET_REACHED, main
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.judge._litellm_runtime import import_litellm
from evaltoolkit.records.items import load_items
from evaltoolkit.runner._estimate import Budget, item_cost_high

DEMO = Path(et.__file__).parent / "_demo_data" / "demo_summaries.jsonl"
PRICED = "openai/gpt-4o-mini"

SOURCE_REPLY = {
    "claims": [
        {"claim": f"Claim {n} about the article.", "supported": n != 2, "reason": "stated"}
        for n in range(3)
    ],
    "questions": ["Does the article name the company?", "Does it give the year?"],
}
COVERAGE_REPLY = {
    "verdicts": [
        {"question": "Does the article name the company?", "answered": True, "reason": "yes"},
        {"question": "Does it give the year?", "answered": False, "reason": "not stated"},
    ]
}
REASON_REPLY = {"reason": "Coverage decided the score: one of two questions is answered."}
_REASON_SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string"}},
    "required": ["reason"],
    "additionalProperties": False,
}


@functools.cache
def _encoding() -> tiktoken.Encoding:
    # Counting once points tiktoken at the encodings litellm ships: no download.
    import_litellm().token_counter(model=PRICED, text="warm up")
    return tiktoken.get_encoding("o200k_base")


def _tokens(text: str) -> int:
    return len(_encoding().encode(text))


def _priced_reply(
    value: dict[str, Any], cached_tokens: int | None = None, *, longest: bool = False
) -> Any:
    """A reply whose usage the server counts as OpenAI does: 3 tokens a message, plus 3.

    With ``longest``, the reply is billed as long as the request's ``max_tokens`` allows.
    """

    def answer(body: dict[str, Any]) -> Action:
        prompt = sum(3 + _tokens(str(m.get("content", ""))) for m in body["messages"]) + 3
        text = json.dumps(value)
        completion = int(body["max_tokens"]) if longest else _tokens(text)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
        return reply(text, usage=usage)

    return answer


def _script(
    server: LoopbackServer, cached_tokens: int | None = None, *, longest: bool = False
) -> None:
    script_steps(
        server,
        {
            "source_judgement": _priced_reply(SOURCE_REPLY, cached_tokens, longest=longest),
            "coverage": _priced_reply(COVERAGE_REPLY, cached_tokens, longest=longest),
            "reason": _priced_reply(REASON_REPLY, cached_tokens, longest=longest),
        },
    )


def _demo_items(count: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    return rows[:count]


def _scorer(server: LoopbackServer, model: str = PRICED, **options: Any) -> Any:
    settings: dict[str, Any] = {"api_base": server.url, "api_key": "sk-test", "cache": False}
    settings.update(options)
    return et.create_summarization_scorer(model, **settings)


def _reported(result: et.EvalResult, step: str) -> tuple[int, int]:
    calls = [
        call
        for score in result.results("summarization")
        for call in score.calls
        if call.step == step and not call.cached
    ]
    assert calls and all(call.usage is not None for call in calls)
    return (
        sum(call.usage.prompt_tokens for call in calls if call.usage),
        sum(call.usage.completion_tokens for call in calls if call.usage),
    )


@pytest.fixture
def priced_loopback(loopback_server: LoopbackServer) -> LoopbackServer:
    _script(loopback_server)
    return loopback_server


def test_the_estimate_bounds_what_the_run_then_reports(priced_loopback: LoopbackServer) -> None:
    items = _demo_items(6)
    scorer = _scorer(priced_loopback)
    estimate = et.estimate_cost(items, scorer)
    assert priced_loopback.requests_total == 0  # an estimate sends nothing
    steps = {step.step: step for step in estimate.steps}
    assert list(steps) == ["source_judgement", "coverage", "reason"]
    assert all(step.calls == 6 and step.cached_calls == 0 for step in steps.values())

    # One item at a time: identical calls in flight together are sent once (single-flight),
    # and the scripted replies make the later steps' prompts alike; the estimate bounds a run
    # that pays for every call.
    result = et.run_evals(items, scorer, concurrency=1, progress=False)
    assert not any(item.failed for item in result)
    # The first step's prompts are rendered exactly: within 10% of the provider's count.
    first_input, _ = _reported(result, "source_judgement")
    first = steps["source_judgement"]
    assert first.input_tokens_low == first.input_tokens_high
    assert abs(first.input_tokens_low - first_input) <= 0.10 * first_input
    # Later steps quote earlier replies: inside their bounds.
    for name in ("coverage", "reason"):
        step = steps[name]
        input_tokens, output_tokens = _reported(result, name)
        assert step.input_tokens_low <= input_tokens <= step.input_tokens_high, name
        assert step.output_tokens_low <= output_tokens <= step.output_tokens_high, name
    # The run's cost, from the reported usage and litellm's price, lies in the range.
    assert result.cost is not None and result.cost > 0
    cost = estimate.cost
    assert cost is not None
    assert cost[0] <= result.cost <= cost[1]
    assert "estimate: 18 judge calls for 6 items" in str(estimate)
    assert "0 of 18 calls already cached" in estimate.one_line()
    assert "approximately" not in str(estimate)  # gpt-4o-mini's own o200k_base encoding


def test_cached_calls_are_counted_apart_and_cost_nothing(
    priced_loopback: LoopbackServer, judge_cache_dir: Path
) -> None:
    items = _demo_items(4)
    scorer = _scorer(priced_loopback, cache=judge_cache_dir)
    et.run_evals(items[:3], scorer, progress=False)
    estimate = et.estimate_cost(items, scorer)
    # Three items' three calls each are cached; the estimate is what the fourth costs.
    assert (estimate.calls, estimate.cached_calls) == (12, 9)
    assert "9 of 12 calls already cached" in estimate.one_line()
    alone = et.estimate_cost(items[3:], _scorer(priced_loopback))
    assert estimate.cost == alone.cost
    assert estimate.input_tokens == alone.input_tokens


def test_an_unknown_price_is_unknown_not_zero(priced_loopback: LoopbackServer) -> None:
    estimate = et.estimate_cost(_demo_items(2), _scorer(priced_loopback, "openai/loopback"))
    assert estimate.cost is None
    assert "price unknown" in estimate.one_line()
    assert all(step.cost_high is None for step in estimate.steps)
    # tiktoken does not know the model: counted with cl100k_base, and the output says so.
    assert "tokens counted approximately with the cl100k_base tokenizer" in str(estimate)


# -- budget ---------------------------------------------------------------------------------

BUDGET_MODEL = "openai/loopback-budget-test"


@pytest.fixture
def scripted_price() -> Iterator[str]:
    """A model priced at $0.0001 per input token and $0.0002 per output token."""
    litellm = import_litellm()
    litellm.register_model(
        {
            BUDGET_MODEL: {
                "input_cost_per_token": 1e-4,
                "output_cost_per_token": 2e-4,
                "litellm_provider": "openai",
                "mode": "chat",
            }
        }
    )
    yield BUDGET_MODEL
    litellm.model_cost.pop(BUDGET_MODEL, None)
    litellm.model_cost.pop(BUDGET_MODEL.split("/", 1)[1], None)


def test_a_budget_stops_starting_items_and_a_rerun_resumes(
    priced_loopback: LoopbackServer, scripted_price: str, judge_cache_dir: Path
) -> None:
    items = _demo_items(12)
    scorer = _scorer(priced_loopback, scripted_price, cache=judge_cache_dir)
    loaded = load_items(items)
    highs = [item_cost_high(item, {"summarization": scorer}) for item in loaded]
    # Each item fits alone; the items cost about $1.19 together, so not all of them fit.
    budget = 1.0
    assert max(highs) < budget < sum(highs)

    result = et.run_evals(items, scorer, progress=False, concurrency=4, max_cost=budget)
    spent = result.cost
    assert spent is not None and 0 < spent <= budget
    skipped = [s for s in result.results("summarization") if s.not_scored is not None]
    scored = [s for s in result.results("summarization") if s.not_scored is None]
    assert skipped and scored
    assert all(math.isnan(s.score) and not s.failed and not s.calls for s in skipped)
    assert skipped[0].not_scored == "not scored: budget of $1.00 reached"
    summary = result.scores["summarization"]
    assert (summary.scored, summary.failed, summary.not_scored) == (len(scored), 0, len(skipped))
    frame = result.to_frame()
    assert frame["not_scored"].notna().sum() == len(skipped)
    assert et.EvalResult.from_frame(frame).scores["summarization"].not_scored == len(skipped)

    # A larger budget resumes: the items scored before come from the cache.
    before = len(requests_for(priced_loopback, "source_judgement"))
    again = et.run_evals(items, scorer, progress=False, concurrency=4, max_cost=100.0)
    assert again.scores["summarization"].scored == len(items)
    assert len(requests_for(priced_loopback, "source_judgement")) - before == len(skipped)


def test_the_spend_never_passes_the_budget_by_more_than_the_calls_in_flight(
    loopback_server: LoopbackServer, scripted_price: str
) -> None:
    # Every reply billed at its max_tokens: each item costs close to its high estimate, so
    # only the reservation of the calls in flight keeps the spend within the budget.
    _script(loopback_server, longest=True)
    items = _demo_items(16)
    scorer = _scorer(loopback_server, scripted_price)
    highs = [item_cost_high(item, {"summarization": scorer}) for item in load_items(items)]
    for budget in (2.0, 3.0):
        result = et.run_evals(items, scorer, progress=False, concurrency=8, max_cost=budget)
        summary = result.scores["summarization"]
        assert result.cost is not None and result.cost <= budget
        assert summary.not_scored > 0 and summary.failed == 0
        # It stops when the next item no longer fits even with nothing in flight, not before.
        results = list(result.results("summarization"))
        first_skipped = next(n for n, score in enumerate(results) if score.not_scored)
        assert all(score.not_scored for score in results[first_skipped:])
        assert result.cost + highs[first_skipped] > budget


def test_a_budget_that_fits_the_run_scores_every_item_at_the_default_concurrency(
    loopback_server: LoopbackServer, scripted_price: str
) -> None:
    _script(loopback_server, longest=True)
    items = _demo_items(16)
    scorer = _scorer(loopback_server, scripted_price)
    highs = [item_cost_high(item, {"summarization": scorer}) for item in load_items(items)]
    budget = 5.0  # the run costs about $4; its 16 reservations together about $12.5
    assert sum(highs) > 2 * budget

    result = et.run_evals(items, scorer, progress=False, max_cost=budget)

    # Reservations in flight filled the budget; later items waited for them to settle.
    assert result.scores["summarization"].scored == len(items)
    assert result.cost is not None and result.cost <= budget


def test_the_budget_is_named_as_given() -> None:
    assert Budget(0.005, {}).message == "not scored: budget of $0.005 reached"
    assert Budget(2, {}).message == "not scored: budget of $2.00 reached"


def test_a_budget_holds_when_a_target_writes_the_outputs(
    loopback_server: LoopbackServer, scripted_price: str
) -> None:
    # The calls are planned once the target has answered, so its output is priced too.
    _script(loopback_server, longest=True)
    rows = _demo_items(16)
    summaries = {row["input"]: row["output"] for row in rows}
    items = [{"input": row["input"]} for row in rows]
    scorer = _scorer(loopback_server, scripted_price)
    result = et.run_evals(
        items, scorer, target=summaries.get, progress=False, concurrency=8, max_cost=2.0
    )
    assert result.cost is not None and 0 < result.cost <= 2.0
    assert result.scores["summarization"].not_scored > 0


def test_a_budget_is_refused_on_a_cluster() -> None:
    with pytest.raises(ConfigurationError, match="max_cost applies to a run in this process"):
        et.run_evals(
            _demo_items(1), et.create_summarization_scorer(), client=object(), max_cost=1.0
        )


def test_a_budget_needs_a_known_price(priced_loopback: LoopbackServer) -> None:
    scorer = _scorer(priced_loopback, "openai/loopback")
    with pytest.raises(ConfigurationError, match=r"max_cost needs the judge model's price"):
        et.run_evals(_demo_items(2), scorer, progress=False, max_cost=1.0)
    assert priced_loopback.requests_total == 0


# -- provider prompt caching ------------------------------------------------------------------


def test_cached_input_tokens_are_recorded_and_priced_lower(loopback_server: LoopbackServer) -> None:
    items = _demo_items(2)
    _script(loopback_server, cached_tokens=64)
    cached_run = et.run_evals(items, _scorer(loopback_server), concurrency=1, progress=False)
    _script(loopback_server)
    plain_run = et.run_evals(items, _scorer(loopback_server), concurrency=1, progress=False)
    usage, plain = cached_run.usage, plain_run.usage
    assert usage is not None and plain is not None
    assert usage.cached_prompt_tokens == 64 * 6
    assert plain.cached_prompt_tokens == 0
    assert usage.prompt_tokens == plain.prompt_tokens
    frame = cached_run.to_frame()
    assert list(frame["cached_prompt_tokens"]) == [64 * 3, 64 * 3]
    # gpt-4o-mini bills a cached input token at half price: 64 x 6 tokens x $0.075/M less.
    assert cached_run.cost is not None and plain_run.cost is not None
    assert plain_run.cost - cached_run.cost == pytest.approx(64 * 6 * 0.075e-6, rel=1e-6)
    assert len(requests_for(loopback_server, "coverage")) == 4
    assert {step_of(body) for body in loopback_server.requests} == {
        "source_judgement",
        "coverage",
        "reason",
    }


# -- command line ---------------------------------------------------------------------------


def _data_file(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "summaries.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in _demo_items(count)))
    return path


def _run_args(path: Path, server: LoopbackServer, model: str, *extra: str) -> list[str]:
    return [
        "run",
        str(path),
        "--scorer",
        "summarization",
        "--model",
        model,
        "--api-base",
        server.url,
        "--no-cache",
        "--no-progress",
        *extra,
    ]


def test_cli_estimate_prints_and_sends_nothing(
    priced_loopback: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _data_file(tmp_path, 3)
    status = main(_run_args(path, priced_loopback, PRICED, "--estimate"))
    out = capsys.readouterr().out
    assert status == 0
    assert priced_loopback.requests_total == 0
    assert out.startswith("estimate: 9 judge calls for 3 items; 0 of 9 calls already cached")
    assert "summarization / source_judgement (openai/gpt-4o-mini): 3 calls" in out
    assert "$" in out.splitlines()[0]


def test_cli_prints_the_estimate_first_above_a_number_of_calls(
    priced_loopback: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _data_file(tmp_path, 3)
    assert main(_run_args(path, priced_loopback, PRICED)) == 0
    assert "estimate:" not in capsys.readouterr().out  # 9 calls, under the default 1,000
    assert main(_run_args(path, priced_loopback, PRICED, "--estimate-above", "8")) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("estimate: 9 judge calls for 3 items")


def test_cli_max_cost_stops_with_its_own_exit_status(
    priced_loopback: LoopbackServer,
    scripted_price: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _data_file(tmp_path, 8)
    out_file = tmp_path / "results.csv"
    status = main(
        _run_args(
            path, priced_loopback, scripted_price, "--max-cost", "1.00", "--out", str(out_file)
        )
    )
    captured = capsys.readouterr()
    assert status == BUDGET_REACHED == 3
    assert "budget of $1.00 reached" in captured.err
    assert "rerun with a larger --max-cost" in captured.err
    rows = et.read_results(out_file).scores["summarization"]
    assert rows.not_scored > 0 and rows.failed == 0
    unpriced = main(_run_args(path, priced_loopback, "openai/loopback", "--max-cost", "1"))
    assert unpriced == 2
    assert "--max-cost needs the judge model's price" in capsys.readouterr().err


def test_anthropic_style_cache_read_tokens_are_recorded(loopback_server: LoopbackServer) -> None:
    def answer(body: dict[str, Any]) -> Action:
        usage = {
            "prompt_tokens": 500,
            "completion_tokens": 20,
            "total_tokens": 520,
            "cache_read_input_tokens": 300,
        }
        return reply(REASON_REPLY, usage=usage)

    loopback_server.set_responder(answer)
    scorer = et.create_judged_scorer(
        id="explains",
        steps=[et.Step(name="reason", prompt="Explain {{output}}", schema=_REASON_SCHEMA)],
        score=lambda context: 1.0,
        model=PRICED,
        api_base=loopback_server.url,
        api_key="sk-test",
        cache=False,
    )
    result = et.run_evals([{"input": "q", "output": "a"}], scorer, progress=False)
    usage = result.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.cached_prompt_tokens) == (500, 300)
