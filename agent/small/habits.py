"""Work habits kept for a small model, which does not keep them on its own (read before
changing and the repeat guard hold for every model: ``agent.loop``).

- Do not loop: a call that failed twice the same way also takes its tool out of the steps that
  follow until a file changes, which forces a different action; a look repeated while that
  failure waits for its fix takes the looking tool out of the next step.
- Check your work: writing the same program change twice takes the file
  tools out of the next step (run or read it instead), and an answer right after a program
  changed is set aside once for a step that must be a tool call (small models claim results they
  never saw); so is an answer while a call keeps failing or right after one failed (small models
  give up one step short of the fix). A text file written or edited is checked by its result.
- Lose nothing: a write that would replace a file's content with text keeping
  none of its lines must be sent twice (asked to add a function, a small model writes just it).
- Copy the file, not its view: a file's lines given with the numbers of the read that showed
  them are refused, with the step to send without them.
- Make folders by path: a write of a new file named like a folder (docs, for "docs/index.md") is
  refused for the path in it of the file the task names, and asked about once where it names
  none.
- Know when to stop: a 0.5B model seldom picks the answer step; it repeats
  its last successful call. That repeat (same call, same result) ends the turn with its report.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent.loop.reads import SHOWN_FILE_BYTES, Reads
from agent.loop.repeats import DONE_NOTE, MAX_REPEATS, REPEAT_NOTE, Repeats, failed
from agent.model.reply import Call
from agent.small.intent import Intent
from agent.small.schema import step_text
from tools.files import small_text, workspace_text
from tools.tool import ToolResult

# Told to fix a syntax error, the 0.5B model ran the file twice, read it twice, and stopped.
FIX_NOTE = "\n[You have seen this already. A step still fails: change the file to fix it.]"
WRITTEN_NOTE = "\n[Already written. Now check it: run it with bash or read it. Or answer.]"
# Only programs wait for a run: told to run a config file it had changed rightly, the 0.5B model
# ran `python3 config.ini`, saw it fail, and undid the change.
PROGRAMS = (".py", ".sh")
FILE_TOOLS = frozenset({"write", "edit"})
# A line as beecode's numbered view shows it, copied: "1\tline one", "2 line two", "3: x"
_NUMBERED = re.compile(r"^\s*(\d+)(?:\t|[:.)]?[ \t])(.*)$")


class TurnWatch(Repeats):
    """The repeat guard, with what a small model's steps need of it: the tools to leave out of
    the next step, and whether an answer now is to wait."""

    def __init__(self) -> None:
        super().__init__()
        self.unchecked_edit = False  # a file changed and nothing ran or read since
        self.nudged = False
        self.settled = False  # a successful call was repeated with the same result
        self.banned: frozenset[str] = frozenset()  # tools the next step may not use
        # Tools whose call failed twice the same way: they stay out of the steps until a file
        # changes, since until then the same call would fail the same way.
        self.failing: frozenset[str] = frozenset()
        self.retried = False
        self.last_failed = False  # the latest call failed

    def observe(self, call: Call, kind: str | None, result: ToolResult) -> str:
        """Record a result; returns a note to append to it for the model (or "")."""
        now_failed = failed(result)
        self.last_failed = now_failed
        if not result.is_error:
            # A text file written or edited holds what the call said: its result is the check.
            # A program is checked by running it.
            self.unchecked_edit = kind == "edit" and _is_program(call)
            self.failing = frozenset() if kind == "edit" else self.failing
        count, first_failed = self.count(call, kind, result)
        if count != MAX_REPEATS - 1:
            return ""
        # A small model ignores a note; taking a tool away for one step it cannot ignore.
        if first_failed and now_failed:
            self.failing |= {call.name}
            return REPEAT_NOTE
        if self.unchecked_edit:  # the same change again: it means "done", but nothing ran it
            self.banned = FILE_TOOLS
            return WRITTEN_NOTE
        if self.failing:  # the same look again while a failed step waits for its fix: not done
            self.banned = frozenset({call.name})
            return FIX_NOTE
        self.settled = True
        return DONE_NOTE

    def take_banned(self) -> frozenset[str]:
        """The tools the next constrained step may not use."""
        banned, self.banned = self.banned, frozenset()
        return banned | self.failing

    def answer_waits(self) -> bool:
        """Whether an answer now is to be set aside for one more step that calls a tool: right
        after a file change (small models claim results they never saw), or while a call keeps
        failing or just failed (they give up one step short of the fix). Each reason once per
        turn."""
        return (self.unchecked_edit and not self.nudged) or (
            (bool(self.failing) or self.last_failed) and not self.retried
        )

    def set_answer_aside(self) -> None:
        """Record that an answer was set aside, for the first reason that applies."""
        if self.unchecked_edit and not self.nudged:
            self.nudged = True
        else:
            self.retried = True


def _is_program(call: Call) -> bool:
    return str((call.arguments or {}).get("path", "")).endswith(PROGRAMS)


class SmallLedger:
    """The session's reads (``agent.loop.reads``) with what the small-model checks keep."""

    def __init__(self, reads: Reads) -> None:
        self.reads, self.registry, self.workspace = reads, reads.registry, reads.workspace
        # Calls refused once: the same call again goes through, since then it is meant.
        self.asked: set[str] = set()
        self.intent = Intent("")  # the turn's task, as rules may read it
        self.pin: tuple[str, dict[str, str]] | None = None  # the step a refusal gave: tool, args

    def kind(self, call: Call) -> str | None:
        return self.reads.kind(call)

    def _paths(self, call: Call) -> list[Path]:
        return self.reads.paths(call)

    def clobbering_write(self, call: Call) -> str | None:
        """Why this write must be sent twice, or None: it would replace a file's content with
        text that keeps none of its lines. The same write again goes through: replacing it all
        may be meant."""
        args = call.arguments or {}
        content = args.get("content")
        if self.kind(call) != "edit" or not isinstance(content, str):
            return None
        for path in self._paths(call):
            old = small_text(path, SHOWN_FILE_BYTES) or ""
            kept = {line.strip() for line in old.splitlines()} - {""}
            # A one-line file rewritten whole is a fix more often than a loss.
            if len(kept) < 2 or kept & {line.strip() for line in content.splitlines()}:
                continue
            if not self.asked_once(call):
                return None
            whole = old if old.endswith("\n") else old + "\n"  # then the step, last: it is copied
            step = {"path": str(args.get("path")), "content": f"{whole}\n{content}"}
            return (
                f"this write would replace all of {path.name}, keeping none of its lines. "
                f"To replace it all, send the same write again. To add to the file, send: "
                f"{step_text('write', step)}"
            )
        return None

    def asked_once(self, call: Call) -> bool:
        """Whether this exact call is new, and now recorded (refused once, it goes through)."""
        said = f"{call.name} {json.dumps(call.arguments, sort_keys=True)}"
        new = said not in self.asked
        self.asked.add(said)
        return new

    def folder_write(self, call: Call) -> str | None:
        """Why this write of a new file named like a folder (lowercase, no suffix: docs, not
        VERSION) is refused, or None: told to make a folder docs with index.md in it, a small
        model writes the file docs. Where the task names a new file, the file in the folder is
        meant: the refusal names its path and the next step is held to it (told "send the same
        write again" to write a file so named, the 0.5B model did); else it is asked once."""
        name = str((call.arguments or {}).get("path", "")).rstrip("/").rsplit("/", 1)[-1]
        if call.name != "write" or "." in name or not name.islower() or not name.isalpha():
            return None
        made = [f for f in self.intent.new if "." in f.rsplit("/", 1)[-1]]
        inside = next((f if f.startswith(f"{name}/") else f"{name}/{f}" for f in made), "")
        if any(p.exists() for p in self._paths(call)) or not (inside or self.asked_once(call)):
            return None
        if inside:
            self.pin = ("write", {"path": inside})
            return f"{name} has no suffix: write {inside}, the file the task names (in its folder)"
        return (
            f"{name} has no suffix. For a folder {name} with a file in it, write a path in it: "
            f"{name}/ and the file's name (the folder is made). To write a file named so, send the "
            "same write again"
        )

    def numbered_copy(self, call: Call) -> str | None:
        """Why a write or edit that gives a file's lines with the numbers of beecode's numbered
        view (``1\tline one``) is refused, with the step to send without them; or None. Told to
        put a line on top of readme.txt, the 0.5B model wrote "1 line one\n2 line two" over it,
        copying the file as it was shown with the task."""
        args = call.arguments or {}
        key = "content" if call.name == "write" else "new"
        text, path = args.get(key), args.get("path")
        if call.name not in ("write", "edit") or not isinstance(text, str):
            return None
        lines = (workspace_text(self.workspace, str(path)) or "").splitlines()
        out, numbered = [], 0
        for line in text.splitlines():
            found = _NUMBERED.match(line)
            at = int(found[1]) if found else 0
            if found and 1 <= at <= len(lines) and found[2].strip() == lines[at - 1].strip() != "":
                out.append(lines[at - 1])
                numbered += 1
            else:
                out.append(line)
        if not numbered:
            return None
        fixed = "\n".join(out) + ("\n" if text.endswith("\n") else "")
        step = step_text(call.name, {**args, key: fixed})
        return f"the numbers before the lines are the read's, not the file's. Send: {step}"
