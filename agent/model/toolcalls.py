"""Tool calls that local models leave in their text, and tolerant reading of argument JSON.

Small models often write a call as text instead of a native tool call: a JSON object in a
```json fence or on its own, Qwen's ``<tool_call>{...}</tool_call>``, Qwen3-Coder's
``<tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>``, or Gemma 4's
``<|tool_call>call:name{key:<|"|>value<|"|>}<tool_call|>``. ``parse_text_calls`` finds them
and cuts them out of the text. Plain JSON and the XML form count only when they are the whole
reply: a call quoted in an explanation or an answer (from a README, a page, a tool result) never
runs.
Arguments are read leniently (trailing commas, single quotes, Python literals, missing closing
brackets) but anything still not JSON is reported as an error with the reason, never passed on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from agent.model.callforms import GemmaReader, xml_calls
from tools.argument_limits import argument_problem

NAME_KEYS = ("name", "tool", "function")
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


@dataclass(frozen=True)
class ParsedCall:
    name: str
    arguments: dict[str, Any] | None  # None when they could not be read
    error: str | None = None  # what was wrong, in words the model can act on


@dataclass(frozen=True)
class TextCalls:
    text: str  # the text with the calls cut out
    calls: list[ParsedCall]


def loads_lenient(raw: str) -> Any:
    """``json.loads`` after repairing what small models get wrong; ``ValueError`` if still bad."""
    try:
        return json.loads(raw)
    except RecursionError:  # nested past the parser's limit: bad input, not a crash
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError as first:
        try:
            return json.loads(_repair(raw))
        except (json.JSONDecodeError, _Truncated):
            raise ValueError(f"{first.msg}: line {first.lineno} column {first.colno}") from None


def parse_arguments(raw: str | dict[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
    """Arguments as an object, or None and the reason they are unusable."""
    if raw is None or raw == "":
        return {}, None
    value: Any = raw
    try:
        # A JSON string holding JSON (double-encoded arguments) is unwrapped once.
        for _ in range(2):
            if isinstance(value, str):
                value = loads_lenient(value)
    except ValueError as e:
        return None, f"arguments are not valid JSON ({e})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {type(value).__name__}"
    problem = argument_problem(value)
    return (value, None) if problem is None else (None, problem)


def call_from_object(obj: Any, tool_names: Collection[str] | None = None) -> ParsedCall | None:
    """``{"name": ..., "arguments": {...}}`` (or tool/parameters spellings) as a call."""
    if not isinstance(obj, dict):
        return None
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is None or (tool_names is not None and name not in tool_names):
        return None
    raw = next((obj[k] for k in ARGUMENT_KEYS if k in obj), None)
    if raw is None:
        # {"name": "read", "path": "x"}: the arguments were written beside the name.
        raw = {k: v for k, v in obj.items() if k not in NAME_KEYS}
    arguments, error = parse_arguments(raw)
    return ParsedCall(name, arguments, error)


_QWEN = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_GEMMA = re.compile(r"<\|tool_call\>call:([\w.\-]+)\s*(.*?)(?:<tool_call\|>|$)", re.S)
_FENCE = re.compile(r"```(?:json|tool_call|tool)?\s*\n?(.*?)```", re.S)


def parse_text_calls(text: str, tool_names: Collection[str]) -> TextCalls:
    """Calls written in ``text``. Tagged JSON and Gemma's form always count (the model meant a
    call); bare or fenced JSON and Qwen3-Coder's XML count only when they name a known tool and
    the reply is nothing but such calls, so an example in an answer, or a call quoted amid prose,
    is left alone. A mapping of tool names to argument schemas types the XML form's values."""
    if "<function=" in text and (xml := _xml_calls(text, tool_names)) is not None:
        return xml
    calls: list[ParsedCall] = []

    def tagged(match: re.Match[str]) -> str:
        if match.group(1).startswith("<function="):  # XML amid prose: a quotation
            return match.group(0)
        try:
            obj = loads_lenient(match.group(1))
        except ValueError as e:
            calls.append(ParsedCall("", None, f"the <tool_call> body is not valid JSON ({e})"))
            return ""
        call = call_from_object(obj)
        calls.append(
            call or ParsedCall("", None, 'a <tool_call> needs {"name": ..., "arguments": {...}}')
        )
        return ""

    def gemma(match: re.Match[str]) -> str:
        try:
            arguments = GemmaReader(match.group(2).strip() or "{}").document()
        except ValueError as e:
            calls.append(ParsedCall(match.group(1), None, f"arguments could not be read ({e})"))
            return ""
        calls.append(ParsedCall(match.group(1), arguments))
        return ""

    def fenced(match: re.Match[str]) -> str:
        call = _json_call(match.group(1).strip(), tool_names)
        if call is None:
            return match.group(0)
        calls.append(call)
        return ""

    rest = _GEMMA.sub(gemma, _QWEN.sub(tagged, text))
    tagged_calls = len(calls)
    unfenced = _FENCE.sub(fenced, rest)
    if len(calls) > tagged_calls and unfenced.strip():
        # Fenced JSON beside prose is a quotation, not a call.
        del calls[tagged_calls:]
    else:
        rest = unfenced
    if not calls and rest.lstrip().startswith("{"):
        # A bare object that is the whole reply.
        bare = _json_call(rest.strip(), tool_names)
        if bare is not None:
            return TextCalls("", [bare])
    return TextCalls(rest.strip() if calls else text, calls)


