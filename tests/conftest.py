"""Fixtures shared by the test suite."""

from __future__ import annotations

import os
import sys

# Before anything imports litellm: read its price map from the package, never download it.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Where PYTHONDONTWRITEBYTECODE is set (some machines set it for every shell), each of a run's
# some fifty processes (xdist workers, CLI subprocesses, notebook kernels, Dask workers,
# JupyterLab) compiled the package again, and pytest rewrote every test module again in each
# worker: some 20 s of the suite's CPU on 2 cores. This run's processes keep their bytecode
# in __pycache__ folders (ignored by git) instead.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_judge import FakeJudge
from loopback_server import LoopbackServer

from evaltoolkit.judge._litellm import LiteLLMJudge

# A key that must never show up in a cache file, a result, an export or a log line.
PLANTED_API_KEY = "sk-planted-SECRET-123"

# The tests that take several seconds each (a notebook, a Dask cluster, JupyterLab, a CLI
# subprocess importing litellm), roughly longest first. They start first, so that the two
# xdist workers end together rather than one of them running a notebook alone at the end.
# A node id prefix; the rest of the suite keeps its order behind them.
LONGEST_FIRST = (
    # One xdist group each (one worker runs all of it): the notebooks, several kernels at a
    # time (see test_notebooks.py), and the tests on test_dask's cluster (see below).
    "tests/test_notebooks.py::test_notebook_runs_top_to_bottom",
    "tests/test_dask.py",
    "tests/test_browser.py::test_widgets_render_respond_and_stay_safe_in_jupyterlab",
    "tests/test_cli_interrupt.py",
    "tests/test_tuner_on_summeval.py",
    "tests/test_judge_failures.py::test_a_key_from_the_environment_echoed_in_a_401",
    "tests/test_report.py::test_ten_thousand_items",
    "tests/test_offline_algorithms.py::test_a_text_over_the_size_limit",
    "tests/test_run_with_faults.py",
    "tests/test_cli_report.py::test_meta_eval_with_several_models",
    "tests/test_report_browser.py",
)


def _rank(nodeid: str) -> int:
    return next(
        (rank for rank, prefix in enumerate(LONGEST_FIRST) if nodeid.startswith(prefix)),
        len(LONGEST_FIRST),
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first; the tests on test_dask's cluster share one xdist worker.

    The cluster is a module-scoped fixture: under ``--dist loadgroup`` its tests go to one
    worker as a group, in their order (the worker-killing tests last), and the suite starts
    one cluster instead of one per worker.
    """
    items.sort(key=lambda item: _rank(item.nodeid))  # stable: each module keeps its order
    for item in items:
        if item.nodeid.startswith("tests/test_dask.py") and "cluster" in item.fixturenames:
            item.add_marker(pytest.mark.xdist_group("dask-cluster"))


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
