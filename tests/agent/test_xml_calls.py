"""Qwen3-Coder's XML call form, as its chat template writes it, read from a reply's text; it runs
only when the reply is nothing but calls, like the other recovered forms."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent.model.endpoint import FREE, ModelChunk, StreamEnd, TextPiece
from agent.model.reply import Reply, collect
from agent.model.scripted import stats
from agent.model.toolcalls import ParsedCall, parse_text_calls
from tools.registry import default_registry

REGISTRY = default_registry()
SCHEMAS = {name: tool.parameters for name in REGISTRY.names() if (tool := REGISTRY.get(name))}

READ = (
    "<tool_call>\n<function=read>\n<parameter=path>\nsrc/app.py\n</parameter>\n"
    "<parameter=offset>\n40\n</parameter>\n</function>\n</tool_call>"
)


@pytest.mark.parametrize(
    ("text", "call"),
    [
        (READ, ParsedCall("read", {"path": "src/app.py", "offset": 40})),
        # A string the schema wants stays a string, even when it reads as JSON; inner newlines
        # and indentation stay as written.
        (
            "<tool_call>\n<function=write>\n<parameter=path>\nn.txt\n</parameter>\n"
            "<parameter=content>\n42\n</parameter>\n</function>\n</tool_call>",
            ParsedCall("write", {"path": "n.txt", "content": "42"}),
        ),
        (
            "<tool_call>\n<function=edit>\n<parameter=path>\na.py\n</parameter>\n"
            "<parameter=old>\ndef f():\n    return 1\n</parameter>\n<parameter=new>\n"
            "def f():\n    return 2\n</parameter>\n<parameter=replace_all>\nfalse\n</parameter>\n"
            "</function>\n</tool_call>",
            ParsedCall(
                "edit",
                {
                    "path": "a.py",
                    "old": "def f():\n    return 1",
                    "new": "def f():\n    return 2",
                    "replace_all": False,
                },
            ),
        ),
        # Lists are written as JSON; the closing tags cut off by the token limit.
        (
            "<tool_call>\n<function=git>\n<parameter=action>\nadd\n</parameter>\n"
            '<parameter=paths>\n["a.py", "b.py"]\n</parameter>\n',
            ParsedCall("git", {"action": "add", "paths": ["a.py", "b.py"]}),
        ),
        # Without the <tool_call> wrapper, and without a schema for the tool's values.
        (
            "<function=bash>\n<parameter=command>\nls -la\n</parameter>\n</function>",
            ParsedCall("bash", {"command": "ls -la"}),
        ),
    ],
)
def test_a_reply_that_is_an_xml_call_runs(text: str, call: ParsedCall) -> None:
    found = parse_text_calls(text, SCHEMAS)
    assert found.calls == [call]
    assert found.text == ""


def test_several_xml_calls_in_one_reply() -> None:
    found = parse_text_calls(f"{READ}\n{READ.replace('40', '80')}\n", SCHEMAS)
    assert [c.arguments for c in found.calls] == [
        {"path": "src/app.py", "offset": 40},
        {"path": "src/app.py", "offset": 80},
    ]


def test_names_only_still_read_json_values() -> None:
    found = parse_text_calls(READ, {"read"})
    assert found.calls == [ParsedCall("read", {"path": "src/app.py", "offset": 40})]


@pytest.mark.parametrize(
    "text",
    [
        f"I'll read the file first.\n{READ}",
        f"{READ}\nThen I will change line 40.",
        f"The page asks for this call:\n{READ}\nI will not run it.",
        READ.replace("function=read", "function=format_disk"),  # not one of the tools
    ],
)
def test_xml_calls_amid_prose_or_unknown_never_run(text: str) -> None:
    found = parse_text_calls(text, SCHEMAS)
    assert found.calls == []
    assert found.text == text


def test_an_xml_value_past_the_argument_limits_is_an_error() -> None:
    text = "<function=bash>\n<parameter=command>\nls\x00 /\n</parameter>\n</function>"
    (call,) = parse_text_calls(text, SCHEMAS).calls
    assert call.name == "bash" and call.arguments is None and call.error


async def test_collect_marks_an_xml_call_recovered() -> None:
    async def stream() -> AsyncIterator[ModelChunk]:
        for piece in (READ[:30], READ[30:]):
            yield TextPiece(piece)
        yield StreamEnd("stop", stats())

    reply = Reply()
    await collect(stream(), lambda event: None, reply, reply_format=FREE, tool_names=SCHEMAS)
    assert [(c.name, c.arguments, c.recovered) for c in reply.calls] == [
        ("read", {"path": "src/app.py", "offset": 40}, True)
    ]
    assert reply.text == ""
