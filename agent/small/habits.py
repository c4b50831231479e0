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
- Fix the code, not its test: a change of an existing test file must be sent
  twice (told to make a failing test pass, a small model changes the test's expectation).
- Move with mv, make folders by path: a write copying a file of the same name from elsewhere
  must be sent twice, and the refusal gives the mv command (a small model writes lib/app.py and
  leaves app.py); so must a write of a new file named like a folder (docs, for "docs/index.md"),
  the refusal giving the path in it of the file the task makes.
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
from agent.small.intent import Intent, is_test
from agent.small.schema import step_text
from tools.files import small_text
from tools.paths import move_command
from tools.tool import ToolResult

# Told to fix a syntax error, the 0.5B model ran the file twice, read it twice, and stopped.
FIX_NOTE = "\n[You have seen this already. A step still fails: change the file to fix it.]"
WRITTEN_NOTE = "\n[Already written. Now check it: run it with bash or read it. Or answer.]"
# Only programs wait for a run: told to run a config file it had changed rightly, the 0.5B model
# ran `python3 config.ini`, saw it fail, and undid the change.
PROGRAMS = (".py", ".sh")
FILE_TOOLS = frozenset({"write", "edit"})
# The file a command failed on, from the messages of coreutils, Python and bash: "cp: cannot
# stat 'a.txt'", "python3: can't open file '/w/hi.py'", "bash: ./hello.sh: No such file".
MISSING = re.compile(
    r"(?:cannot (?:stat|access|open)|can't open file) '([^']+)'|([^\s:']+): No such file", re.M
)


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
        self.created: set[Path] = set()  # files this session created: their tests are its own
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

    def test_change(self, call: Call) -> str | None:
        """Why this change of an existing test file must be sent twice, or None."""
        if self.kind(call) != "edit":
            return None
        for path in self._paths(call):
            tests = is_test(path.name) and path.is_file() and path not in self.created
            if tests and self.asked_once(call):
                return (
                    f"{path.name} is a test: to make it pass, change the code it tests, not the "
                    "test. To change the test itself, send the same call again"
                )
        return None

    def folder_write(self, call: Call) -> str | None:
        """Why this write of a new file named like a folder (lowercase, no suffix: docs, not
        VERSION) must be sent twice, or None: told to make a folder docs with index.md in it, a
        small model writes the file docs. The refusal names the path of the file the task makes
        in it, where it names one (a small model copies a path it is given)."""
        name = str((call.arguments or {}).get("path", "")).rstrip("/").rsplit("/", 1)[-1]
        if call.name != "write" or "." in name or not name.islower() or not name.isalpha():
            return None
        if any(p.exists() for p in self._paths(call)) or not self.asked_once(call):
            return None
        made = self.intent.new
        inside = next((f if f.startswith(f"{name}/") else f"{name}/{f}" for f in made), "")
        where = f"write {inside}" if inside else f"write a path in it: {name}/ and the file's name"
        return (
            f"{name} has no suffix. For a folder {name} with a file in it, {where} (the folder "
            f"is made). To write a file named so, send the same write again"
        )

    def copy_write(self, call: Call) -> str | None:
        """Why this write of another file's exact text under the same name must be sent twice,
        or None; the refusal gives the command that moves the file."""
        content = (call.arguments or {}).get("content")
        if call.name != "write" or not isinstance(content, str) or not content.strip():
            return None
        for path in self._paths(call):
            if path.exists():
                continue
            for other in {self.workspace / path.name, path.parent.parent / path.name} - {path}:
                if not other.is_relative_to(self.workspace):
                    continue
                if (small_text(other, SHOWN_FILE_BYTES) or "").strip() != content.strip():
                    continue
                if self.asked_once(call):
                    src, dst = (str(p.relative_to(self.workspace)) for p in (other, path))
                    return (
                        f"this write copies {src}, which stays. To move it, run in bash: "
                        f"{move_command(src, dst, self.workspace)}. To copy it, send the same "
                        "write again"
                    )
        return None

    def missing(self, output: str) -> str | None:
        """The file a failed command's output says is missing, when the workspace lacks it: told
        to "create a.txt, then copy it", a small model runs the copy first, then reads and lists
        the missing file until the turn runs out."""
        root = self.workspace.resolve()
        for found in MISSING.finditer(output):
            path = (root / (found.group(1) or found.group(2))).resolve()
            if path.is_relative_to(root) and path != root and not path.exists():
                return str(path.relative_to(root))
        return None

    def observe(self, call: Call, result: ToolResult) -> None:
        if not result.is_error and result.meta.get("created"):
            self.created.update(self._paths(call))
