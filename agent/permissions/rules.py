"""Whether a tool call runs, is refused, or waits for the user, and why.

Order of checks: a deny rule refuses; plan mode refuses anything that is not a read; a path outside
the workspace (and outside extra_roots and every allow rule for that tool) asks, or is refused in
plan mode; an allow rule runs the call; otherwise the mode decides. Even yolo asks before a file
tool leaves the workspace: yolo means "run everything in this project", not "anywhere on disk".

Rules are "tool(pattern)" with fnmatch globs (``*`` also crosses ``/``) or a bare tool name (any
call). File subjects match in the given, workspace-relative and absolute forms. A bash command is
split into its simple commands (at ``&&``, ``||``, ``;``, ``|``, ``&``, newlines, parentheses and
``$(``), so ``git status && rm -rf /`` cannot ride on ``bash(git status*)``: every part must be
allowed for an allow rule to apply, and any denied part denies the whole. Rules are a convenience
for approving routine calls, not a sandbox: ``bash -c '...'`` or ``eval`` hide their commands.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal

from agent.config import Mode, split_rule
from tools.paths import expanded
from tools.tool import Kind

Verdict = Literal["allow", "deny", "ask"]

_SEPARATOR_CHARS = ";&|()\n`"
# A leading VAR=value does not change which command runs: "FOO=1 rm -rf /" is rm.
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")
_ASSIGNMENTS = re.compile(r"^(?:[A-Za-z_]\w*=\S*\s+)+")
_CRUDE_SPLIT = re.compile(r"&&|\|\||\$\(|[;|&\n()`]")
# A plain subcommand word ("status" in "git status"), as opposed to a flag, path or argument.
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9_-]*")


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str  # for the session log, and for the model when the call is denied


@dataclass(frozen=True)
class Rule:
    text: str
    tool: str
    pattern: str | None  # None: any call of the tool

    @classmethod
    def parse(cls, text: str) -> Rule:
        tool, pattern = split_rule(text)
        return cls(text, tool, pattern)

    def matches(self, tool: str, subjects: list[str]) -> bool:
        if not fnmatchcase(tool, self.tool):
            return False
        return self.pattern is None or any(fnmatchcase(s, self.pattern) for s in subjects)


def bash_parts(command: str) -> list[str] | None:
    """The simple commands of a command line, leading assignments dropped; None if unparseable.

    Command substitution inside double quotes is not split by the lexer, so a part still holding
    ``$(`` or a backtick makes the line unparseable: no allow rule can vouch for it.
    """
    # "<>" are punctuation too so "2>&1" stays one redirection token instead of splitting at "&".
    lexer = shlex.shlex(command, posix=True, punctuation_chars=_SEPARATOR_CHARS + "<>")
    lexer.whitespace, lexer.whitespace_split, lexer.commenters = " \t\r", True, ""
    parts: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and set(token) <= set(_SEPARATOR_CHARS):
                parts.append([])
            elif "$(" in token or "`" in token:
                return None
            elif parts[-1] or not _ASSIGNMENT.match(token):
                parts[-1].append(token)
    except ValueError:  # unbalanced quotes
        return None
    return [" ".join(words) for words in parts if words]


def command_prefix(part: str) -> str:
    """The words that name what a simple command does: "git status", "python3 -m pytest", "ls"."""
    words = part.split()
    taken = words[:1]
    rest = words[1:]
    if words[0].startswith("python") and rest[:1] == ["-m"] and len(rest) > 1:
        taken += rest[:2]
    elif rest and _SUBCOMMAND.fullmatch(rest[0]):
        taken.append(rest[0])
    return " ".join(taken)


class Permissions:
    def __init__(
        self,
        mode: Mode,
        allow: list[str],
        deny: list[str],
        workspace: Path,
        extra_roots: list[Path],
        remember: Callable[[list[str]], None] | None = None,
    ) -> None:
        """``remember``: keeps the rules allow_always adds for later sessions."""
        self.mode: Mode = mode  # settable at run time (/mode)
        self.remember = remember
        self.allow = [Rule.parse(text) for text in allow]
        self.deny = [Rule.parse(text) for text in deny]
        self.workspace = workspace.resolve()
        self.extra_roots = [root.expanduser().resolve() for root in extra_roots]
        self._file_tools: set[str] = set()  # tools seen with paths: allow_always keeps exact paths

    def check(self, tool: str, kind: Kind, subject: str, paths: list[str]) -> Decision:
        if paths:
            self._file_tools.add(tool)
        units = self._units(tool, subject, paths)
        for rule in self.deny:
            if any(rule.matches(tool, unit) for unit in self._deny_units(tool, subject, units)):
                return Decision("deny", f"denied by rule {rule.text}")
        if self.mode == "plan" and kind != "read":
            return Decision(
                "deny",
                f"plan mode is read-only: {tool} was not run. Read and plan, then describe the "
                "change; the user switches mode to carry it out.",
            )
        outside = [p for p in self.outside(paths) if not self._allowing(tool, [self._forms(p)])]
        if outside:
            where = f"{outside[0]} is outside the workspace {self.workspace}"
            if self.mode == "plan":
                return Decision("deny", f"plan mode: {where}")
            return Decision("ask", where)
        rules = self._allowing(tool, units)
        if rules:
            return Decision("allow", f"allowed by rule {', '.join(rules)}")
        if kind == "read" or self.mode == "yolo" or (self.mode == "auto-edit" and kind == "edit"):
            return Decision("allow", f"{self.mode} mode runs {kind} calls")
        return Decision("ask", f"{self.mode} mode asks before {kind} calls")

    def allow_always(self, tool: str, subject: str) -> str:
        """Add allow rules that cover this call next time, and return them (comma-separated).

        bash: one rule per not yet allowed simple command, its prefix and ``*`` ("git status*");
        file tools: the exact path; other tools: the subject's first word(s) and ``*``, or the
        bare tool name when the subject is empty.
        """
        if tool in self._file_tools:
            path = self._forms(Path(subject))[1]
            patterns = [re.sub(r"([*?\[])", r"[\1]", path)]  # literal: escape glob characters
        elif not subject.strip():
            patterns = []
        else:
            parts = bash_parts(subject) if tool == "bash" else [subject]
            patterns = [
                command_prefix(part) + "*"
                for part in parts or [subject]
                if not self._allowing(tool, [[part]])
            ]
        texts = [f"{tool}({pattern})" for pattern in dict.fromkeys(patterns)] or [tool]
        self.allow += [Rule.parse(text) for text in texts]
        if self.remember is not None:
            self.remember(texts)
        return ", ".join(texts)

    def outside(self, paths: list[str]) -> list[Path]:
        """Absolute forms of the paths outside the workspace and extra_roots.

        The loop adds an approved one's directory to ToolContext.extra_roots so the tool accepts it.
        """
        roots = [self.workspace, *self.extra_roots]
        resolved = [self._resolve(p) for p in paths]
        return [p for p in resolved if not any(p.is_relative_to(root) for root in roots)]

    def _resolve(self, path: str | Path) -> Path:
        return (self.workspace / expanded(path)).resolve()

    def _forms(self, path: str | Path) -> list[str]:
        """A path as given, as a workspace-relative path when inside, and absolute."""
        absolute = self._resolve(path)
        inside = absolute.is_relative_to(self.workspace)
        relative = str(absolute.relative_to(self.workspace)) if inside else str(absolute)
        return [str(path), relative, str(absolute)]

    def _units(self, tool: str, subject: str, paths: list[str]) -> list[list[str]] | None:
        """What rules match against: one list of subject forms per part; None: bash unparseable."""
        if tool == "bash":
            parts = bash_parts(subject)
            return None if parts is None else [[part] for part in parts] or [[subject]]
        # File tools: every path must be covered (by the rule's subject or the path's forms).
        return [[subject, *self._forms(path)] for path in paths] or [[subject]]

    def _deny_units(
        self, tool: str, subject: str, units: list[list[str]] | None
    ) -> list[list[str]]:
        """Units for deny rules, plus the raw line and a crude split: a line the lexer cannot parse
        ("$(" inside quotes, an open quote) is still refused when any piece of it is denied."""
        extra = [[subject]]
        if tool == "bash":
            pieces = (_ASSIGNMENTS.sub("", p.strip(" \t\"'")) for p in _CRUDE_SPLIT.split(subject))
            extra += [[piece] for piece in pieces if piece]
        return (units or []) + extra

    def _allowing(self, tool: str, units: list[list[str]] | None) -> list[str]:
        """The allow rules that cover every unit (none if some unit is not covered).

        An unparseable bash line (units None) is covered only by a bare rule for the tool.
        """
        if units is None:
            return [r.text for r in self.allow if r.pattern is None and r.matches(tool, [])][:1]
        used: list[str] = []
        for unit in units:
            rule = next((r for r in self.allow if r.matches(tool, unit)), None)
            if rule is None:
                return []
            used += [rule.text] if rule.text not in used else []
        return used
