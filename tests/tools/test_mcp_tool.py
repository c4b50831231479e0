"""How an MCP tool is presented to the model: names, descriptions, schemas and result text. The
content blocks are the SDK's own types, as a server's reply would carry them."""

from __future__ import annotations

import base64

from mcp import types

from tools.mcp.tool import MAX_NAME, content_text, lean_schema, one_line, result_text, tool_name


def test_names_are_typeable_bounded_and_unique() -> None:
    assert tool_name("my server", "get.time", set()) == "my_server_get_time"
    assert tool_name("git", "git_status", {"git_git_status"}) == "git_git_status_2"
    assert tool_name("git", "git_status", {"git_git_status", "git_git_status_2"}) == (
        "git_git_status_3"
    )
    long = tool_name("s", "x" * 100, set())
    assert len(long) == MAX_NAME
    clash = tool_name("s", "x" * 100, {long})
    assert len(clash) == MAX_NAME and clash.endswith("_2")
    assert tool_name("é", "ü", set()) == "mcp_tool"


def test_descriptions_are_one_short_line() -> None:
    assert one_line("\n  Get the time.\n\nLong details...") == "Get the time."
    cut = one_line("word " * 40)
    assert len(cut) <= 100 and cut.endswith("word…")
    assert one_line(None) == ""


def test_schemas_lose_titles_but_keep_a_property_called_title() -> None:
    schema = {
        "title": "Args",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string"},
            "tags": {"type": "array", "items": {"title": "Tag", "type": "string"}},
            "when": {"anyOf": [{"type": "string", "title": "S"}, {"type": "null"}]},
        },
        "required": ["title"],
    }
    assert lean_schema(schema) == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "when": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["title"],
    }


def test_content_that_is_not_text_is_summarised() -> None:
    png = base64.b64encode(b"\x89PNG" + bytes(96)).decode()
    blocks = [
        types.TextContent(type="text", text="hello"),
        types.ImageContent(type="image", data=png, mime_type="image/png"),
        types.AudioContent(type="audio", data=png, mime_type="audio/wav"),
        types.ResourceLink(type="resource_link", uri="file:///a.txt", name="a"),
        types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(uri="file:///b.txt", text="inside"),
        ),
        types.EmbeddedResource(
            type="resource",
            resource=types.BlobResourceContents(uri="file:///c.bin", blob=png),
        ),
    ]
    assert [content_text(block) for block in blocks] == [
        "hello",
        "[image: image/png, 100 bytes]",
        "[audio: audio/wav, 100 bytes]",
        "[resource link: file:///a.txt]",
        "inside",
        "[resource: file:///c.bin, binary, 100 bytes]",
    ]


def test_structured_content_stands_in_for_missing_text() -> None:
    result = types.CallToolResult(content=[], structured_content={"result": 3}, is_error=False)
    assert result_text(result) == ('{"result": 3}', False)
    failed = types.CallToolResult(
        content=[types.TextContent(type="text", text="no such file")], is_error=True
    )
    assert result_text(failed) == ("no such file", True)
