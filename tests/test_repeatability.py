"""A judge's repeatability: every repeat reaches the model (and the cache) as its own request."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import krippendorff
import pytest
from conftest import PLANTED_API_KEY
from loopback_server import Action, LoopbackServer, reply

import evaltoolkit as et
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.judge._cache_key import key_parameters

RATING_SCHEMA = {
    "type": "object",
    "properties": {"rating": {"type": "number"}},
    "required": ["rating"],
    "additionalProperties": False,
}
# The rating the model gives each answer in repeats 0..4 (the request's seed is 0 + repeat).
SCRIPT = {
    "wobbly": [0.2, 0.4, 0.6, 0.8, 1.0],
    "steady": [0.5, 0.5, 0.5, 0.5, 0.5],
    "split": [0.0, 0.0, 0.0, 1.0, 1.0],
}
ITEMS = [{"id": name, "input": "q", "output": name} for name in SCRIPT]


def rating_scorer(**options: Any) -> et.JudgedScorer:
    step = et.Step(
        name="rate",
        prompt='Rate the ANSWER. ANSWER: {{output}} Reply with JSON: {"rating": 0.5}',
        schema=RATING_SCHEMA,
    )
    return et.create_judged_scorer(
        id="rating",
        steps=[step],
        score=lambda context: context.replies["rate"]["rating"],
        **options,
    )


def scripted(body: dict[str, Any]) -> Action:
    answer = next(name for name in SCRIPT if name in body["messages"][-1]["content"])
    return reply({"rating": SCRIPT[answer][body["seed"]]})


def test_known_spreads_come_out_exactly_and_a_rerun_makes_no_request(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    loopback_server.set_responder(scripted)
    scorer = rating_scorer(
        model="openai/loopback",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        seed=0,
        cache=tmp_path / "cache",
    )

    measured = et.repeatability(scorer, ITEMS, repeats=5, n_bootstrap=50, progress=False)

    assert loopback_server.requests_total == 15
    assert sorted(body["seed"] for body in loopback_server.requests) == sorted(list(range(5)) * 3)
    rows = measured.items.set_index("item_id")
    for name, ratings in SCRIPT.items():
        assert rows.loc[name, "mean"] == pytest.approx(statistics.fmean(ratings))
        assert rows.loc[name, "std"] == pytest.approx(statistics.pstdev(ratings))
        assert rows.loc[name, "range"] == pytest.approx(max(ratings) - min(ratings))
    assert rows["disagreement"].to_dict() == pytest.approx(
        {"wobbly": 0.8, "steady": 0.0, "split": 0.4}
    )
    summary = measured.summary.iloc[0]
    expected_alpha = krippendorff.alpha(
        reliability_data=[[SCRIPT[name][r] for name in SCRIPT] for r in range(5)],
        level_of_measurement="interval",
    )
    assert summary["alpha"] == pytest.approx(expected_alpha)
    assert summary["median_std"] == pytest.approx(statistics.pstdev(SCRIPT["wobbly"]))
    assert not measured.deterministic and measured.repeats == 5

    again = et.repeatability(scorer, ITEMS, repeats=5, n_bootstrap=0, progress=False)

    assert loopback_server.requests_total == 15  # every repeat came from the cache
    assert again.items["std"].tolist() == pytest.approx(measured.items["std"].tolist())


def test_a_threshold_turns_scores_into_verdicts(
    loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    loopback_server.set_responder(scripted)
    scorer = rating_scorer(
        model="openai/loopback",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        seed=0,
        cache=False,
    )
    measured = et.repeatability(
        scorer, ITEMS, repeats=5, threshold=0.5, n_bootstrap=0, progress=False
    )
    # wobbly: 0.2 0.4 | 0.6 0.8 1.0 -> 2 of 5 differ from the majority "pass".
    assert measured.items.set_index("item_id")["disagreement"].to_dict() == pytest.approx(
        {"wobbly": 0.4, "steady": 0.0, "split": 0.4}
    )


def test_the_offline_judge_is_scored_once_and_says_so() -> None:
    measured = et.repeatability(rating_scorer_offline(), ITEMS, repeats=5, progress=False)
    assert measured.deterministic and measured.repeats == 1 and len(measured.results) == 1
    assert measured.summary["alpha"].tolist() == [1.0]
    assert "deterministic" in measured.note
    assert (measured.items["std"] == 0.0).all()


def rating_scorer_offline() -> et.JudgedScorer:
    step = et.Step(
        name="rate",
        prompt="Rate {{output}}",
        schema=RATING_SCHEMA,
        offline=lambda output: {"rating": len(output) / 10},
    )
    return et.create_judged_scorer(
        id="rating", steps=[step], score=lambda context: context.replies["rate"]["rating"]
    )


def test_repeat_zero_keeps_the_old_key_and_other_repeats_differ() -> None:
    plain = key_parameters(temperature=0.7, seed=None, max_tokens=100, extra={})
    assert key_parameters(temperature=0.7, seed=None, max_tokens=100, extra={}, repeat=0) == plain
    keys = {
        key_parameters(temperature=0.7, seed=None, max_tokens=100, extra={}, repeat=r)
        for r in range(5)
    }
    assert len(keys) == 5
    assert '"repeat":3' in key_parameters(
        temperature=0.7, seed=None, max_tokens=100, extra={}, repeat=3
    )


def test_fewer_than_two_repeats_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="at least 2"):
        et.repeatability(rating_scorer_offline(), ITEMS, repeats=1, progress=False)
