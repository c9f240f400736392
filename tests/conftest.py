"""Fixtures shared by the test suite."""

from __future__ import annotations

import os

# Before anything imports litellm: read its price map from the package, never download it.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_judge import FakeJudge
from loopback_server import LoopbackServer

from evaltoolkit.judge._litellm import LiteLLMJudge

# A key that must never show up in a cache file, a result, an export or a log line.
PLANTED_API_KEY = "sk-planted-SECRET-123"


@pytest.fixture(autouse=True, scope="session")
def _default_cache_dir_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the default judge cache of the whole suite out of the user's ~/.cache."""
    previous = os.environ.get("EVALTOOLKIT_CACHE_DIR")
    os.environ["EVALTOOLKIT_CACHE_DIR"] = str(tmp_path_factory.mktemp("default-judge-cache"))
    yield
    if previous is None:
        os.environ.pop("EVALTOOLKIT_CACHE_DIR", None)
    else:
        os.environ["EVALTOOLKIT_CACHE_DIR"] = previous


@pytest.fixture
def loopback_server() -> Iterator[LoopbackServer]:
    """An OpenAI-compatible server on 127.0.0.1 for one test (see tests/loopback_server.py)."""
    with LoopbackServer() as server:
        yield server


@pytest.fixture(scope="module")
def module_loopback_server() -> Iterator[LoopbackServer]:
    """One loopback server for a whole module; reset its script and counters between tests."""
    with LoopbackServer() as server:
        yield server


@pytest.fixture
def fake_judge() -> FakeJudge:
    """An in-process judge answering from a script (see tests/fake_judge.py)."""
    return FakeJudge()


@pytest.fixture
def judge_cache_dir(tmp_path: Path) -> Path:
    """A fresh directory for a judge cache."""
    return tmp_path / "judge-cache"


@pytest.fixture
def make_judge(loopback_server: LoopbackServer) -> Callable[..., LiteLLMJudge]:
    """Build a LiteLLMJudge aimed at ``loopback_server``, with fast backoff and no cache.

    Keyword arguments override the defaults (``cache=judge_cache_dir``, ``concurrency=4``, ...).
    """

    def build(**options: Any) -> LiteLLMJudge:
        settings: dict[str, Any] = {
            "api_base": loopback_server.url,
            "api_key": PLANTED_API_KEY,
            "cache": False,
            "timeout": 5.0,
            "backoff_base": 0.01,
            "backoff_max": 0.05,
        }
        settings.update(options)
        model = settings.pop("model", "openai/loopback")
        return LiteLLMJudge(model, **settings)

    return build
