"""``beecode skills list | show NAME | new NAME [--user]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent.commands.load import listing, load
from agent.config import ConfigError, load_config
from server.paths import config_dir
from skills.disclose import resources
from skills.skill import SKILL_FILE, SkillError, read_skill, valid_name

TEMPLATE = """\
---
name: {name}
description: Say what this skill does and when to use it (the model sees only this line).
argument-hint: "[what to pass]"
---
1. First step, in the imperative. $ARGUMENTS is what follows /{name}; $1..$9 its words.
2. Name any helper by its path in this folder: scripts/, references/, assets/.
"""
_NAME_RULE = "1-64 lowercase letters, digits and single hyphens"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="beecode skills", description=__doc__)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="every skill and custom command, where from, what was skipped")
    show = sub.add_parser("show", help="one skill: its fields, files and body")
    show.add_argument("name")
    new = sub.add_parser("new", help="scaffold a skill in .beecode/skills/ (--user: config dir)")
    new.add_argument("name")
    new.add_argument("--user", action="store_true", help="in beecode's config dir instead")
    try:
        options = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    workspace = Path.cwd()
    if options.action == "new":
        return _new(workspace, options.name, options.user)
    try:
        loaded = load(workspace, load_config(workspace))
    except ConfigError as e:
        print(f"beecode: {e}", file=sys.stderr)
        return 2
    if options.action == "list":
        print("\n".join(listing(loaded)))
        return 0
    skill = loaded.skills.get(options.name)
    if skill is None:
        print(f"beecode: no skill named {options.name!r} (beecode skills list)", file=sys.stderr)
        return 1
    print(f"name: {skill.name}\nscope: {skill.scope}\nlocation: {skill.location}")
    print(f"description: {skill.description}")
    for key, value in skill.fields.items():
        if key not in ("name", "description"):
            print(f"{key}: {value}")
    for warning in skill.warnings:
        print(f"warning: {warning}")
    files = resources(skill.root)
    if files:
        print("files: " + ", ".join(files))
    print("\n" + skill.body.rstrip())
    return 0


def _new(workspace: Path, name: str, user: bool) -> int:
    if not valid_name(name):
        print(f"beecode: {name!r} is not a skill name ({_NAME_RULE})", file=sys.stderr)
        return 2
    base = config_dir() / "skills" if user else workspace / ".beecode" / "skills"
    folder = base / name
    target = folder / SKILL_FILE
    if target.exists():
        print(f"beecode: {target} exists already", file=sys.stderr)
        return 1
    folder.mkdir(parents=True, exist_ok=True)
    target.write_text(TEMPLATE.format(name=name), encoding="utf-8")
    try:
        skill = read_skill(target, "user" if user else "project")
    except SkillError as e:  # cannot happen with the template; says so if it ever does
        print(f"beecode: the new skill does not load: {e}", file=sys.stderr)
        return 1
    assert skill.name == name and not skill.warnings, skill.warnings
    print(f"created {target}: write its description and steps (beecode skills show {name})")
    return 0
