"""One judge step's exchange with a model: ask, read, validate, repair; move down a JSON form.

:func:`answer_step` sends the step's messages in the current JSON form (see
:mod:`._structured`), parses and validates the reply, and feeds validation errors back to the
model until a reply is valid or the repairs run out. When the server rejects the form it moves
to the next one and starts the step again. Usage and cost count every attempt, failed ones
included, and travel on the error when the step fails.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import JudgeCallError, JudgeReplyError
from ..records import Usage
from ..records._internal import sum_cost, sum_usage
from ._config import StructuredOutput
from ._parse import ReplyProblem, parse_and_validate, repair_instructions
from ._structured import FORMS, Form, prepare_messages, remember_form, remembered_form
from ._types import JudgeRequest

__all__ = [
    "Exchange",
    "FormRejected",
    "Forms",
    "answer_step",
    "finish_reason",
    "reply_text",
    "usage_of",
]

logger = logging.getLogger("evaltoolkit.judge")

#: Sends messages in a form; returns the response and how many requests it took.
Send = Callable[[list[dict[str, Any]], Form], Awaitable[tuple[Any, int]]]


class FormRejected(Exception):
    """The server rejected the JSON form of the request; ``made`` requests were spent on it."""

    def __init__(self, made: int) -> None:
        super().__init__(f"the response format was rejected after {made} requests")
        self.made = made


class Forms:
    """Which JSON form a judge asks in, moving down the forms when a server rejects one.

    Args:
        model: The judge's model.
        api_base: The judge's server.
        mode: ``auto`` negotiates; any other mode is the only form used.
        first: The form ``auto`` starts with when nothing is remembered for this server.
    """

    def __init__(
        self, model: str, api_base: str | None, mode: StructuredOutput, first: Form
    ) -> None:
        self.model = model
        self.api_base = api_base
        self.mode = mode
        self.first = first

    def current(self) -> Form:
        """The form to ask in now."""
        if self.mode != "auto":
            return self.mode
        return remembered_form(self.model, self.api_base) or self.first

    def candidates(self) -> list[Form]:
        """Every form a cached reply may have been asked in, the current one first."""
        if self.mode != "auto":
            return [self.mode]
        current = self.current()
        return [current, *(form for form in FORMS if form != current)]

    def after_rejection(self, rejected: Form, step: str, attempts: int) -> Form:
        """The form to try after ``rejected``; remembered for the rest of the process.

        Raises:
            JudgeCallError: The mode is forced, or no form is left.
        """
        position = FORMS.index(rejected)
        if self.mode != "auto" or position + 1 >= len(FORMS):
            raise JudgeCallError(
                f"judge step {step!r}: {self.model!r} rejected the {rejected!r} response "
                "format; use structured_output='auto' (or another of 'json_schema', "
                "'json_object', 'off')",
                step=step,
                attempts=attempts,
            )
        following = FORMS[position + 1]
        if remembered_form(self.model, self.api_base) in (None, rejected):
            remember_form(self.model, self.api_base, following)
        logger.info("%s rejected the %s form; asking for %s", self.model, rejected, following)
        return following


@dataclass(slots=True)
class Exchange:
    """A validated reply and what it took to get it."""

    value: dict[str, Any]
    raw_reply: str | None
    form: Form
    attempts: int
    usage: Usage | None
    cost: float | None


@dataclass(slots=True)
class _Tally:
    attempts: int = 0
    usages: list[Usage | None] = field(default_factory=list)
    costs: list[float | None] = field(default_factory=list)

    def usage(self) -> Usage | None:
        return sum_usage(self.usages)

    def cost(self) -> float | None:
        return sum_cost(self.costs) if self.costs else None


async def answer_step(
    request: JudgeRequest,
    *,
    send: Send,
    forms: Forms,
    max_repairs: int,
    cost_of: Callable[[Any], float | None],
) -> Exchange:
    """Get a reply to ``request`` that validates against its schema.

    Raises:
        JudgeCallError: A request failed (raised by ``send``), or every form was rejected.
        JudgeReplyError: No reply validated, repairs included.
    """
    tally = _Tally()
    form = forms.current()
    messages = prepare_messages(form, request.messages, request.schema)
    raw_reply: str | None = None
    problem: ReplyProblem | None = None
    rounds = 0
    while rounds <= max_repairs:
        try:
            response, made = await send(messages, form)
        except FormRejected as rejection:
            tally.attempts += rejection.made
            form = forms.after_rejection(form, request.step, tally.attempts)
            messages = prepare_messages(form, request.messages, request.schema)
            continue
        except JudgeCallError as failure:
            failure.attempts += tally.attempts
            failure.usage, failure.cost = tally.usage(), tally.cost()
            raise
        tally.attempts += made
        rounds += 1
        raw_reply = reply_text(response)
        tally.usages.append(usage_of(response))
        tally.costs.append(cost_of(response))
        try:
            value = parse_and_validate(raw_reply, request.schema)
        except ReplyProblem as invalid:
            if finish_reason(response) == "length":
                # Cut at the token limit: ask afresh rather than send the long, broken reply
                # back, which would crowd a small model's context out.
                problem = _cut_off(invalid)
                messages = prepare_messages(form, request.messages, request.schema)
            else:
                problem = invalid
                messages = [*messages, {"role": "assistant", "content": raw_reply or ""}]
            messages.append(
                {"role": "user", "content": repair_instructions(problem, request.schema)}
            )
            continue
        return Exchange(value, raw_reply, form, tally.attempts, tally.usage(), tally.cost())
    raise JudgeReplyError(
        f"judge step {request.step!r}: {forms.model!r} gave no reply matching the step's JSON "
        f"schema in {tally.attempts} attempts; last problem: {problem}. Try a stronger model, "
        "raise max_repairs or max_tokens (--max-repairs, --max-tokens on the command line), or "
        "check the prompt asks for this JSON",
        step=request.step,
        raw_reply=raw_reply,
        attempts=tally.attempts,
        usage=tally.usage(),
        cost=tally.cost(),
    )


def _cut_off(problem: ReplyProblem) -> ReplyProblem:
    return ReplyProblem(
        "the reply reached the token limit (max_tokens) before its JSON was complete; reply "
        f"again with a shorter JSON object ({problem})"
    )


def finish_reason(response: Any) -> str | None:
    """Why the model stopped: ``"stop"``, ``"length"`` (the token limit), ... or None."""
    try:
        reason = response.choices[0].finish_reason
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    return reason if isinstance(reason, str) else None


def reply_text(response: Any) -> str | None:
    """The reply's text: the message content, else the first tool call's arguments."""
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    content = getattr(message, "content", None)
    if isinstance(content, list):
        content = "".join(
            str(part.get("text", "")) if isinstance(part, Mapping) else str(part)
            for part in content
        )
    if isinstance(content, str) and content.strip():
        return content
    for tool_call in getattr(message, "tool_calls", None) or ():
        arguments = getattr(getattr(tool_call, "function", None), "arguments", None)
        if isinstance(arguments, str) and arguments.strip():
            return arguments
    return content if isinstance(content, str) else None


def usage_of(response: Any) -> Usage | None:
    """The token usage a response reports, None when it reports none."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if prompt is None and completion is None:
        return None
    return Usage(int(prompt or 0), int(completion or 0), _cached_prompt_tokens(usage))


def _cached_prompt_tokens(usage: Any) -> int:
    """Input tokens the provider read from its prompt cache: OpenAI-style or Anthropic's."""
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None)
    if cached is None and isinstance(details, dict):
        cached = details.get("cached_tokens")
    if not cached:
        cached = getattr(usage, "cache_read_input_tokens", None)
    return int(cached) if isinstance(cached, int | float) and not isinstance(cached, bool) else 0
