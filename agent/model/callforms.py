"""The model-specific call forms in a reply's text, read into names and arguments.

Gemma 4 writes ``call:name{key:<|"|>value<|"|>,...}``; Qwen3-Coder writes
``<function=NAME><parameter=K>V</parameter></function>`` inside ``<tool_call>``. Which of them
may run is ``agent.model.toolcalls``'s decision.
"""

from __future__ import annotations

import json
import re
from typing import Any

_XML_CALL = re.compile(
    r"(?:<tool_call>\s*)?<function=([^>\n]*)>(.*?)(?:</function>\s*(?:</tool_call>)?|$)", re.S
)
# The template puts each value on its own lines: one newline either side is markup, not value.
_XML_PARAMETER = re.compile(
    r"<parameter=([^>\n]*)>\n?(.*?)\n?(?:</parameter>|(?=<parameter=)|$)", re.S
)


def xml_calls(text: str) -> tuple[list[tuple[str, dict[str, str]]], str]:
    """Qwen3-Coder's calls as (name, parameter texts), and the text with them cut out. A call
    cut off by the token limit keeps the parameters written so far."""
    calls: list[tuple[str, dict[str, str]]] = []

    def call(match: re.Match[str]) -> str:
        parameters = _XML_PARAMETER.findall(match.group(2))
        calls.append((match.group(1).strip(), {k.strip(): v for k, v in parameters}))
        return ""

    return calls, _XML_CALL.sub(call, text)


_GEMMA_SCALAR = re.compile(r'-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|"(?:[^"\\]|\\.)*"')


class GemmaReader:
    """Gemma 4's call arguments: ``{key:value,...}`` with unquoted keys, strings in ``<|"|>``,
    and JSON numbers, booleans, null, lists and nested objects."""

    QUOTE = '<|"|>'

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def document(self) -> dict[str, Any]:
        value = self.value()
        self.space()
        if not isinstance(value, dict) or self.pos != len(self.text):
            raise ValueError(f"expected one {{...}} object at character {self.pos}")
        return value

    def space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def value(self) -> Any:
        self.space()
        text, pos = self.text, self.pos
        if text.startswith(self.QUOTE, pos):
            end = text.find(self.QUOTE, pos + len(self.QUOTE))
            if end < 0:
                raise ValueError('a <|"|> string is not closed')
            self.pos = end + len(self.QUOTE)
            return text[pos + len(self.QUOTE) : end]
        if text.startswith("{", pos):
            return self.members("}", self.pair)
        if text.startswith("[", pos):
            return self.members("]", self.value)
        match = _GEMMA_SCALAR.match(text, pos)
        if not match:
            raise ValueError(f"unexpected {text[pos : pos + 12]!r} at character {pos}")
        self.pos = match.end()
        return json.loads(match.group(0))

    def pair(self) -> tuple[str, Any]:
        self.space()
        colon = self.text.find(":", self.pos)
        if colon < 0 or "}" in self.text[self.pos : colon]:
            raise ValueError(f"expected key: at character {self.pos}")
        key = self.text[self.pos : colon].strip().strip('"')
        self.pos = colon + 1
        return key, self.value()

    def members(self, close: str, item: Any) -> Any:
        self.pos += 1
        items: list[Any] = []
        self.space()
        while not self.text.startswith(close, self.pos):
            items.append(item())
            self.space()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                self.space()
            elif not self.text.startswith(close, self.pos):
                raise ValueError(f"expected , or {close} at character {self.pos}")
        self.pos += 1
        return dict(items) if close == "}" else items
