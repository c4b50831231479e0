"""Whether a tool call runs, is refused, or waits for the user, and why.

Order of checks: a deny rule refuses; plan mode refuses anything that is not a read; a bash line
that cannot be judged asks when deny rules for bash exist (even in yolo: the rules cannot vouch
for it); an edit under .git/ asks (but in yolo); a path outside the workspace (and outside
extra_roots and every allow rule for that tool) asks, or is refused in plan mode; an allow rule
runs the call; otherwise the mode decides. Even yolo asks before a file tool leaves the workspace.

Rules are "tool(pattern)" with fnmatch globs or a bare tool name (any call). File subjects match
in the given, workspace-relative and absolute forms. A bash line is read by ``shell.judge``:
allow rules must match each of its simple commands whole, and never a line with anything the
judge cannot see through (substitutions, assignments, expansions, eval-like builtins); deny rules
see every form the judge derives. Rules are a convenience, not a sandbox (see SECURITY.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal, get_args

from agent.config import Mode, split_rule
from agent.permissions.globs import path_rule_matches
from agent.permissions.shell import EVAL_LIKE, INTERPRETERS, SHELLS, WRAPPERS, Judgement, judge
from tools.paths import expanded
from tools.tool import Kind

Verdict = Literal["allow", "deny", "ask"]
MODES: tuple[Mode, ...] = get_args(Mode)  # in the order /mode and shift+tab cycle them

_ASSIGNMENTS = re.compile(r"^(?:[A-Za-z_]\w*=\S*\s+)+")
_CRUDE_SPLIT = re.compile(r"&&|\|\||\$\(|[;|&\n()`{}]")
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

    def matches(self, tool: str, unit: Unit) -> bool:
        if not fnmatchcase(tool, self.tool):
            return False
        if self.pattern is None:
            return True
        if isinstance(unit, PathForms):
            if path_rule_matches(self.pattern, unit.relative, unit.absolute):
                return True
            return unit.text is not None and fnmatchcase(unit.text, self.pattern)
        return any(fnmatchcase(s, self.pattern) for s in unit)


@dataclass(frozen=True)
class PathForms:
    """A path as file rules see it (``globs``), and the call's subject when that is no path."""

    relative: str | None  # None: outside the workspace
    absolute: str
    text: str | None = None


