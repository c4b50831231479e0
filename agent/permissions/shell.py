"""What a bash command line runs, read with a real shell parser (bashlex), for permission rules.

``judge`` returns the simple commands as written (allow rules must match each one whole), every
form of them deny rules should see (grouping opened, quoting removed, ANSI-C quotes decoded, brace
expansion done, ``$IFS`` as a space, wrappers such as ``env``/``xargs``/``sudo`` peeled, program
paths reduced to their name, ``find -exec``/``-delete`` and ``bash -c``/``eval`` strings read), and
the reasons, if any, why the line cannot be judged: then it asks, and no allow rule vouches for it.
Reading text is never complete (a variable can hold any command name); that is what ``unknown`` is
for, and why deny rules are no sandbox.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bashlex

# Programs that run another command given as their arguments.
WRAPPERS = frozenset(
    "command builtin env exec nohup time nice timeout sudo doas xargs stdbuf ionice setsid "
    "chrt taskset flock watch strace ltrace busybox unbuffer chroot su runuser script".split()
)
# Programs that run a string as shell code, or change how later commands are found and run.
EVAL_LIKE = frozenset(
    "eval source . exec alias unalias export declare typeset local readonly set shopt trap "
    "enable hash unset bind coproc".split()
)
SHELLS = frozenset("bash sh zsh dash ksh mksh ash fish csh tcsh".split())
# Allow always never generalises these to "name*": any argument can make them run anything.
INTERPRETERS = frozenset(
    "python python3 node deno perl ruby php lua awk gawk sed find git make npx npm".split()
)
SAFE_REDIRECT_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_BRACE = re.compile(r"\{([^{}]*)\}")
_IFS = re.compile(r"\$\{IFS[^}]*\}|\$IFS\b")
_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'")
_MAX_VIEWS = 256


@dataclass
class Judgement:
    commands: list[list[str]] = field(default_factory=list)  # as written, for allow rules
    views: list[str] = field(default_factory=list)  # every form deny rules match against
    unknown: list[str] = field(default_factory=list)  # why no allow rule may vouch for the line


def judge(command: str, workspace: Path) -> Judgement:
    result = Judgement()
    _walk_source(command, workspace, result, keep=True)
    seen_for_deny = _deny_source(command)
    if seen_for_deny != command:
        _walk_source(seen_for_deny, workspace, result, keep=False)
    result.views = list(dict.fromkeys(result.views))[:_MAX_VIEWS]
    return result


def _deny_source(command: str) -> str:
    """The line as deny rules read it: $IFS as a space, ANSI-C quotes as plain quoted text."""
    spaced = _IFS.sub(" ", command)
    return _ANSI_C.sub(lambda m: _single_quoted(_ansi_c(m.group(1))), spaced)


def _ansi_c(body: str) -> str:
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return body


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _walk_source(source: str, workspace: Path, into: Judgement, keep: bool, depth: int = 0) -> None:
    """Parse and walk; ``keep``: record commands and unknowns (False: views only)."""
    scratch = Judgement()
    try:
        trees = bashlex.parse(source)
    except Exception as error:  # bashlex raises ParsingError, NotImplementedError and others
        scratch.unknown.append(f"the shell parser cannot read it ({type(error).__name__})")
    else:
        walker = _Walker(source, workspace, scratch, depth)
        for tree in trees:
            walker.node(tree)
    into.views += scratch.views
    if keep:
        into.commands += scratch.commands
        into.unknown += scratch.unknown


class _Walker:
    def __init__(self, source: str, workspace: Path, out: Judgement, depth: int) -> None:
        self.source, self.workspace, self.out, self.depth = source, workspace, out, depth

    def node(self, node: Any) -> None:
        kind = node.kind
        if kind == "command":
            self.command(node)
        elif kind in ("list", "pipeline"):
            self.nodes(node.parts)
        elif kind == "compound":
            self.nodes(node.list)
            self.nodes(getattr(node, "redirects", []))
        elif kind == "redirect":
            self.redirect(node)
        elif kind in ("operator", "pipe", "reservedword"):
            return
        elif kind in ("for", "if", "while", "until", "function"):
            self.out.unknown.append(f"a {kind} construct")
            self.nodes(node.parts)
        elif kind == "word":
            self.word(node, first=False)
        else:
            self.out.unknown.append(f"a {kind} node")

    def nodes(self, nodes: list[Any]) -> None:
        for node in nodes:
            self.node(node)

    def command(self, node: Any) -> None:
        words: list[str] = []
        for part in node.parts:
            if part.kind == "assignment":
                self.out.unknown.append(f"an assignment before the command ({part.word})")
                self.word(part, first=False)
            elif part.kind == "word":
                words += self.word(part, first=not words)
            elif part.kind == "redirect":
                self.redirect(part)
            else:
                self.node(part)
        if not words:
            return
        self.out.commands.append(words)
        name = os.path.basename(words[0])
        if name in EVAL_LIKE:
            self.out.unknown.append(f"{name} runs or redefines commands")
        if name in SHELLS and any(w.startswith("-") and "c" in w for w in words[1:]):
            self.out.unknown.append(f"{name} -c runs a string as a command")
        for view in self.unwrap(words, 0):
            self.out.views.append(" ".join(view))

    def word(self, node: Any, first: bool) -> list[str]:
        """The word's value(s) after brace expansion; expansions inside it make the line unknown."""
        for part in getattr(node, "parts", []):
            if part.kind in ("commandsubstitution", "processsubstitution"):
                self.out.unknown.append(f"a {part.kind.replace('substitution', ' substitution')}")
                self.node(part.command)
            elif part.kind == "parameter":
                where = "the command name" if first else "an argument"
                self.out.unknown.append(f"a variable or expansion in {where}")
            elif part.kind != "tilde" or first:
                self.out.unknown.append(f"a {part.kind} expansion")
        raw = self.source[node.pos[0] : node.pos[1]]
        if not _BRACE.search(raw):
            return [node.word]
        if any(quote in raw for quote in "'\"\\"):
            self.out.unknown.append("brace expansion mixed with quoting")
        return expand_braces(node.word)

    def redirect(self, node: Any) -> None:
        target = node.output
        if node.type in ("<<", "<<-") or isinstance(target, int) or target is None:
            return
        self.word(target, first=False)
        if node.type == "<<<":  # a here-string is text, not a path
            return
        path = Path(os.path.expanduser(target.word))
        full = Path(os.path.normpath(self.workspace / path))
        if str(path) in SAFE_REDIRECT_TARGETS:
            return
        try:
            resolved = full.resolve()
        except (OSError, RuntimeError, ValueError):
            resolved = full
        if not resolved.is_relative_to(self.workspace) or not full.is_relative_to(self.workspace):
            self.out.unknown.append(f"a redirection to {target.word}, outside the workspace")
        elif ".git" in resolved.relative_to(self.workspace).parts:
            self.out.unknown.append(f"a redirection into git's own files ({target.word})")

    def unwrap(self, words: list[str], depth: int) -> list[list[str]]:
        """The command, plus the commands it runs through wrappers, find and inner shell strings."""
        if not words or depth > 6:
            return []
        name, args = os.path.basename(words[0]), words[1:]
        views = [words, [name, *args]] if name != words[0] else [words]
        if name in WRAPPERS:
            # Which arguments a wrapper's options take is not modelled: every suffix is a command.
            for start in range(len(args)):
                if not re.fullmatch(r"[A-Za-z_]\w*=.*", args[start]):
                    views += self.unwrap(args[start:], depth + 1)
        if name == "find":
            views += self.find(args, depth)
        inner = _inner_script(name, args)
        if inner is not None and self.depth < 4:
            nested = Judgement()
            _walk_source(inner, self.workspace, nested, keep=True, depth=self.depth + 1)
            _walk_source(
                _deny_source(inner), self.workspace, nested, keep=False, depth=self.depth + 1
            )
            views += [view.split() for view in nested.views]
        return views

    def find(self, args: list[str], depth: int) -> list[list[str]]:
        views: list[list[str]] = []
        starts = [
            a for a in args[: next((i for i, a in enumerate(args) if a[:1] in "-(!"), len(args))]
        ]
        if "-delete" in args:
            views.append(["rm", "-rf", *starts])
        for i, arg in enumerate(args):
            if arg in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(i + 1, len(args)) if args[j] in (";", "+")), len(args))
                run = [a for a in args[i + 1 : end] if a != "{}"]
                views += [
                    v for start in range(len(run)) for v in self.unwrap(run[start:], depth + 1)
                ]
        return views


