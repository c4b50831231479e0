"""Progressive disclosure: a compact catalogue for the prompt, the body on activation.

The catalogue is part of the stable prompt prefix: sorted by name, no paths or counts that
change between runs, so it changes only when the skills do. It is capped in tokens: first the
descriptions are shortened, then the tail is dropped, and the last line says so.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

from skills.skill import SKILL_FILE, Skill

CATALOGUE_TOKENS = 1200  # at most this much of every prompt goes to the catalogue
SHORT_DESCRIPTION = 120  # characters a description keeps when the full catalogue is too long
MAX_RESOURCES = 40  # files listed on activation
CATALOGUE_HEAD = (
    "Skills: when the user asks for one, or a task clearly fits one, load it with the skill "
    "tool and follow the steps it returns."
)
_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])(?![0-9])")
_CONTENT = re.compile(r'<skill_content name="[^"]*">.*?</skill_content>', re.S)


def catalogue(skills: list[Skill], count: Callable[[str], int], cap: int = CATALOGUE_TOKENS) -> str:
    """The catalogue text ("" when no skill may be activated by the model)."""
    shown = [s for s in skills if s.model_invocable]
    if not shown:
        return ""
    head = CATALOGUE_HEAD
    full = _lines(head, shown, None)
    if count("\n".join(full)) <= cap:
        return "\n".join(full)
    short = _lines(head, shown, SHORT_DESCRIPTION)
    for keep in range(len(shown), 0, -1):
        left = len(shown) - keep
        tail = [f"({left} more skills not listed: over the {cap}-token cap)"] if left else []
        text = "\n".join(short[: keep + 1] + tail)
        if count(text) <= cap:
            return text
    return f"{head}\n({len(shown)} skills not listed: over the {cap}-token cap)"


def _lines(head: str, skills: list[Skill], limit: int | None) -> list[str]:
    def cut(text: str) -> str:
        if limit is None or len(text) <= limit:
            return text
        return text[: limit - 1].rsplit(" ", 1)[0] + "…"

    return [head, *(f"- {s.name}: {cut(s.description)}" for s in skills)]


def substitute(template: str, arguments: str) -> str:
    """``$ARGUMENTS`` becomes the whole argument string, ``$1``..``$9`` its words (shell
    quoting respected); with no placeholder, non-empty arguments are appended."""
    try:
        words = shlex.split(arguments)
    except ValueError:  # an open quote: plain words will do
        words = arguments.split()

    def value(match: re.Match[str]) -> str:
        key = match[1]
        if key == "ARGUMENTS":
            return arguments
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    if _PLACEHOLDER.search(template):
        return _PLACEHOLDER.sub(value, template)
    if arguments.strip():
        return f"{template.rstrip()}\n\nARGUMENTS: {arguments.strip()}\n"
    return template


def activation(skill: Skill, arguments: str = "") -> str:
    """What the model reads when a skill is activated: the body (frontmatter stripped), and
    where the skill's own files are, listed (not their contents)."""
    body = substitute(skill.body, arguments).strip()
    text = f'<skill_content name="{skill.name}">\n{body}\n</skill_content>\n'
    files = resources(skill.root)
    if files:  # with none, a folder path only tempts a small model to write there
        text += f"The skill's own files, in {skill.root}:\n"
        text += "<skill_resources>\n" + "\n".join(files) + "\n</skill_resources>\n"
    return text


def resources(root: Path) -> list[str]:
    found: list[str] = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and str(relative) != SKILL_FILE and "__pycache__" not in relative.parts:
            found.append(relative.as_posix())
            if len(found) >= MAX_RESOURCES:
                found.append("…")
                break
    return found


def skill_contents(text: str) -> list[str]:
    """The ``<skill_content>`` blocks in a message, so compaction can carry them over."""
    return _CONTENT.findall(text)
