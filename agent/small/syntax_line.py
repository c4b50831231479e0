"""The line a Python syntax error names, for the edit that fixes it.

Told to fix the syntax error in broken.py, the 0.5B model ran the file, saw `line 1 ... def
add(a, b) ... SyntaxError: expected ':'`, then edited the print call on line 5 and ran it again
until the repeat guard stopped the turn. Python names the line; beecode gives it to the model as
the edit's `old`, held by the next step's grammar, so what is left to the model is the fixed line.
"""

from __future__ import annotations

import re
from pathlib import Path

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