Unit = list[str] | PathForms


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
        self._bash_deny = [
            Rule(r.text, r.tool, None) for r in self.deny if fnmatchcase("bash", r.tool)
        ]
        self.workspace = workspace.resolve()
        self.extra_roots = [root.expanduser().resolve() for root in extra_roots]
        self._file_tools: set[str] = set()  # tools seen with paths: allow_always keeps exact paths

    def check(self, tool: str, kind: Kind, subject: str, paths: list[str]) -> Decision:
        if paths:
            self._file_tools.add(tool)
        judged = judge(subject, self.workspace) if tool == "bash" else None
        units = self._units(subject, paths, judged)
        for rule in self.deny:
            if any(rule.matches(tool, unit) for unit in self._deny_units(subject, units, judged)):
                return Decision("deny", f"denied by rule {rule.text}")
        if self.mode == "plan" and kind != "read":
            return Decision(
                "deny",
                f"plan mode is read-only: {tool} was not run. Read and plan, then describe the "
                "change; the user switches mode to carry it out.",
            )
        if (
            judged is not None
            and judged.unknown
            and any(r.matches(tool, []) for r in self._bash_deny)
        ):
            return Decision("ask", f"deny rules cannot judge this command: {judged.unknown[0]}")
        if kind != "read" and self.mode != "yolo" and any(map(self._in_git_dir, paths)):
            # Git's own files hold hooks and configuration that run commands: never by rule.
            return Decision("ask", f"{tool} changes git's own files under .git/")
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

        bash: one rule per not yet allowed simple command (``bash_rule_pattern``), none for a
        line the judge cannot see through; file tools: the exact path; other tools: the
        subject's first word(s) and ``*``, or the bare tool name when the subject is empty.
        """
        if tool in self._file_tools:
            forms = self._forms(Path(subject))
            patterns = [_literal(forms.relative or forms.absolute)]
        elif not subject.strip():
            patterns = []
        elif tool == "bash":
            judged = judge(subject, self.workspace)
            if judged.unknown:
                return f"(no rule kept: {judged.unknown[0]} cannot be allowed by a rule)"
            patterns = [
                pattern
                for words in judged.commands
                if not self._allowing(tool, [[" ".join(words)]])
                for pattern in bash_rule_patterns(words)
            ]
            if not patterns:
                return "(already allowed)"
        else:
            patterns = [command_prefix(subject) + "*"]
        texts = [f"{tool}({pattern})" for pattern in dict.fromkeys(patterns)] or [tool]
        self.allow += [Rule.parse(text) for text in texts]
        if self.remember is not None:
            self.remember(texts)
        return ", ".join(texts)

    def deny_always(self, tool: str, subject: str) -> str:
        """Add a deny rule for this call's exact subject, for this session only (never kept:
        an answer given in an editor's prompt is no config), and return it."""
        pattern = _literal(subject.strip())
        text = f"{tool}({pattern})" if pattern else tool
        self.deny.append(Rule.parse(text))
        if fnmatchcase("bash", tool):
            self._bash_deny.append(Rule(text, tool, None))
        return text

    def outside(self, paths: list[str]) -> list[Path]:
        """Absolute forms of the paths outside the workspace and extra_roots.

        The loop adds an approved one's directory to ToolContext.extra_roots so the tool accepts it.
        """
        roots = [self.workspace, *self.extra_roots]
        resolved = [self._resolve(p) for p in paths]
        return [p for p in resolved if not any(p.is_relative_to(root) for root in roots)]

    def _in_git_dir(self, path: str) -> bool:
        given, resolved = Path(path).parts, self._resolve(path).parts
        return any(part.lower() == ".git" for part in (*given, *resolved))

    def _resolve(self, path: str | Path) -> Path:
        return (self.workspace / expanded(path)).resolve()

    def _forms(self, path: str | Path, text: str | None = None) -> PathForms:
        """A path relative to the workspace (None outside it) and absolute, symlinks resolved."""
        absolute = self._resolve(path)
        inside = absolute.is_relative_to(self.workspace)
        relative = absolute.relative_to(self.workspace).as_posix() if inside else None
        return PathForms(relative, str(absolute), text)

    def _units(self, subject: str, paths: list[str], judged: Judgement | None) -> list[Unit] | None:
        """What rules match against: one unit per part; None: a bash line the judge cannot read."""
        if judged is not None:
            if judged.unknown:
                return None
            return [[" ".join(words)] for words in judged.commands] or [[subject]]
        # File tools: every path must be covered; a subject that is not the path (git's command
        # line) is matched as text too.
        text = None if subject in paths else subject
        return [self._forms(path, text) for path in paths] or [[subject]]

    def _deny_units(
        self, subject: str, units: list[Unit] | None, judged: Judgement | None
    ) -> list[Unit]:
        """Every form deny rules see: the judge's views, the raw line and a crude split of it (a
        line the parser cannot read is still refused when any piece of it is denied)."""
        if judged is None:
            return (units or []) + [[subject]]
        pieces = (_ASSIGNMENTS.sub("", p.strip(" \t\"'")) for p in _CRUDE_SPLIT.split(subject))
        views: list[Unit] = [[view] for view in judged.views]
        return views + [[subject]] + [[p] for p in pieces if p]

    def _allowing(self, tool: str, units: list[Unit] | None) -> list[str]:
        """The allow rules that cover every unit (none if some unit is not covered).

        A bash line the judge cannot see through (units None) is covered only by a bare rule.
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


def bash_rule_patterns(words: list[str]) -> list[str]:
    """Allow patterns that mean what they say: "git status" and "git status *" for a subcommand,
    "make" and "make *" for a plain program, the exact command for anything else (wrappers,
    shells, interpreters and eval-like builtins run whatever their arguments say)."""
    line, name = " ".join(words), words[0]
    if _subcommand(words) or (name.startswith("python") and words[1:2] == ["-m"]):
        prefix = _literal(command_prefix(line))
    elif len(words) == 1 and "/" not in name and name not in _NEVER_GENERALISED:
        prefix = _literal(name)
    else:
        return [_literal(line)]
    return [prefix, f"{prefix} *"]


_NEVER_GENERALISED = WRAPPERS | EVAL_LIKE | SHELLS | INTERPRETERS


def _subcommand(words: list[str]) -> bool:
    """ "git status": a known multi-command tool and a plain subcommand word."""
    return (
        len(words) > 1
        and words[0] in ("git", "npm", "cargo", "go", "uv", "poetry")
        and bool(_SUBCOMMAND.fullmatch(words[1]))
    )


def _literal(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)  # escape glob characters
