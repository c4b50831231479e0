"""A command that replaces a file's content with ``>``, asked about once.

The clobbering-write question (``SmallLedger.clobbering_write``) stops a write that keeps none of
a file's lines; a small model does the same through bash. Told to turn debug on in
settings.toml, the 0.5B model ran `echo 'debug = true' > settings.toml`, and `name = 'app'` was
gone. A command whose ``>`` (not ``>>``) replaces a file of the workspace that holds text is
refused once; the same command again goes through, since replacing it all may be meant. Where
the new line sets a key the file already has, among others, the command is refused every time
with the edit to send, which the next step is held to (or where the line is the file's already,
that the file has that line): the model sent its `echo 'debug = true' > settings.toml` twice,
then `echo 'debug = false' > settings.toml`.
"""

from __future__ import annotations

import re
import shlex

from agent.model.reply import Call
from agent.small.habits import SmallLedger
from agent.small.schema import step_text
from agent.small.task_end import KEY_LINE
from tools.files import workspace_text

# `> file` and `1> file`, not `>>`, `2>`, `&>` or `>&2`
_TARGET = re.compile(r"(?<![>&\d])1?>(?![>&])\s*([^\s;&|<>]+)")
_ECHO = re.compile(r"^\s*(?:echo|printf)\s+(.+?)\s*(?<![\d&>])1?>(?!>)", re.S)


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
    key = KEY_LINE.match(new)
    if key is None:
        return None, False
    old = [line for line in text.splitlines() if (k := KEY_LINE.match(line)) and k[1] == key[1]]
    if len(old) != 1:
        return None, False
    if old[0].strip() == new.strip():
        return None, True
    return {"path": target, "old": old[0], "new": new}, False
