"""What a scorer sends a judge and what comes back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..records import ModelCall
from ..records._internal import Stage

__all__ = ["Judge", "JudgeReply", "JudgeRequest", "OfflineAnswer", "render_messages"]

Message = Mapping[str, str]
#: Answers a step from its inputs alone: called with the inputs as keyword arguments.
OfflineAnswer = Callable[..., Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """One judge step: the prompt messages and the JSON schema the reply must satisfy.

    Attributes:
        step: The step's name, recorded on the call and named in errors.
        stage: Where the step sits in its scorer: preprocess, analyze or reason.
        messages: Chat messages (``role`` and ``content``), already rendered from templates.
        schema: JSON schema of the reply object.
        inputs: The typed values the prompt was rendered from.
        offline: A function answering the step from ``inputs`` alone (keyword arguments), for
            the offline judge; None when the step has none. A model judge reads only the
            messages.
        max_tokens: The step's completion budget; None lets the judge size it from the schema.
        repeat: Which repeat of the same request this is (0 for an ordinary run); a model
            judge caches each repeat apart and offsets its sampling seed by it.
    """

    step: str
    stage: Stage
    messages: tuple[Message, ...]
    schema: Mapping[str, Any]
    inputs: Mapping[str, Any] = field(default_factory=dict)
    offline: OfflineAnswer | None = None
    max_tokens: int | None = None
    repeat: int = 0


@dataclass(frozen=True, slots=True)
class JudgeReply:
    """A validated reply object and the record of the call that produced it."""

    value: dict[str, Any]
    call: ModelCall


@runtime_checkable
class Judge(Protocol):
    """Anything that answers judge steps: a model through litellm, or the offline judge."""

    @property
    def model(self) -> str:
        """The model name recorded on results."""
        ...

    @property
    def offline(self) -> bool:
        """True for the built-in judge, which answers each step with its offline function."""
        ...

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one step.

        Raises:
            JudgeCallError: The call failed after every retry.
            JudgeReplyError: No reply validated against the step's schema.
        """
        ...


def render_messages(messages: tuple[Message, ...]) -> str:
    """Render chat messages as readable text, one ``[role]`` block per message.

    Example:
        >>> render_messages(({"role": "user", "content": "Hi"},))
        '[user]\\nHi'
    """
    return "\n\n".join(f"[{message['role']}]\n{message['content']}" for message in messages)
