"""A command that replaces a file's content with ``>``, asked about once.

The clobbering-write question (``SmallLedger.clobbering_write``) stops a write that keeps none of
a file's lines; a small model does the same through bash. Told to turn debug on in
settings.toml, the 0.5B model ran `echo 'debug = true' > settings.toml`, and `name = 'app'` was
gone. A command whose ``>`` (not ``>>``) replaces a file of the workspace that holds text is
refused once; the same command again goes through, since replacing it all may be meant. Where
the new line sets a key the file already has, among others, the command is refused every time
with the edit to send, which the next step is held to (where the line is the file's already, the
that the file has that line): the model sent its `echo 'debug = true' > settings.toml` twice,
then `echo 'debug = false' > settings.toml`. A command that appends with ``>>`` and worked is
refused if sent again in the turn: told to append fourth and then count the lines, the model ran
the same `echo fourth >> notes.txt` twice. One that appends a line setting a key the file sets
already is refused every time with the edit: told to turn debug on, the model ran
`echo 'debug = true' >> settings.toml`.
"""

from __future__ import annotations

import re
import shlex

from agent.model.reply import Call
from agent.small.habits import SmallLedger
from agent.small.schema import step_text
from tools.files import workspace_text

# `> file` and `1> file`, not `>>`, `2>`, `&>` or `>&2`
_TARGET = re.compile(r"(?<![>&\d])1?>(?![>&])\s*([^\s;&|<>]+)")
_ECHO = re.compile(r"^\s*(?:echo|printf)\s+(.+?)\s*(?<![\d&>])1?>(?!>)", re.S)
_ECHO_APPEND = re.compile(r"^\s*(?:echo|printf)\s+(.+?)\s*(?<![\d&])1?>>", re.S)
APPENDS = re.compile(r"(?<![>&\d])1?>>\s*([^\s;&|<>]+)")
_KEY = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*[=:]")


def redirect_refusal(call: Call, ledger: SmallLedger) -> str | None:
    """Why this command's ``>`` or ``>>`` is refused or asked about; or None."""
    return clobbering_redirect(call, ledger) or keyed_append(call, ledger)


def clobbering_redirect(call: Call, ledger: SmallLedger) -> str | None:
    """Why this command, which replaces a file's text with ``>``, is asked about; or None."""
    command = (call.arguments or {}).get("command")
    if call.name != "bash" or not isinstance(command, str):
        return None
    for target in _TARGET.findall(command):
        text = workspace_text(ledger.workspace, target)
        if not text or not text.strip():
            continue
        lines = len(text.splitlines())
        args, there = _edit_args(_ECHO.match(command), target, text, ledger)
        edit = step_text("edit", args) if args else None
        if (edit or there) and lines > 1:  # every time
            # The next step is that edit, held by its grammar: sent the edit in words only,
            # the 0.5B model echoed again, and copied the words into its command.
            ledger.pin = ("edit", args) if args else ledger.pin
            what = f"Send: {edit}" if edit else f"{target} has that line already"
            return f"this command replaces all {lines} lines of {target}. {what}"
        if not ledger.asked_once(call):
            continue
        how = f"To change one line, send: {edit}. " if edit else "To add a line, use >>. "
        return (
            f"this command replaces all {lines} lines of {target}. {how}To replace it all, send "
            "the same command again"
        )
    return None


def keyed_append(call: Call, ledger: SmallLedger) -> str | None:
    """Why this command, which appends with ``>>`` a line setting a key its file sets already,
    is refused (the next step held to the edit of that key's line); or None."""
    command = appends(call)
    if command is None:
        return None
    target = APPENDS.findall(command)[0]
    text = workspace_text(ledger.workspace, target) or ""
    args, there = _edit_args(_ECHO_APPEND.match(command), target, text, ledger)
    if args is None and not there:
        return None
    ledger.pin = ("edit", args) if args else ledger.pin
    what = f"Send: {step_text('edit', args)}" if args else f"{target} has that line already"
    return f"{target} sets that key already; this would set it twice. {what}"


def _edit_args(
    echoed: re.Match[str] | None, target: str, text: str, ledger: SmallLedger
) -> tuple[dict[str, str] | None, bool]:
    """The edit of the line that sets the key an echoed line sets, or None; and whether the
    file has the echoed line already (the model echoed `debug = false` over the file too)."""
    try:
        words = shlex.split(echoed.group(1)) if echoed else []
    except ValueError:
        return None, False
    new = " ".join(w for w in words if w not in ("-e", "-n"))
    key = _KEY.match(new)
    if key is None:
        return None, False
    old = [line for line in text.splitlines() if (k := _KEY.match(line)) and k[1] == key[1]]
    if len(old) != 1:
        return None, False
    if old[0].strip() == new.strip():
        return None, True
    return {"path": target, "old": old[0], "new": new}, False


def repeated_append(call: Call, appended: set[str]) -> str | None:
    """Why this command, which appends with ``>>`` as one that worked this turn did, is
    refused; or None. ``appended``: those commands, as ``appends`` gives them."""
    command = appends(call)
    if command is None or command not in appended:
        return None
    target = APPENDS.findall(command)[0]
    return f"this ran already; again, it would add its text to {target} twice. Take the next step"


def appends(call: Call) -> str | None:
    """The command, its spaces flattened, where it appends with ``>>``; else None."""
    command = (call.arguments or {}).get("command")
    if call.name != "bash" or not isinstance(command, str) or not APPENDS.search(command):
        return None
    return " ".join(command.split())