def _inner_script(name: str, args: list[str]) -> str | None:
    """The shell code a command runs from a string: ``bash -c CODE``, ``eval ARGS``."""
    if name == "eval":
        return " ".join(args)
    if name in SHELLS:
        for i, arg in enumerate(args[:-1]):
            if arg.startswith("-") and "c" in arg:
                return args[i + 1]
    return None


def expand_braces(word: str, limit: int = 64) -> list[str]:
    """Bash brace expansion of one word ("r{m,x}" -> rm rx; "{1..3}"), innermost first."""
    for match in _BRACE.finditer(word):
        body = match.group(1)
        if "," in body:
            choices = body.split(",")
        elif (bounds := re.fullmatch(r"(-?\d+)\.\.(-?\d+)", body)) is not None:
            low, high = int(bounds[1]), int(bounds[2])
            step = 1 if high >= low else -1
            choices = [str(n) for n in range(low, high + step, step)][:limit]
        elif (letters := re.fullmatch(r"(\w)\.\.(\w)", body)) is not None:
            low, high = ord(letters[1]), ord(letters[2])
            choices = [chr(c) for c in range(min(low, high), max(low, high) + 1)][:limit]
        else:
            continue
        out: list[str] = []
        for choice in choices:
            out += expand_braces(word[: match.start()] + choice + word[match.end() :], limit)
            if len(out) >= limit:
                break
        return out[:limit]
    return [word]
