"""Reading text and tool results out of the inputs and outputs that scorers receive.

Inputs and outputs are plain strings or message lists, in either of two shapes:

- OpenAI style: ``{"role": ..., "content": ...}`` messages, where an assistant message may
  carry ``tool_calls`` and each tool's answer comes back as a ``{"role": "tool"}`` message;
- the agent shape of the reference library: an input ``{"inputMessages": [...]}``, messages
  whose ``content`` is a string, a list of parts or ``{"parts": [...]}``, and tool results in
  ``toolInvocations`` (or ``tool-invocation`` parts).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError

__all__ = ["ToolResult", "extract_tool_results", "input_text", "output_text"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One tool call found in an output, with what the tool returned.

    Attributes:
        tool_name: The tool's name.
        args: The arguments the tool was called with.
        result: What the tool returned.
        tool_call_id: The call's id, when the messages carry one.
    """

    tool_name: str
    args: Any
    result: Any
    tool_call_id: str | None = None


def _content_text(content: Any) -> str:
    """Return the text of a message's content, whatever its shape."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        if isinstance(content.get("parts"), Sequence):
            return _content_text(content["parts"])
        if isinstance(content.get("content"), str):
            return str(content["content"])
        if content.get("type") in (None, "text") and isinstance(content.get("text"), str):
            return str(content["text"])
        return ""
    if isinstance(content, Sequence):
        texts = [_content_text(part) for part in content]
        return "\n".join(text for text in texts if text)
    return ""


def _messages_of(value: Any, field: str, item_id: object) -> list[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        if "inputMessages" in value:
            value = value["inputMessages"]
        elif "messages" in value:
            value = value["messages"]
        elif "role" in value:
            value = [value]
        else:
            raise InputError(
                f"field {field!r} is a mapping without 'role', 'messages' or 'inputMessages'; "
                "give a string or a list of messages",
                field=field,
                item_id=item_id,
            )
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise InputError(
            f"field {field!r} is {type(value).__name__}; expected a string or a list of messages",
            field=field,
            item_id=item_id,
        )
    if value and all(isinstance(message, str) for message in value):
        raise InputError(
            f"field {field!r} is a list of {len(value)} texts; give one text, or chat messages "
            "as mappings such as {'role': 'user', 'content': '...'} (to compare an answer with "
            "several references, score it against each and keep the best, as meta_evaluate "
            "does)",
            field=field,
            item_id=item_id,
        )
    messages: list[Mapping[str, Any]] = []
    for position, message in enumerate(value):
        if isinstance(message, Mapping):
            messages.append(message)
        else:
            raise InputError(
                f"field {field!r}: message {position} is {type(message).__name__}, not a mapping",
                field=field,
                item_id=item_id,
            )
    return messages


def _check_present(value: Any, field: str, item_id: object) -> None:
    if value is None:
        raise InputError(
            f"field {field!r} is missing (None); give a string or a list of messages",
            field=field,
            item_id=item_id,
        )


def input_text(value: Any, *, field: str = "input", item_id: object = None) -> str:
    """Return the text of an input: itself for a string, else its first user message.

    Args:
        value: A string, a message list, or ``{"inputMessages": [...]}``.
        field: The field name to use in error messages.
        item_id: The item's id, for error messages.

    Raises:
        InputError: The value is None, of an unsupported type, or has no user message with text.

    Example:
        >>> input_text({"inputMessages": [{"role": "user", "content": "Summarise this."}]})
        'Summarise this.'
    """
    _check_present(value, field, item_id)
    if isinstance(value, str):
        return value
    for message in _messages_of(value, field, item_id):
        if message.get("role") == "user":
            text = _content_text(message.get("content"))
            if text.strip():
                return text
    raise InputError(f"field {field!r} has no user message with text", field=field, item_id=item_id)


def output_text(value: Any, *, field: str = "output", item_id: object = None) -> str:
    """Return the text of an output: itself for a string, else its last assistant text.

    Args:
        value: A string or a message list.
        field: The field name to use in error messages.
        item_id: The item's id, for error messages.

    Raises:
        InputError: The value is None, of an unsupported type, or has no assistant text.

    Example:
        >>> output_text([{"role": "assistant", "content": "Paris."}])
        'Paris.'
    """
    _check_present(value, field, item_id)
    if isinstance(value, str):
        return value
    for message in reversed(_messages_of(value, field, item_id)):
        if message.get("role") == "assistant":
            text = _content_text(message.get("content"))
            if text.strip():
                return text
    raise InputError(
        f"field {field!r} has no assistant message with text", field=field, item_id=item_id
    )


def _parse_arguments(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
    return arguments


def _invocation_result(invocation: Mapping[str, Any]) -> ToolResult | None:
    if "result" not in invocation and "output" not in invocation:
        return None
    return ToolResult(
        tool_name=str(invocation.get("toolName", invocation.get("tool_name", ""))),
        args=invocation.get("args", invocation.get("input")),
        result=invocation.get("result", invocation.get("output")),
        tool_call_id=invocation.get("toolCallId", invocation.get("tool_call_id")),
    )


def _parts(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, Mapping) and isinstance(content.get("parts"), Sequence):
        content = content["parts"]
    if isinstance(content, Sequence) and not isinstance(content, str):
        return [part for part in content if isinstance(part, Mapping)]
    return []


def extract_tool_results(output: Any) -> list[ToolResult]:
    """Return the tool results in an output, in the order they appear.

    Reads OpenAI-style ``tool_calls`` with their ``tool`` messages, ``toolInvocations`` and
    ``tool-invocation`` / ``tool-result`` content parts. A tool call that never got a result is
    left out. This is what a summarization ``source_extractor`` needs when the document came
    from a tool.

    Args:
        output: A message list (a plain string has no tool results).

    Example:
        >>> messages = [
        ...     {"role": "assistant", "tool_calls": [{"id": "1", "function": {
        ...         "name": "fetch_document", "arguments": '{"url": "a"}'}}]},
        ...     {"role": "tool", "tool_call_id": "1", "content": "The document."},
        ...     {"role": "assistant", "content": "A summary."},
        ... ]
        >>> [(r.tool_name, r.result) for r in extract_tool_results(messages)]
        [('fetch_document', 'The document.')]
    """
    if output is None or isinstance(output, str):
        return []
    messages = _messages_of(output, "output", None)
    pending: dict[str, tuple[str, Any]] = {}
    results: list[ToolResult] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            pending[str(call.get("id"))] = (
                str(function.get("name", "")),
                _parse_arguments(function.get("arguments")),
            )
        for invocation in message.get("toolInvocations") or []:
            found = _invocation_result(invocation)
            if found is not None:
                results.append(found)
        for part in _parts(message.get("content")):
            if part.get("type") == "tool-invocation":
                found = _invocation_result(part.get("toolInvocation") or {})
            elif part.get("type") == "tool-result":
                found = _invocation_result(part)
            else:
                found = None
            if found is not None:
                results.append(found)
        if message.get("role") == "tool" and "tool_call_id" in message:
            call_id = str(message["tool_call_id"])
            name, args = pending.pop(call_id, (str(message.get("name", "")), None))
            results.append(
                ToolResult(
                    tool_name=name,
                    args=args,
                    result=_content_text(message.get("content")),
                    tool_call_id=call_id,
                )
            )
    return results
