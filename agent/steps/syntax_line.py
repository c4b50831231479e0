"""The line a Python syntax error names, for the edit that fixes it; and an edit that would break
a Python file that compiles (or define a name twice in it), refused.

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
    """Why this edit of a Python file that compiles is refused, when the file would no longer
    compile after it; or None (also where old is not found as it is: the edit says so itself)."""
    args = call.arguments or {}
    old, new, path = args.get("old"), args.get("new"), args.get("path")
    if call.name != "edit" or not isinstance(path, str) or not path.endswith(".py"):
        return None
    if not (isinstance(old, str) and isinstance(new, str)) or not old:
        return None
    text = workspace_text(workspace, path)
    if text is None or old not in text or _error(text) is not None:
        return None
    after = text.replace(old, new) if args.get("replace_all") else text.replace(old, new, 1)
    error = _error(after)
    if error is not None:
        return f"this edit would leave {path} with a SyntaxError ({error}); not made. Keep it valid"
    # Sent again and again, "add multiply" grew a second `def add` returning a * b: the last
    # definition is the one Python keeps.
    twice = sorted(_defined_twice(after) - _defined_twice(text))
    if twice:
        return f"this edit would define {twice[0]} twice in {path}; not made. Define each once"
    return None


def _defined_twice(source: str) -> set[str]:
    """The top-level functions and classes the module defines more than once."""
    names = [
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    return {name for name in names if names.count(name) > 1}


def _error(source: str) -> str | None:
    try:
        compile(source, "<edit>", "exec")
    except (SyntaxError, ValueError) as e:
        return f"line {getattr(e, 'lineno', '?')}: {getattr(e, 'msg', e)}"
    return None
