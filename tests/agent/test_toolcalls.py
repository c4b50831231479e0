"""Calls left in model text, the constrained step object, and lenient argument JSON."""

from __future__ import annotations

import json

import pytest

from agent.model.toolcalls import ParsedCall, loads_lenient, parse_arguments, parse_text_calls
from agent.small.schema import essential, parse_step, step_format, step_tools

TOOLS = {"bash", "write", "read"}
STR = {"type": "string"}


@pytest.mark.parametrize(
    ("text", "rest", "call"),
    [
        # Qwen2.5-Coder 0.5B without constraints (cpu-rig.md §6): a fenced object in content.
        (
            '```json\n{"name": "bash", "arguments": {"command": "ls"}}\n```',
            "",
            ParsedCall("bash", {"command": "ls"}),
        ),
        # Qwen's own tag, with words before it.
        (
            "Let me look.\n<tool_call>\n"
            '{"name": "read", "arguments": {"path": "README.md"}}\n</tool_call>',
            "Let me look.",
            ParsedCall("read", {"path": "README.md"}),
        ),
        # The tag left open because generation stopped at EOS.
        (
            '<tool_call>\n{"name": "bash", "arguments": {"command": "pytest -q"}}',
            "",
            ParsedCall("bash", {"command": "pytest -q"}),
        ),
        # Gemma 4: call:name{key:<|"|>string<|"|>,...} (llama.cpp common/parsers/gemma4.cpp).
        (
            '<|tool_call>call:write{path:<|"|>hello.py<|"|>,content:<|"|>print("hi")\n<|"|>}'
            "<tool_call|>",
            "",
            ParsedCall("write", {"path": "hello.py", "content": 'print("hi")\n'}),
        ),
        (
            '<|tool_call>call:bash{command:<|"|>ls<|"|>,timeout:30,background:false,'
            "env:{a:[1,2.5,null]}}<tool_call|>",
            "",
            ParsedCall(
                "bash",
                {"command": "ls", "timeout": 30, "background": False, "env": {"a": [1, 2.5, None]}},
            ),
        ),
        # A bare object that is the whole reply, with the "tool"/"parameters" spelling.
        (
            '{"tool": "write", "parameters": {"path": "a.txt", "content": "x"}}',
            "",
            ParsedCall("write", {"path": "a.txt", "content": "x"}),
        ),
        # Arguments double-encoded as a JSON string.
        (
            '{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}',
            "",
            ParsedCall("bash", {"command": "pwd"}),
        ),
        # Arguments written beside the name.
        ('{"name": "read", "path": "a.py"}', "", ParsedCall("read", {"path": "a.py"})),
    ],
)
def test_calls_in_text_are_found_and_cut_out(text: str, rest: str, call: ParsedCall) -> None:
    found = parse_text_calls(text, TOOLS)
    assert found.calls == [call]
    assert found.text == rest


def test_two_tagged_calls_in_one_reply() -> None:
    text = (
        '<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>\n'
        '<tool_call>{"name": "read", "arguments": {"path": "b"}}</tool_call>'
    )
    found = parse_text_calls(text, TOOLS)
    assert [c.arguments for c in found.calls] == [{"path": "a"}, {"path": "b"}]


@pytest.mark.parametrize(
    "text",
    [
        "Done: hello.py prints hello.",
        # JSON that names no known tool is an answer, e.g. an example the user asked for.
        '```json\n{"name": "Ada", "age": 36}\n```',
        '{"name": "deploy", "arguments": {}}',
        # Not an object at the start of a line.
        'The call was {"name": "bash", "arguments": {"command": "ls"}} earlier.',
    ],
)
def test_plain_answers_have_no_calls(text: str) -> None:
    found = parse_text_calls(text, TOOLS)
    assert found.calls == []
    assert found.text == text


def test_a_broken_tagged_call_reports_why() -> None:
    found = parse_text_calls(
        '<tool_call>{"name": "bash", "arguments": {"command": "ls</tool_call>', TOOLS
    )
    [call] = found.calls
    assert call.arguments is None
    assert (
        call.error is not None and "not valid JSON" in call.error and "Unterminated" in call.error
    )


