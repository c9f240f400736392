"""A key that a server echoes in a successful reply, or a target quotes in its exception, is
stored nowhere: not in results, exports, the report, the judge cache, nor the logs.

The keys here are planted: the judge's ``api_key`` (PLANTED_API_KEY) and two environment
variables whose names look like secrets, with values not shaped like an OpenAI key, so that
only masking by value can catch them.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from conftest import PLANTED_API_KEY
from judge_script import script_steps
from loopback_server import LoopbackServer, invalid_json

import evaltoolkit as et
from evaltoolkit._internal.secrets import is_secret_variable, mask_secrets
from evaltoolkit.judge._litellm_runtime import LITELLM_LOGGER_NAMES
from evaltoolkit.report import write_report

SERVICE_TOKEN = "tok_Planted_Service_0042"
PROVIDER_KEY = "ant_Planted_Provider_Key_77"
DB_PASSWORD = "Planted-db-Pa55word"
PLANTED = (PLANTED_API_KEY, SERVICE_TOKEN, PROVIDER_KEY, DB_PASSWORD)


def _echoing_judge(server: LoopbackServer) -> None:
    """Replies (HTTP 200) that quote every planted key, as a careless proxy or model might."""
    quoted = " ".join(PLANTED)
    script_steps(
        server,
        {
            "extract": lambda body: (
                invalid_json(f"not JSON, but it quotes {quoted}")
                if "broken" in str(body["messages"])
                else _reply(
                    {"output_units": [f"red {PROVIDER_KEY}"], "ground_truth_units": ["red"]}
                )
            ),
            "analyze": {
                "matches": [
                    {
                        "ground_truth_unit": "red",
                        "output_unit": "red",
                        "match_type": "exact",
                        "explanation": f"same as {SERVICE_TOKEN}",
                    }
                ],
                "contradictions": [],
                "extra_info": [f"the key {PLANTED_API_KEY}"],
            },
            "reason": {"reason": f"Scripted reason quoting {quoted}."},
        },
    )


def _reply(value: dict[str, Any]) -> Any:
    from loopback_server import reply

    return reply(value)


def _target(question: str) -> str:
    if question == "explode":
        raise RuntimeError(
            f"service refused token {SERVICE_TOKEN} (ANTHROPIC_API_KEY={PROVIDER_KEY}, "
            f"db password {DB_PASSWORD})"
        )
    if question == "broken":
        return "broken red"
    return "red"


def _assert_nothing_planted(text: str | bytes, where: str) -> None:
    for secret in PLANTED:
        needle: str | bytes = secret.encode() if isinstance(text, bytes) else secret
        assert needle not in text, f"{secret!r} is in {where}"


def test_echoed_keys_are_masked_in_results_exports_cache_report_and_logs(
    loopback_server: LoopbackServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", SERVICE_TOKEN)
    monkeypatch.setenv("ANTHROPIC_API_KEY", PROVIDER_KEY)
    monkeypatch.setenv("APP_DB_PASSWORD_PROD", DB_PASSWORD)
    for name in ("evaltoolkit", *LITELLM_LOGGER_NAMES):
        caplog.set_level(logging.DEBUG, logger=name)
    _echoing_judge(loopback_server)
    cache = tmp_path / "cache"
    scorer = et.create_answer_similarity_scorer(
        "openai/loopback",
        api_base=loopback_server.url,
        api_key=PLANTED_API_KEY,
        cache=cache,
        max_repairs=0,
        backoff_base=0.01,
        backoff_max=0.05,
    )
    data = [
        {"id": "fine", "input": "colour?", "ground_truth": "red"},
        {"id": "target-fails", "input": "explode", "ground_truth": "red"},
        {"id": "reply-invalid", "input": "broken", "ground_truth": "red"},
    ]

    result = et.run_evals(data, scorer, target=_target, progress=False)

    scored = result["fine"].scorer_results["answer-similarity"]
    assert not scored.failed and "***" in (scored.reason or "")
    target_error = result["target-fails"].scorer_results["answer-similarity"].error
    assert target_error is not None and "the target raised RuntimeError" in target_error.message
    assert "***" in target_error.message
    reply_error = result["reply-invalid"].scorer_results["answer-similarity"].error
    assert reply_error is not None and reply_error.raw_reply is not None
    assert "***" in reply_error.raw_reply
    # Every stored text: the frame (reasons, raw replies, step results, errors) and each
    # export's bytes.
    _assert_nothing_planted(result.to_frame().to_csv(), "to_frame()")
    _assert_nothing_planted(result.to_wide().to_csv(), "to_wide()")
    for path in (
        result.to_csv(tmp_path / "r.csv"),
        result.to_jsonl(tmp_path / "r.jsonl"),
        result.to_parquet(tmp_path / "r.parquet"),
        result.to_parquet(tmp_path / "w.parquet", wide=True),
        write_report(result, tmp_path / "report.html"),
    ):
        _assert_nothing_planted(path.read_bytes(), path.name)
    cache_files = [path for path in cache.rglob("*") if path.is_file()]
    assert cache_files
    for path in cache_files:
        _assert_nothing_planted(path.read_bytes(), path.name)
    _assert_nothing_planted(caplog.text, "the logs")

    # The cached replies come back masked too, and the run scores the same.
    again = et.run_evals(data, scorer, target=_target, progress=False)
    assert again["fine"].scorer_results["answer-similarity"].score == scored.score
    _assert_nothing_planted(again.to_frame().to_csv(), "the rerun from the cache")


def test_a_target_exception_quoting_environment_secrets_is_masked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", SERVICE_TOKEN)
    monkeypatch.setenv("ANTHROPIC_API_KEY", PROVIDER_KEY)
    monkeypatch.setenv("APP_DB_PASSWORD_PROD", DB_PASSWORD)

    result = et.run_evals(
        [{"id": 1, "input": "explode", "ground_truth": "red"}],
        et.create_textual_difference_scorer(),
        target=_target,
        progress=False,
    )

    error = result[0].scorer_results["textual-difference"].error
    assert error is not None
    assert error.message.count("***") == 3
    for path in (result.to_csv(tmp_path / "r.csv"), result.to_jsonl(tmp_path / "r.jsonl")):
        _assert_nothing_planted(path.read_text(encoding="utf-8"), path.name)


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("MY_SERVICE_TOKEN", True),
        ("GITHUB_SECRET", True),
        ("APP_DB_PASSWORD_PROD", True),
        ("aws_secret_access_key", True),
        ("HOME", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("EVALTOOLKIT_CACHE_DIR", False),
    ],
)
def test_which_environment_variables_are_secrets(name: str, secret: bool) -> None:
    assert is_secret_variable(name) is secret


def test_masking_follows_nested_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", SERVICE_TOKEN)

    masked = mask_secrets({"a": [SERVICE_TOKEN, ("x", f"<{SERVICE_TOKEN}>")], "n": 3})

    assert masked == {"a": ["***", ("x", "<***>")], "n": 3}
