"""Constrained steps for small models: every reply is one JSON object, a tool call or the answer.

llama-server turns ``response_format`` into a grammar, so a tiny model cannot produce anything
but ``{"name": <tool>, "arguments": {...}}`` with arguments matching that tool's schema. The
answer is one more tool, ``answer``: a 0.5B model picks a tool by name far more readily than it
leaves the call shape (offered ``{"answer": ...}`` beside the calls, it never took it). The tools
are still sent, so the chat template describes them, and past calls in the history render the
same ``{"name", "arguments"}`` shape the model writes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.model.endpoint import ReplyFormat
from agent.model.toolcalls import ParsedCall, call_from_object, loads_lenient

# Appended to the system prompt in constrained mode: the format, and worked tasks, which small
# models follow far better than a description alone. The tasks show calls only, never an answer's
# words: a small model copied a worked answer ("running it printed 5") into reports of runs that
# printed nothing. What a turn did is beecode's to report (``agent.facts``). No config file
# among them: told to change settings.toml, the model edited the guide's app.cfg. Without the
# commit task, "commit ... with the message 'add readme'" became a write of README.md. The fix is
# of shop.py: told to fix calc.py, the model sent the guide's edit of calc.py word for word.
STEP_GUIDE = """

# Reply format
Each reply is one JSON object {"name": <tool>, "arguments": {...}}, one step per reply. Shell
commands (run a program, mv to rename or move a file, echo 'text' >> file to add a line at its
end, wc, git) go to bash. A file in a folder is written as folder/file. To change part of a
file, edit it with old text copied exactly from the file. When the task is done, call answer
and say only what the results showed.
Task "create add.py that prints 2+3, then run it", one reply per turn:
{"name": "write", "arguments": {"path": "add.py", "content": "print(2 + 3)\\n"}}
{"name": "bash", "arguments": {"command": "python3 add.py"}}
Task "rename total to sum in c.py":
{"name": "edit", "arguments": {"path": "c.py", "old": "total", "new": "sum", "replace_all": true}}
{"name": "bash", "arguments": {"command": "python3 c.py"}}
Task "fix the error in shop.py":
{"name": "bash", "arguments": {"command": "python3 shop.py"}}
{"name": "edit", "arguments": {"path": "shop.py", "old": "print(total", "new": "print(total)"}}
{"name": "bash", "arguments": {"command": "python3 shop.py"}}
Task "commit all changes as 'wip'":
{"name": "bash", "arguments": {"command": "git add -A && git commit -m 'wip'"}}"""

# Tools a constrained step does not offer: bash does what they do, in commands a small model has
# seen far more often, and every branch left out makes the choice easier and the grammar smaller.
STEP_LEFT_OUT = frozenset({"glob", "grep", "git", "todo"})

ANSWER = "answer"
Held = tuple[str, dict[str, str]]  # the next step's tool and the arguments its grammar holds
ANSWER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": ANSWER,
        "description": "Finish: tell the user what you did or found, once the task is done.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
}


def step_text(name: str, arguments: dict[str, Any]) -> str:
    """A step as the model sends it, for a note or refusal to give whole: a small model copies
    a whole step far better than it follows a description of one."""
    return json.dumps({"name": name, "arguments": arguments})


def step_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools a constrained request describes: the registry's and ``answer``."""
    return [*tools, ANSWER_TOOL]


# Optional knobs a small model may fill at will: edit's replace_all changes nothing when old is
# unique, and a rename (old everywhere in the file) cannot be done without it.
HARMLESS_KNOBS = frozenset({"replace_all"})


def essential(parameters: dict[str, Any]) -> dict[str, Any]:
    """The arguments schema without optional knobs (numbers, flags, enums). A grammar lets a
    small model fill every optional field, and it does: ``bash`` came back with ``job: 1`` and
    ``action: "read"`` beside its command. Required fields, optional text and the harmless
    knobs stay."""
    properties = parameters.get("properties")
    if parameters.get("type") != "object" or not isinstance(properties, dict):
        return parameters
    required = set(parameters.get("required") or ())
    kept = {
        name: schema
        for name, schema in properties.items()
        if name in required
        or name in HARMLESS_KNOBS
        or not (schema.get("type") in ("integer", "number", "boolean") or "enum" in schema)
    }
    return {**parameters, "properties": kept}


def step_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """One branch per tool the step may call (``answer`` too when it is among them)."""
    branches: list[dict[str, Any]] = []
    for tool in tools:
        function = tool["function"]
        branches.append(
            {
                "type": "object",
                "properties": {
                    "name": {"const": function["name"]},
                    "arguments": essential(function.get("parameters") or {"type": "object"}),
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": branches}


# What one step needs: a call with a small file's content. A 0.5B model, done and not stopping,
# once filled 4,096 tokens with one degenerate step; a capped one ends as an invalid call.
STEP_MAX_TOKENS = 1536


# After a step that may have finished the task, a small model answers this and only this: it
# picks "done" reliably where, offered a free step, it repeated itself or broke good work.
CHOICE_PROMPT = "Is the task done?"
CHOICE_FORMAT = ReplyFormat({"enum": ["done", "continue"]}, "choice", 8)


def step_format(tools: list[dict[str, Any]]) -> ReplyFormat:
    """The reply format of a step that may call one of ``tools``."""
    return ReplyFormat(step_schema(tools), "step", STEP_MAX_TOKENS)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*(?:```)?\s*$", re.S)


def parse_step(text: str) -> str | ParsedCall:
    """The answer text, or the call (with an error when the reply is not a usable step)."""
    match = _FENCE.match(text)
    body = match.group(1) if match else text
    try:
        obj = loads_lenient(body)
    except ValueError as e:
        return ParsedCall("", None, f"the reply is not one JSON step object ({e})")
    if isinstance(obj, dict) and isinstance(obj.get("answer"), str):
        return str(obj["answer"])
    call = call_from_object(obj)
    if call is None:
        return ParsedCall("", None, 'reply with {"name": <tool>, "arguments": {...}}')
    if call.name == ANSWER and call.arguments is not None:
        return str(call.arguments.get("text", ""))
    return call


def with_args(tool: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """The tool with the named arguments held to these values, for the grammar of one step."""
    function = tool["function"]
    parameters = function.get("parameters") or {}
    held = {name: {"type": "string", "const": value} for name, value in values.items()}
    properties = {**parameters.get("properties", {}), **held}
    return {
        **tool,
        "function": {**function, "parameters": {**parameters, "properties": properties}},
    }
