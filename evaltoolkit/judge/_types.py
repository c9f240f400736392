"""What a scorer sends a judge and what comes back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..records import ModelCall, Stage

__all__ = ["Judge", "JudgeReply", "JudgeRequest", "render_messages"]

Message = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """One judge step: the prompt messages and the JSON schema the reply must satisfy.

    Attributes:
        task: The scorer's task (``"summarization"``, ``"answer-similarity"``).
        step: The step's name (``"source_judgement"``, ``"coverage"``, ``"reason"``, ...).
        stage: Where the step sits in the scorer pipeline: preprocess, analyze or reason.
        messages: Chat messages (``role`` and ``content``), already rendered from templates.
        schema: JSON schema of the reply object.
        variables: The values the prompt was rendered from. A model judge reads only the
            messages; the offline judge reads only these, which is why it ignores prompts.
    """

    task: str
    step: str
    stage: Stage
    messages: tuple[Message, ...]
    schema: Mapping[str, Any]
    variables: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class JudgeReply:
    """A validated reply object and the record of the call that produced it."""

    value: dict[str, Any]
    call: ModelCall


@runtime_checkable
class Judge(Protocol):
    """Anything that answers judge steps: the litellm judge or the offline judge."""

    @property
    def model(self) -> str:
        """The model name recorded on results."""
        ...

    @property
    def offline(self) -> bool:
        """True for the built-in judge, which answers from the texts alone and ignores prompts."""
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
