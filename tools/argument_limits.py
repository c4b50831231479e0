"""What no tool call's arguments may hold, whatever the tool: nesting deeper than any schema
needs, lone surrogates (not text: no file, pipe or session line can carry them) and NUL bytes
outside file content (no path or command can hold one). Refused with a reason the model can act
on, before permissions, previews or tools see them."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 32
# Fields whose strings are file content, where a NUL byte is data, not a broken path.
CONTENT_FIELDS = frozenset({"content", "old", "new"})


def argument_problem(arguments: Any) -> str | None:
    """None when the arguments are safe to pass on, else what is wrong, naming the field."""
    stack: list[tuple[Any, str, int]] = [(arguments, "", 0)]
    while stack:  # iterative: a deep value must not exhaust the Python stack here either
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"arguments are nested deeper than {MAX_DEPTH} levels (at '{where}')"
        if isinstance(value, dict):
            for key, item in value.items():
                key_problem = _string_problem(str(key), f"{where}{key!s}", content=False)
                if key_problem is not None:
                    return key_problem
                stack.append((item, f"{where}.{key}" if where else str(key), depth + 1))
        elif isinstance(value, list):
            stack += [(item, f"{where}[{n}]", depth + 1) for n, item in enumerate(value)]
        elif isinstance(value, str):
            content = where.rpartition(".")[2] in CONTENT_FIELDS
            problem = _string_problem(value, where, content)
            if problem is not None:
                return problem
    return None


def _string_problem(text: str, where: str, content: bool) -> str | None:
    if not content and "\0" in text:
        return f"field '{where}' holds a NUL byte; no path or command can contain one"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return (
            f"field '{where}' holds a lone surrogate ({text[error.start]!a} at character "
            f"{error.start}), which is not text; send plain characters"
        )
    return None
