"""Ctrl-C through run_sync: prompt in a script and in a running event loop (a Jupyter cell).

Each case runs in a child process that interrupts itself, so that a stray KeyboardInterrupt
can never hit the test session.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _support import CTRL_C_AS_IN_A_TERMINAL

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")

REPO = Path(__file__).resolve().parent.parent
# Generous bounds against hangs; the measured figures are about 0.01 s and 1.0 s.
BOUND_S = 5.0

PRELUDE = (
    CTRL_C_AS_IN_A_TERMINAL
    + """
import asyncio, os, signal, sys, threading, time
from evaltoolkit._internal.sync import run_sync

def interrupt_after(seconds):
    def send():
        time.sleep(seconds)
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=send, daemon=True).start()
    return time.monotonic() + seconds

def report(sent, error):
    print(f"stopped {time.monotonic() - sent:.3f}")
    print("notes", getattr(error, "__notes__", []))
"""
)


def _child(body: str) -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [environment.get("PYTHONPATH")])]
    )
    completed = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(body)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    lines = dict(line.split(" ", 1) for line in completed.stdout.splitlines() if " " in line)
    return lines


def test_ctrl_c_cancels_a_run_on_a_worker_thread_inside_a_running_loop() -> None:
    lines = _child(
        """
        state = {}
        async def slow():
            try:
                await asyncio.sleep(60)
            finally:
                state["cancelled_at"] = time.monotonic()

        async def cell():  # a notebook cell: sync code inside a running loop
            sent = interrupt_after(0.5)
            try:
                run_sync(slow())
            except KeyboardInterrupt as error:
                report(sent, error)
                print("cleanup_before_return", "cancelled_at" in state)

        asyncio.new_event_loop().run_until_complete(cell())
        """
    )
    assert float(lines["stopped"]) < BOUND_S
    assert lines["cleanup_before_return"] == "True"  # the run was cancelled, not left running


def test_ctrl_c_stops_a_step_busy_in_synchronous_code() -> None:
    lines = _child(
        """
        async def busy():
            started = time.monotonic()
            while time.monotonic() - started < 60:  # never gives the loop back
                pass

        sent = interrupt_after(0.5)
        try:
            run_sync(busy())
        except KeyboardInterrupt as error:
            report(sent, error)
        """
    )
    assert float(lines["stopped"]) < BOUND_S


def test_an_interrupted_run_says_how_far_it_got() -> None:
    lines = _child(
        """
        import evaltoolkit as et

        async def target(question):
            await asyncio.sleep(0.1)
            return question

        items = [{"input": f"q{n}", "ground_truth": f"q{n}"} for n in range(100)]
        sent = interrupt_after(0.8)
        try:
            et.run_evals(items, et.create_textual_difference_scorer(), target=target,
                         concurrency=2, progress=False)
        except KeyboardInterrupt as error:
            report(sent, error)
        """
    )
    assert float(lines["stopped"]) < BOUND_S
    assert "of 100 items; rerun the same call to resume from the judge cache" in lines["notes"]
