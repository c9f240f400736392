"""A 200-item run through litellm against a faulty server: nothing lost, nothing duplicated.

About 20% of distinct requests fail on their first attempt (429 with Retry-After, 500, a
dropped connection, a timeout, invalid JSON, JSON missing fields); the retry or the repair
succeeds. A few items ask questions the server always answers with a 500: their calls fail
for good and the items carry the error and the step. A rerun is answered by the cache alone.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import PLANTED_API_KEY
from judge_script import prompt_text, step_of
from loopback_server import (
    Action,
    LoopbackServer,
    drop_connection,
    hang,
    invalid_json,
    missing_fields,
    rate_limited,
    reply,
    server_error,
)

from evaltoolkit import EvalResult, create_answer_similarity_scorer, run_evals

ITEMS = 100
DOOMED = {17, 60, 99}  # items whose every request fails
CONCURRENCY = 16


def _fingerprint(body: dict[str, Any]) -> str:
    return hashlib.sha256(prompt_text(body).encode()).hexdigest()


def _valid_reply(body: dict[str, Any]) -> dict[str, Any]:
    step = step_of(body)
    if step == "extract":
        return {"output_units": ["the answer"], "ground_truth_units": ["the answer"]}
    if step == "analyze":
        return {
            "matches": [
                {
                    "ground_truth_unit": "the answer",
                    "output_unit": "the answer",
                    "match_type": "exact",
                    "explanation": "scripted",
                }
            ],
            "contradictions": [],
            "extra_info": [],
        }
    return {"reason": f"scripted reason for {_fingerprint(body)[:8]}"}


class FaultyJudgeServer:
    """Fails the first attempt of about one in five distinct requests, the rest never."""

    FAULTS = (
        lambda: rate_limited(0.02),
        lambda: server_error(500),
        drop_connection,
        lambda: hang(3.0),
        lambda: invalid_json('{"output_units": [oops'),
        lambda: missing_fields({"output_units": []}, "output_units"),
    )

    def __init__(self) -> None:
        self.first_attempt_faults = 0
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Action:
        text = prompt_text(body)
        if any(f"question {index}?" in text for index in DOOMED):
            return server_error(503)
        key = _fingerprint(body)
        with self._lock:
            first = key not in self._seen
            self._seen.add(key)
        bucket = int(key[:8], 16) % 100
        if first and bucket < 20 and "Your previous reply" not in text:
            with self._lock:
                self.first_attempt_faults += 1
            fault = self.FAULTS[bucket % len(self.FAULTS)]
            if fault is self.FAULTS[5]:
                # JSON missing a field of the step being asked.
                return missing_fields(_valid_reply(body), next(iter(_valid_reply(body))))
            return fault()
        return reply(_valid_reply(body))


def _data() -> list[dict[str, Any]]:
    return [
        {
            "id": f"item-{index}",
            "input": f"question {index}?",
            "output": f"answer {index}",
            "ground_truth": "the answer",
        }
        for index in range(ITEMS)
    ]


def _run(server: LoopbackServer, cache: Path) -> EvalResult:
    scorer = create_answer_similarity_scorer(
        "openai/loopback",
        api_base=server.url,
        api_key=PLANTED_API_KEY,
        cache=cache,
        timeout=1.0,
        max_retries=3,
        max_repairs=2,
        backoff_base=0.01,
        backoff_max=0.05,
    )
    return run_evals(_data(), scorer, concurrency=CONCURRENCY, progress=False)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_faulty_run_loses_nothing_and_reruns_from_the_cache(
    loopback_server: LoopbackServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    faults = FaultyJudgeServer()
    loopback_server.set_responder(faults)
    cache = tmp_path / "cache"

    first = _run(loopback_server, cache)

    assert faults.first_attempt_faults >= 30  # about 20% of some 300 distinct requests
    assert [item.item_id for item in first] == [f"item-{index}" for index in range(ITEMS)]
    frame = first.to_frame()
    assert len(frame) == ITEMS
    assert frame["item_id"].is_unique
    failed = frame[frame["error"].notna()]
    assert set(failed["item_id"]) == {f"item-{index}" for index in DOOMED}
    assert set(failed["error_step"]) == {"extract"}
    assert failed["score"].isna().all()
    for index in DOOMED:
        error = first[index].scorer_results["answer-similarity"].error
        assert error is not None
        assert error.kind == "JudgeCallError"
        assert error.attempts == 4
    scored = frame[frame["error"].isna()]
    assert len(scored) == ITEMS - len(DOOMED)
    assert (scored["score"] == 1.0).all()
    assert loopback_server.max_in_flight <= CONCURRENCY
    summary = first.scores["answer-similarity"]
    assert (summary.scored, summary.failed) == (ITEMS - len(DOOMED), len(DOOMED))

    requests_after_first_run = loopback_server.requests_total
    loopback_server.set_responder(lambda body: server_error(500))
    second = _run(loopback_server, cache)
    new_requests = loopback_server.requests_total - requests_after_first_run
    # Only the doomed items ask again: failures are never cached.
    assert new_requests == len(DOOMED) * 4
    rerun = second.to_frame()
    columns = ["item_id", "score", "reason", "base_similarity", "exact_matches"]
    pd.testing.assert_frame_equal(
        frame[frame["error"].isna()][columns].reset_index(drop=True),
        rerun[rerun["error"].isna()][columns].reset_index(drop=True),
    )
    assert (rerun[rerun["error"].isna()]["cached_calls"] == 3).all()
    assert second.cost == 0 or second.cost is None

    exports = [
        first.to_parquet(tmp_path / "r.parquet"),
        first.to_csv(tmp_path / "r.csv"),
        first.to_jsonl(tmp_path / "r.jsonl", wide=True),
    ]
    planted = PLANTED_API_KEY.encode()
    for path in [*exports, *cache.rglob("*")]:
        if path.is_file():
            assert planted not in path.read_bytes(), path
    assert PLANTED_API_KEY not in caplog.text
    for item in first:
        assert PLANTED_API_KEY not in repr(item.scorer_results)
        assert PLANTED_API_KEY not in json.dumps(
            item.scorer_results["answer-similarity"].to_record(), default=str
        )