def _xml_calls(text: str, tool_names: Collection[str]) -> TextCalls | None:
    """Qwen3-Coder's calls when the reply is nothing but calls to known tools, else None."""
    found, rest = xml_calls(text)
    if rest.strip() or not found or any(name not in tool_names for name, _ in found):
        return None
    calls = []
    for name, written in found:
        schema = tool_names.get(name) if isinstance(tool_names, Mapping) else None
        types = (schema or {}).get("properties") or {}
        arguments = {key: _xml_value(value, types.get(key)) for key, value in written.items()}
        problem = argument_problem(arguments)
        calls.append(ParsedCall(name, None if problem else arguments, problem))
    return TextCalls("", calls)


def _xml_value(raw: str, schema: Any) -> Any:
    """A parameter's text: kept as written where the schema wants a string (the template writes
    strings raw), else read as JSON (it writes numbers, booleans, lists and objects as JSON)."""
    if isinstance(schema, dict) and schema.get("type") == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _json_call(body: str, tool_names: Collection[str]) -> ParsedCall | None:
    if not body.startswith("{"):  # a call is an object: code is never parsed (ms per block)
        return None
    try:
        obj = loads_lenient(body)
    except ValueError:
        return None
    return call_from_object(obj, tool_names)


class _Truncated(Exception):
    """The text ends inside a string: the call was cut off, nothing to repair."""


_LITERALS = {"True": "true", "False": "false", "None": "null"}
_STRING_ESCAPES = {'"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _repair(raw: str) -> str:
    """Double-quote single-quoted strings, map Python literals, drop trailing commas and close
    brackets left open at the end. Works outside strings only, so contents are never touched."""
    out: list[str] = []
    closers: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c in "\"'":
            i = _copy_string(raw, i, out)
        elif c in "{[":
            closers.append("}" if c == "{" else "]")
            out.append(c)
            i += 1
        elif c in "}]":
            _drop_trailing_comma(out)
            if closers:
                closers.pop()
            out.append(c)
            i += 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (raw[j].isalnum() or raw[j] == "_"):
                j += 1
            word = raw[i:j]
            # An unquoted key ({command: "ls"}) gets its quotes; other words may be literals.
            is_key = raw[j:].lstrip().startswith(":")
            out.append(f'"{word}"' if is_key else _LITERALS.get(word, word))
            i = j
        else:
            out.append(c)
            i += 1
    _drop_trailing_comma(out)
    return "".join(out) + "".join(reversed(closers))


def _copy_string(raw: str, start: int, out: list[str]) -> int:
    """Copy the string starting at ``start`` as a double-quoted JSON string; return its end."""
    quote = raw[start]
    chars: list[str] = ['"']
    i = start + 1
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            chars.append("'" if nxt == "'" else c + nxt)
            i += 2
            continue
        if c == quote:
            out.append("".join(chars) + '"')
            return i + 1
        # Raw newlines and tabs inside strings are common in file contents; JSON wants escapes.
        chars.append(_STRING_ESCAPES.get(c, c))  # a '"' here sits inside a single-quoted string
        i += 1
    raise _Truncated


def _drop_trailing_comma(out: list[str]) -> None:
    while out and out[-1].isspace():
        out.pop()
    if out and out[-1] == ",":
        out.pop()
