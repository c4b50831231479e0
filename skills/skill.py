"""One skill: a folder holding ``SKILL.md`` in the open Agent Skills format (agentskills.io).

``SKILL.md`` is YAML frontmatter between ``---`` lines (``name`` and ``description``; optional
``license``, ``compatibility``, ``metadata``, ``allowed-tools`` and other agents' extras such as
``argument-hint``, ``disable-model-invocation`` and ``user-invocable``) and a Markdown body.
Real folders are messy, so this reads them as other agents do: a BOM and CRLF endings are
dropped, a value holding an unquoted ``: `` is retried quoted, ``allowed-tools`` may be a list
or a comma- or space-separated string, a missing or odd ``name`` falls back to the folder's,
and an over-long description loads with a warning. Only a missing description or frontmatter
that is still not YAML make a folder unreadable (``SkillError``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

Scope = Literal["project", "user", "bundled"]
SKILL_FILE = "SKILL.md"
MAX_DESCRIPTION = 1024  # the spec's limit; longer ones load with a warning
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_PLAIN_VALUE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):[ \t]+(?P<value>[^\s'\"|>\[{&*!#%@`].*)$")
# allowed-tools items: "Bash(git add:*)" holds a space, so split only outside parentheses.
_TOOL_ITEM = re.compile(r"[^\s,(]+(?:\([^)]*\))?")


class SkillError(Exception):
    """A folder that cannot be read as a skill; the message says why."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    location: Path  # the SKILL.md file; its folder is the skill's root
    scope: Scope
    body: str
    allowed_tools: tuple[str, ...] = ()
    argument_hint: str = ""
    model_invocable: bool = True  # false: disable-model-invocation, kept out of the catalogue
    user_invocable: bool = True
    trusted: bool = True  # false: from a project the user has not trusted; asks before use
    fields: dict[str, Any] = field(default_factory=dict, compare=False)  # the whole frontmatter
    warnings: tuple[str, ...] = ()

    @property
    def root(self) -> Path:
        return self.location.parent


def valid_name(name: str) -> bool:
    """The spec's rule: 1-64 lowercase letters, digits and single hyphens."""
    return len(name) <= 64 and _NAME.fullmatch(name) is not None


def read_skill(location: Path, scope: Scope, *, trusted: bool = True) -> Skill:
    """The skill whose SKILL.md is ``location``; SkillError when it cannot be read."""
    try:
        raw = location.read_bytes()
    except OSError as error:
        raise SkillError(f"cannot read: {error.strerror or error}") from None
    front, body = split_frontmatter(raw.decode("utf-8-sig", errors="replace"))
    data = parse_frontmatter(front)
    warnings: list[str] = []
    description = " ".join(_text(data.get("description")).split())
    if not description:
        raise SkillError("no description in the frontmatter")
    if len(description) > MAX_DESCRIPTION:
        warnings.append(f"description has {len(description)} characters (> {MAX_DESCRIPTION})")
    folder = location.parent.name
    given = _text(data.get("name")).strip() or folder
    name = given if _NAME.fullmatch(given) else _slug(given) or _slug(folder)
    if not name:
        raise SkillError(f"no usable name (got {given!r})")
    if name != given:
        warnings.append(f"name {given!r} is not lowercase letters, digits and hyphens: {name!r}")
    elif name != folder:
        warnings.append(f"name {name!r} differs from its folder {folder!r}")
    return Skill(
        name=name,
        description=description,
        location=location,
        scope=scope,
        body=body.strip() + "\n",
        allowed_tools=tool_list(data.get("allowed-tools", data.get("allowed_tools"))),
        argument_hint=_text(data.get("argument-hint")).strip(),
        model_invocable=not _flag(data.get("disable-model-invocation"), False),
        user_invocable=_flag(data.get("user-invocable"), True),
        trusted=trusted,
        fields=data,
        warnings=tuple(warnings),
    )


def split_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter, body) of a Markdown file; CR and CRLF endings become LF first."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise SkillError("no YAML frontmatter: the file must start with a --- line")
    end = next((n for n in range(1, len(lines)) if lines[n].rstrip() in ("---", "...")), None)
    if end is None:
        raise SkillError("the frontmatter has no closing --- line")
    return "\n".join(lines[1:end]), "\n".join(lines[end + 1 :])


def parse_frontmatter(front: str) -> dict[str, Any]:
    """The frontmatter as a mapping; a top-level value holding ": " unquoted is retried quoted
    (``description: Use this when: x``), as the spec's client guide advises."""
    try:
        data = yaml.safe_load(front)
    except yaml.YAMLError as first:
        try:
            data = yaml.safe_load(_quote_plain_values(front))
        except yaml.YAMLError:
            problem = str(first).splitlines()[0] if str(first) else type(first).__name__
            raise SkillError(f"frontmatter is not valid YAML: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SkillError("the frontmatter is not a mapping of fields")
    return {str(key): value for key, value in data.items()}


def tool_list(value: Any) -> tuple[str, ...]:
    """allowed-tools as a list, or a comma- or space-separated string ("Bash(git:*) Read")."""
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        return tuple(str(item).strip() for item in value if str(item).strip())
    return tuple(_TOOL_ITEM.findall(str(value)))


def _quote_plain_values(front: str) -> str:
    lines = []
    for line in front.split("\n"):
        match = _PLAIN_VALUE.match(line)
        if match and ": " in match["value"]:
            line = f"{match['key']}: {json.dumps(match['value'].strip())}"
        lines.append(line)
    return "\n".join(lines)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _flag(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "on")
    return bool(value)


def _slug(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))
