"""questions="per_source": coverage questions drawn once per source, shared by its summaries."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from judge_script import prompt_text, requests_for, script_steps
from loopback_server import Action, LoopbackServer, reply

import evaltoolkit as et
from evaltoolkit.errors import ConfigurationError

SOURCE = (
    "The council of Port Alden voted on Tuesday to replace the Harbour Bridge. The new bridge "
    "will cost 240 million dollars and open in 2029. Ferries will run while it is built."
)
SUMMARIES = [
    f"System {n}: the council voted to replace the bridge by {2020 + n}." for n in range(16)
]


def _script_sampling_judge(server: LoopbackServer) -> None:
    """A judge whose questions differ on every request, as a model sampling them would."""
    drawn = itertools.count()

    def questions(_: dict[str, Any]) -> Action:
        turn = next(drawn)
        return reply({"questions": [f"Does it say the vote was on Tuesday ({turn})?"]})

    def source_judgement(body: dict[str, Any]) -> Action:
        turn = next(drawn)
        return reply(
            {
                "claims": [{"claim": "c", "supported": True, "reason": "r"}],
                "questions": [f"Does it say the vote was on Tuesday ({turn})?"],
            }
        )

    script_steps(
        server,
        {
            "source_questions": questions,
            "claims": {"claims": [{"claim": "c", "supported": True, "reason": "r"}]},
            "source_judgement": source_judgement,
            "coverage": {"verdicts": []},
        },
    )


def _items(summaries: list[str]) -> list[dict[str, Any]]:
    return [{"input": SOURCE, "output": summary} for summary in summaries]


def _scorer(server: LoopbackServer, cache: Path, questions: str) -> Any:
    return et.create_summarization_scorer(
        "openai/loopback",
        api_base=server.url,
        api_key="sk-test",
        cache=cache,
        reason="template",
        questions=questions,
    )


def _asked(result: et.EvalResult) -> list[list[str]]:
    return [s.preprocess_step_result["questions"] for s in result.results("summarization")]


def _run(scorer: Any, summaries: list[str]) -> list[et.EvalResult]:
    """The first item alone, then the rest at concurrency 16 (calls identical to one in flight
    are sent once only where single-flight is in place, so the first item warms the cache)."""
    items = _items(summaries)
    return [
        et.run_evals(items[:1], scorer, progress=False, concurrency=1),
        et.run_evals(items[1:], scorer, progress=False, concurrency=16),
    ]


def _asked_in(results: list[et.EvalResult]) -> list[list[str]]:
    return [questions for result in results for questions in _asked(result)]


def test_sixteen_summaries_of_one_source_draw_questions_once(
    loopback_server: LoopbackServer, judge_cache_dir: Path
) -> None:
    _script_sampling_judge(loopback_server)
    scorer = _scorer(loopback_server, judge_cache_dir, "per_source")
    estimate = {step.step: step for step in et.estimate_cost(_items(SUMMARIES), scorer).steps}
    assert (estimate["source_questions"].calls, estimate["source_questions"].repeated_calls) == (
        16,
        15,
    )
    assert estimate["claims"].repeated_calls == 0
    results = _run(scorer, SUMMARIES)
    assert not any(item.failed for result in results for item in result)
    asked = requests_for(loopback_server, "source_questions")
    assert len(asked) == 1
    assert "System" not in prompt_text(asked[0])  # the question call never sees a summary
    assert len(requests_for(loopback_server, "claims")) == 16
    assert all(
        "questions" not in prompt_text(body) for body in requests_for(loopback_server, "claims")
    )
    assert len({tuple(questions) for questions in _asked_in(results)}) == 1


def test_the_reference_draws_questions_per_summary(
    loopback_server: LoopbackServer, judge_cache_dir: Path
) -> None:
    _script_sampling_judge(loopback_server)
    scorer = _scorer(loopback_server, judge_cache_dir, "per_summary")
    results = _run(scorer, SUMMARIES)
    assert len(requests_for(loopback_server, "source_judgement")) == 16
    assert len({tuple(questions) for questions in _asked_in(results)}) == 16


@pytest.mark.parametrize(("questions", "shared"), [("per_source", True), ("per_summary", False)])
def test_two_runs_over_the_same_documents_ask_the_same_questions(
    loopback_server: LoopbackServer, judge_cache_dir: Path, questions: str, shared: bool
) -> None:
    _script_sampling_judge(loopback_server)
    scorer = _scorer(loopback_server, judge_cache_dir, questions)
    first = _asked_in(_run(scorer, SUMMARIES[:8]))
    second = _asked_in(_run(scorer, SUMMARIES[8:]))
    assert (first == second) is shared


def test_the_offline_judge_splits_the_same_way_and_scores_the_same() -> None:
    demo = Path(et.__file__).parent / "_demo_data" / "demo_summaries.jsonl"
    reference = et.run_evals(
        demo, et.create_summarization_scorer(reason="template"), progress=False
    )
    per_source = et.run_evals(
        demo,
        et.create_summarization_scorer(reason="template", questions="per_source"),
        progress=False,
    )
    assert [c.step for c in per_source.results("summarization")[0].calls] == [
        "source_questions",
        "claims",
        "coverage",
    ]
    assert _asked(per_source) == _asked(reference)
    assert [s.score for s in per_source.results("summarization")] == [
        s.score for s in reference.results("summarization")
    ]


def test_an_unknown_questions_mode_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="questions must be 'per_summary' or 'per_source'"):
        et.create_summarization_scorer(questions="per_document")  # type: ignore[arg-type]
