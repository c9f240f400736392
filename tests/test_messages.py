"""Reading text and tool results from strings and both message shapes."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from evaltoolkit import InputError, extract_tool_results
from evaltoolkit.records.messages import input_text, output_text


def test_plain_strings_pass_through() -> None:
    assert input_text("source") == "source"
    assert output_text("summary") == "summary"


def test_first_user_message_is_the_input() -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "the document"},
        {"role": "user", "content": "a follow-up"},
    ]
    assert input_text(messages) == "the document"
    assert input_text({"inputMessages": messages}) == "the document"


def test_last_assistant_message_with_text_is_the_output() -> None:
    messages = [
        {"role": "assistant", "content": "first draft"},
        {"role": "assistant", "content": "final summary"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "1", "function": {"name": "x"}}],
        },
    ]
    assert output_text(messages) == "final summary"


def test_content_parts_and_agent_shape() -> None:
    message = {
        "role": "assistant",
        "content": {"format": 2, "parts": [{"type": "text", "text": "hi"}]},
    }
    assert output_text([message]) == "hi"
    parts = {
        "role": "user",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    }
    assert input_text([parts]) == "a\nb"


@pytest.mark.parametrize("value", [None, 3, {"foo": 1}, ["not a message"]])
def test_bad_values_name_the_field_and_item(value: object) -> None:
    with pytest.raises(InputError, match=r"item 'x-1': field 'output'") as caught:
        output_text(value, item_id="x-1")
    assert caught.value.field == "output"


def test_openai_tool_calls_are_matched_with_their_results() -> None:
    output = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "fetch_document", "arguments": '{"url": "u"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "search", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c2", "content": "hits"},
        {"role": "tool", "tool_call_id": "c1", "content": "the document text"},
        {"role": "assistant", "content": "summary"},
    ]
    results = extract_tool_results(output)
    assert [(r.tool_name, r.args, r.result) for r in results] == [
        ("search", {}, "hits"),
        ("fetch_document", {"url": "u"}, "the document text"),
    ]


def test_agent_tool_invocations_are_read() -> None:
    output = [
        {
            "role": "assistant",
            "content": "",
            "toolInvocations": [
                {
                    "toolCallId": "t1",
                    "toolName": "fetchDocument",
                    "args": {"id": 3},
                    "result": "doc",
                    "state": "result",
                },
                {"toolCallId": "t2", "toolName": "pending", "args": {}, "state": "call"},
            ],
        },
        {
            "role": "assistant",
            "content": {
                "parts": [
                    {
                        "type": "tool-invocation",
                        "toolInvocation": {"toolName": "lookup", "args": {}, "result": {"x": 1}},
                    }
                ]
            },
        },
    ]
    results = extract_tool_results(output)
    assert [(r.tool_name, r.result) for r in results] == [
        ("fetchDocument", "doc"),
        ("lookup", {"x": 1}),
    ]
    assert results[0].tool_call_id == "t1"


def test_strings_have_no_tool_results() -> None:
    assert extract_tool_results("just text") == []


def test_a_list_of_texts_is_told_apart_from_a_list_of_messages() -> None:
    import evaltoolkit as et

    similarity = et.create_answer_similarity_scorer()

    several = similarity.run(input="q", output="Paris", ground_truth=["Paris", "paris, France"])
    one = similarity.run(input="q", output="Paris", ground_truth="Paris")

    assert several.error is not None and several.error.step == "input"
    assert "field 'ground_truth' is a list of 2 texts; give one text" in several.error.message
    assert "keep the best" in several.error.message
    assert one.error is None and one.score == 1.0
    with pytest.raises(InputError, match=r"message 1 is int, not a mapping"):
        input_text([{"role": "user", "content": "x"}, 3])


def test_the_old_module_path_warns_and_hands_on_the_same_names() -> None:
    sys.modules.pop("evaltoolkit.messages", None)
    with pytest.warns(DeprecationWarning, match=r"evaltoolkit\.records\.messages"):
        old = importlib.import_module("evaltoolkit.messages")
    assert old.input_text is input_text
    assert old.output_text is output_text
    assert old.extract_tool_results is extract_tool_results


def test_the_package_never_imports_the_deprecated_path() -> None:
    code = (
        "import sys, warnings; warnings.simplefilter('error', DeprecationWarning); "
        "import evaltoolkit, evaltoolkit.cli, evaltoolkit.meta, evaltoolkit.report; "
        "print('evaltoolkit.messages' in sys.modules)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "False"
