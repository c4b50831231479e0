"""Real hook scripts for the hook tests: each a Python file in the test's tmp dir that keeps what
it was given (stdin's JSON, its cwd and CLAUDE_PROJECT_DIR) and answers as told."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SCRIPT = """import json, os, sys
event = json.load(sys.stdin)
event["_cwd"] = os.getcwd()
event["_project"] = os.environ.get("CLAUDE_PROJECT_DIR")
event["_beecode_project"] = os.environ.get("BEECODE_PROJECT_DIR")
with open({log!r}, "a") as log:
    log.write(json.dumps(event) + "\\n")
{body}
"""


def hook_script(folder: Path, name: str, body: str = "") -> tuple[str, Path]:
    """(the command that runs it, the log of the events it was given); ``body`` is Python
    run after the event is kept (print, sys.stderr.write, sys.exit...)."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{name}.log"
    script = folder / f"{name}.py"
    script.write_text(SCRIPT.format(log=str(log), body=body))
    return f"{sys.executable} {script}", log


def given(log: Path) -> list[dict[str, Any]]:
    """The events the hook was given, in order (none when it never ran)."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def settings(
    ws: Path, event: str, command: str, matcher: str = "", *, local: bool = False, **hook: Any
) -> None:
    """Claude Code's project settings with one hook (added to what the file holds)."""
    path = ws / ".claude" / ("settings.local.json" if local else "settings.json")
    path.parent.mkdir(exist_ok=True)
    data = json.loads(path.read_text()) if path.exists() else {"hooks": {}}
    entry = {"type": "command", "command": command, **hook}
    data["hooks"].setdefault(event, []).append({"matcher": matcher, "hooks": [entry]})
    path.write_text(json.dumps(data))
