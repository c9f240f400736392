"""Scripting the loopback server as a judge: one reply per step, picked from the request."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fake_judge import FakeJudge
from loopback_server import Action, LoopbackServer, reply

StepReply = Mapping[str, Any] | Callable[[dict[str, Any]], Action]


def step_of(body: Mapping[str, Any]) -> str:
    """The judge step a request is for: its ``step`` (fake judge) or its schema's name."""
    if "step" in body:
        return str(body["step"])
    response_format = body.get("response_format") or {}
    return str(response_format.get("json_schema", {}).get("name", ""))


def script_steps(server: LoopbackServer | FakeJudge, replies: Mapping[str, StepReply]) -> None:
    """Answer each request with the reply scripted for its step."""

    def respond(body: dict[str, Any]) -> Action:
        step = step_of(body)
        if step not in replies:
            raise AssertionError(f"unexpected judge step {step!r}")
        chosen = replies[step]
        return chosen(body) if callable(chosen) else reply(chosen)

    server.set_responder(respond)


def requests_for(server: LoopbackServer | FakeJudge, step: str) -> list[dict[str, Any]]:
    """The request bodies the server received for ``step``."""
    return [body for body in server.requests if step_of(body) == step]


def prompt_text(body: Mapping[str, Any]) -> str:
    """Every message of a request, joined."""
    return "\n".join(str(message.get("content")) for message in body["messages"])
