"""The built-in judge (model name ``offline``): each step answered by its own offline function.

It needs no API key and no network and knows no scorer: a request carries the step's
``offline`` function and the typed inputs its prompt was rendered from, and this judge calls
the one with the other, then validates the reply against the step's schema exactly as it
would validate a model's. It reads no prompt, so prompt templates do not change its answers.

The functions run in a worker thread, so a long step never blocks the event loop (progress
bars keep moving, a notebook stays responsive, and Ctrl-C is seen at once). The cycle
collector pauses while a step runs: offline answers allocate many short-lived objects and no
cycles, and on long texts its passes took about a quarter of the time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from ..errors import ConfigurationError, JudgeReplyError
from ..records import ModelCall
from ._config import OFFLINE_MODEL
from ._parse import ReplyProblem, validate_reply
from ._types import JudgeReply, JudgeRequest, render_messages

__all__ = ["OFFLINE_MODEL", "OfflineJudge"]

_WORKER_NAME: Final = "evaltoolkit-offline"
_executor: concurrent.futures.ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _offline_executor() -> concurrent.futures.ThreadPoolExecutor:
    """One worker thread for every offline step of the process (the steps are CPU-bound)."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=_WORKER_NAME)
        return _executor


@contextlib.contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    if not gc.isenabled():  # someone turned it off on purpose: leave it so
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _answer_offline(answer: Callable[..., Any], inputs: Mapping[str, Any]) -> Any:
    with _cycle_collector_paused():
        return answer(**inputs)


def _as_reply(value: object, step: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    raise JudgeReplyError(
        f"judge step {step!r}: its offline function returned {type(value).__name__}, not a "
        "mapping of the reply's fields",
        step=step,
        raw_reply=repr(value)[:500],
        attempts=1,
    )


class OfflineJudge:
    """The built-in judge: deterministic verdicts from the texts, no model, no network.

    Example:
        >>> judge = OfflineJudge()
        >>> judge.model, judge.offline
        ('offline', True)
    """

    @property
    def model(self) -> str:
        """Always ``"offline"``."""
        return OFFLINE_MODEL

    @property
    def offline(self) -> bool:
        """Always True: this judge answers with each step's offline function."""
        return True

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one step with its offline function and check the reply against its schema.

        Raises:
            ConfigurationError: The step has no offline function.
            JudgeReplyError: The offline function's reply does not match the step's schema.
        """
        answer = request.offline
        if answer is None:
            raise ConfigurationError(
                f"judge step {request.step!r} has no offline function, so the offline judge "
                "cannot answer it; give the step offline=... or use a model judge"
            )
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        value = await loop.run_in_executor(_offline_executor(), lambda: answer(**request.inputs))
        reply = _as_reply(value, request.step)
        raw_reply = json.dumps(reply, ensure_ascii=False, default=str)
        try:
            validate_reply(reply, request.schema)
        except ReplyProblem as problem:
            raise JudgeReplyError(
                f"judge step {request.step!r}: the offline reply does not match the step's "
                f"schema: {problem}",
                step=request.step,
                raw_reply=raw_reply,
                attempts=1,
            ) from problem
        call = ModelCall(
            step=request.step,
            stage=request.stage,
            model=OFFLINE_MODEL,
            prompt=render_messages(request.messages),
            raw_reply=raw_reply,
            usage=None,
            cost=0.0,
            latency_s=time.perf_counter() - started,
        )
        return JudgeReply(value=reply, call=call)

    def __repr__(self) -> str:
        return "OfflineJudge()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OfflineJudge)

    def __hash__(self) -> int:
        return hash(OfflineJudge)
