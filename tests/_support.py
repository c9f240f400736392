"""Shared helpers for tests that need something outside the repository."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"

# Debian's Chromium (apt-get install chromium), and the flags it runs headless with here.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Under .ci/run this is set, and a missing prerequisite fails the test instead of skipping it.
REQUIRE_ALL = os.environ.get("EVALTOOLKIT_REQUIRE_ALL") == "1"


def skip_or_fail(reason: str) -> None:
    """Skip with ``reason``, or fail when the CI run requires every test to run."""
    if REQUIRE_ALL:
        pytest.fail(f"required under EVALTOOLKIT_REQUIRE_ALL=1 but unavailable: {reason}")
    pytest.skip(reason)


def benchmarks_dir() -> Path:
    """The human-labelled benchmark files (../shared/benchmarks), or skip/fail without them."""
    from evaltoolkit.meta import find_benchmarks

    found = find_benchmarks()
    if found is not None:
        return found
    skip_or_fail(
        "the human-labelled benchmarks are not here; set EVALTOOLKIT_BENCHMARKS to the folder "
        "holding summeval_dev.jsonl"
    )
    raise AssertionError("unreachable")


# Ctrl-C as a user's terminal gives it: a child started from a run in the background
# (``pytest &``, ``nohup``) inherits an ignored SIGINT, and Python then never raises
# KeyboardInterrupt in it, so the tests that press Ctrl-C in a child would fail for that alone.
CTRL_C_AS_IN_A_TERMINAL = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)"


def evaltoolkit_command(*arguments: str) -> list[str]:
    """``python -m evaltoolkit ARGUMENTS`` with Ctrl-C as in a terminal."""
    launcher = (
        f"{CTRL_C_AS_IN_A_TERMINAL}; import runpy; "
        "runpy.run_module('evaltoolkit', run_name='__main__', alter_sys=True)"
    )
    return [sys.executable, "-c", launcher, *arguments]
