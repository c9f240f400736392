"""An in-process judge that answers each step from a script: no litellm, no HTTP.

Formula tests use it, so that they test the scorers and not the transport; the judge path
itself (litellm's real HTTP path, retries, repairs, the cache) is tested against the
loopback server. It takes the same scripted actions as the loopback server (``reply(...)``,
``invalid_json(...)``) and records each request as a body with its ``step`` and
``messages``, so tests read it as they read the server.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from loopback_server import Action, reply

from evaltoolkit.errors import JudgeCallError, JudgeReplyError
from evaltoolkit.judge import JudgeReply, JudgeRequest
from evaltoolkit.judge._internal import render_messages
from evaltoolkit.judge._parse import ReplyProblem, parse_and_validate
from evaltoolkit.records import ModelCall

Responder = Callable[[dict[str, Any]], Action]


class FakeJudge:
    """A judge answering from a script; a reply that does not validate fails at once."""

    model = "fake/judge"
    offline = False

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.responder: Responder = lambda body: reply({})
        self._queue: collections.deque[Action] = collections.deque()

    @property
    def requests_total(self) -> int:
        """How many steps were asked."""
        return len(self.requests)

    def set_responder(self, responder: Responder) -> None:
        """Answer requests with ``responder(body)`` once the queue is empty."""
        self.responder = responder

    def enqueue(self, *actions: Action) -> None:
        """Script the next requests' actions, in order, ahead of the responder."""
        self._queue.extend(actions)

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        body = {"step": request.step, "messages": [dict(m) for m in request.messages]}
        self.requests.append(body)
        action = self._queue.popleft() if self._queue else self.responder(body)
        if action.kind != "reply":
            raise JudgeCallError(f"scripted {action.kind} fault", step=request.step, attempts=1)
        raw = action.content if action.tool_arguments is None else action.tool_arguments
        try:
            value = parse_and_validate(raw, request.schema)
        except ReplyProblem as problem:
            raise JudgeReplyError(
                str(problem), step=request.step, raw_reply=raw, attempts=1
            ) from problem
        call = ModelCall(
            step=request.step,
            stage=request.stage,
            model=self.model,
            prompt=render_messages(request.messages),
            raw_reply=raw,
        )
        return JudgeReply(value, call)


FAIL_MARK = "FAIL-AT-COVERAGE"


class CoverageFailingJudge:
    """The offline judge, except that coverage never validates for summaries holding
    ``FAIL_MARK``: the step fails with ``raw_reply`` kept, after three attempts."""

    def __init__(self, raw_reply: str = '{"verdicts": [oops') -> None:
        from evaltoolkit.judge._internal import OfflineJudge

        self._offline = OfflineJudge()
        self._raw_reply = raw_reply

    @property
    def model(self) -> str:
        return "offline"

    @property
    def offline(self) -> bool:
        return True

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        if request.step == "coverage" and FAIL_MARK in str(request.inputs.get("summary")):
            raise JudgeReplyError(
                "the coverage reply never validated",
                step="coverage",
                raw_reply=self._raw_reply,
                attempts=3,
            )
        return await self._offline.complete(request)
