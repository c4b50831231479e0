"""The line a Python syntax error names, for the edit that fixes it; and an edit or write that
would break a file that parses (or define a name twice in a Python file), refused.

Told to fix the syntax error in broken.py, the 0.5B model ran the file, saw `line 1 ... def
add(a, b) ... SyntaxError: expected ':'`, then edited the print call on line 5 and ran it again
until the repeat guard stopped the turn. Python names the line; beecode gives it to the model as
the edit's `old`, held by the next step's grammar, so what is left to the model is the fixed line.
Told to make a failing test pass, the same model edited `double(x)` into `print(double(x))`, which
made `def print(double(x)):` of the function's head, and went on editing a file that no longer
compiled: a small model's edit that breaks a file is refused, not made.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from agent.model.reply import Call
from tools.files import workspace_text
from tools.formats import parse_error

_ERRORS = r"(?:SyntaxError|IndentationError|TabError)"
# Python's own report, and the warning of beecode's write and edit on a .py file.
_TRACEBACK = re.compile(
    rf'File "([^"\n]+)", line (\d+)\n(?:[^\n]*\n){{0,3}}?\s*{_ERRORS}: ([^\n]*)'
)
_WARNING = re.compile(rf"Warning: (\S+) line (\d+): {_ERRORS}: ([^\n]*)")


def syntax_line(output: str, workspace: Path) -> tuple[str, str, str] | None:
    """The file of the workspace a syntax error in ``output`` names (relative), its line as the
    edit's ``old`` (unique in the file), and the error; None when there is none to give."""
    root = workspace.resolve()
    for found in [*_TRACEBACK.finditer(output), *_WARNING.finditer(output)]:
        name, number, error = found.groups()
        path = (root / name).resolve()
        text = workspace_text(root, name)
        lines = (text or "").splitlines()
        if not 1 <= int(number) <= len(lines) or not lines[int(number) - 1].strip():
            continue
        line = lines[int(number) - 1]
        old = line.strip() if (text or "").count(line.strip()) == 1 else line
        if (text or "").count(old) == 1:
            return str(path.relative_to(root)), old, error.strip()
    return None


def syntax_note(path: str, old: str, error: str) -> str:
    """The note that gives the line to fix."""
    return f"\n[{path}: {error}, in the line {old!r}. Send the edit of that line, fixed.]"


def breaking_edit(call: Call, workspace: Path) -> str | None:
    """Why this edit or write of a file that parses (Python, TOML, JSON, INI:
    ``tools.formats``) is refused, when the file would no longer parse after it, or a Python
    file would define a name twice; or None (also where old is not found as it is: the edit says
    so itself)."""
    args = call.arguments or {}
    path, after = args.get("path"), None
    if call.name not in ("edit", "write") or not isinstance(path, str):
        return None
    text = workspace_text(workspace, path)
    if text is None or parse_error(path, text) is not None:
        return None
    old, new = args.get("old"), args.get("new")
    if call.name == "write" and isinstance(args.get("content"), str):
        after = args["content"]
    elif isinstance(old, str) and isinstance(new, str) and old and old in text:
        after = text.replace(old, new) if args.get("replace_all") else text.replace(old, new, 1)
    if after is None:
        return None
    this = f"this {call.name}"
    if (error := parse_error(path, after)) is not None:
        error = error.replace(": SyntaxError: ", ": ", 1)  # Python's said as before
        kind = "a SyntaxError" if path.endswith((".py", ".pyw")) else "an error"
        return f"{this} would leave {path} with {kind} ({error}); not made. Keep it valid"
    # Sent again and again, "add multiply" grew a second `def add` returning a * b: the last
    # definition is the one Python keeps.
    twice = sorted(_defined_twice(path, after) - _defined_twice(path, text))
    if twice:
        return f"{this} would define {twice[0]} twice in {path}; not made. Define each once"
    return None


def _defined_twice(path: str, source: str) -> set[str]:
    """The top-level functions and classes a Python module defines more than once."""
    if not path.endswith((".py", ".pyw")):
        return set()
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):  # NUL bytes, which compile's check lets by
        return set()
    names = [
        node.name
        for node in body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    return {name for name in names if names.count(name) > 1}
