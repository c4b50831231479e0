"""Allow rules the user chose "always" for, kept per workspace from one session to the next.

They live in the user's data directory, not in the project: a repository must not be able to
grant itself permissions (the reason a project config cannot widen them either).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent.config import split_rule
from server.paths import data_dir

FILE_NAME = "allowed.json"  # {"/abs/workspace": ["bash(git status*)", ...]}


class AllowedRules:
    def __init__(self, workspace: Path, path: Path | None = None) -> None:
        self.workspace = str(workspace.resolve())
        self.path = path or data_dir() / FILE_NAME

    def load(self) -> list[str]:
        rules = self._read().get(self.workspace)
        return [r for r in rules if _valid(r)] if isinstance(rules, list) else []

    def add(self, rules: list[str]) -> None:
        self._write(list(dict.fromkeys([*self.load(), *rules])))

    def remove(self, rules: list[str]) -> None:
        self._write([r for r in self.load() if r not in rules])

    def _write(self, rules: list[str]) -> None:
        data = self._read()  # read again: another session may have added rules meanwhile
        data[self.workspace] = rules
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(temp, self.path)

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            # A damaged file is set aside, not overwritten: the user may want to mend it.
            self.path.replace(self.path.with_name(self.path.name + ".bad"))
            return {}
        return data if isinstance(data, dict) else {}


def _valid(rule: object) -> bool:
    if not isinstance(rule, str):
        return False
    try:
        split_rule(rule)
    except ValueError:
        return False
    return True