def test_a_broken_gemma_call_reports_why() -> None:
    [call] = parse_text_calls("<|tool_call>call:bash{command:ls}<tool_call|>", TOOLS).calls
    assert call.name == "bash" and call.arguments is None
    assert call.error is not None and "could not be read" in call.error


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('{"a": 1,}', {"a": 1}),
        ('{"a": [1, 2,],}', {"a": [1, 2]}),
        ("{'path': 'it\\'s.txt', 'n': None}", {"path": "it's.txt", "n": None}),
        ("{'say': 'he said \"hi\"'}", {"say": 'he said "hi"'}),
        ('{command: "ls", background: True}', {"command": "ls", "background": True}),
        ('{"content": "line 1\nline 2\tend"}', {"content": "line 1\nline 2\tend"}),
        # A missing closing brace at the very end (common with small models).
        (
            '{"name": "bash", "arguments": {"command": "ls"}',
            {"name": "bash", "arguments": {"command": "ls"}},
        ),
        # Content that merely looks like things we repair is left alone.
        ('{"s": "a, ] } True \'x\'"}', {"s": "a, ] } True 'x'"}),
    ],
)
def test_lenient_json_repairs(raw: str, value: object) -> None:
    assert loads_lenient(raw) == value


@pytest.mark.parametrize(
    "raw",
    [
        '{"command": "ls',  # cut off inside a string: no guessing
        '{"a": 1 "b": 2}',
        "{'a': }",
        "call me maybe",
    ],
)
def test_malformed_json_is_never_passed_on(raw: str) -> None:
    with pytest.raises(ValueError):
        loads_lenient(raw)


def test_parse_arguments_explains() -> None:
    assert parse_arguments("") == ({}, None)
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_arguments({"a": 1}) == ({"a": 1}, None)
    args, error = parse_arguments("[1, 2]")
    assert args is None and error == "arguments must be a JSON object, got list"
    args, error = parse_arguments('{"a": ')
    assert args is None and error is not None and error.startswith("arguments are not valid JSON (")


def test_step_schema_has_one_branch_per_tool_and_the_answer_tool() -> None:
    bash = {"type": "object", "properties": {"command": STR, "timeout": {"type": "integer"}}}
    tools = [
        {"type": "function", "function": {"name": "bash", "parameters": bash}},
        {"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}},
    ]
    schema = step_format(step_tools(tools)).schema
    assert schema is not None
    branches = schema["anyOf"]
    assert [b["properties"]["name"]["const"] for b in branches] == ["bash", "read", "answer"]
    # Optional knobs are left out: a grammar makes small models fill every field.
    assert branches[0]["properties"]["arguments"]["properties"] == {"command": STR}
    assert [t["function"]["name"] for t in step_tools(tools)] == ["bash", "read", "answer"]
    json.dumps(schema)  # sendable as is


def test_a_small_model_may_set_replace_all_but_no_other_knob() -> None:
    edit = {
        "type": "object",
        "properties": {"path": STR, "old": STR, "replace_all": {"type": "boolean"}},
        "required": ["path", "old"],
    }
    assert essential(edit)["properties"] == edit["properties"]
    assert essential({**edit, "properties": {"path": STR, "quiet": {"type": "boolean"}}})[
        "properties"
    ] == {"path": STR}


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ('{"name": "answer", "arguments": {"text": "done"}}', "done"),
        ('{"answer": "done"}', "done"),
        ('```json\n{"answer": "done"}\n```', "done"),
        ('{"name": "bash", "arguments": {"command": "ls"}}', ParsedCall("bash", {"command": "ls"})),
    ],
)
def test_parse_step(text: str, step: object) -> None:
    assert parse_step(text) == step


def test_a_cut_off_step_is_an_error_call() -> None:
    step = parse_step('{"name": "write", "arguments": {"path": "a.py", "content": "print(')
    assert isinstance(step, ParsedCall) and step.arguments is None
    assert step.error is not None and "not one JSON step object" in step.error
