"""Git configuration that cannot run anything, for every git command the git tool starts.

A repository's own ``.git/config`` is untrusted (a cloned or unpacked project ships one, and the
model can write one): fsmonitor, hooks, filters, external diff and textconv drivers, pagers,
signing programs, credential helpers and ssh commands are all commands git runs on a plain
``status`` or ``diff``. Each is turned off with ``-c`` (which outranks every config file and reaches
the git processes git itself starts), driver names are read from the config so that every filter
and merge driver is emptied, and the inherited ``GIT_*`` variables (``GIT_EXTERNAL_DIFF``,
``GIT_SSH_COMMAND``, ``GIT_CONFIG_PARAMETERS``...) are dropped.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

# Settings that name a program, or turn on a feature that runs one.
_FIXED = {
    "core.fsmonitor": "false",
    "core.hooksPath": os.devnull,  # no hook can be found under /dev/null
    "core.pager": "cat",
    "core.editor": "true",
    "core.askPass": "",
    "core.sshCommand": "",
    "core.gitProxy": "",
    "credential.helper": "",
    "diff.external": "",
    "commit.gpgSign": "false",
    "tag.gpgSign": "false",
    "log.showSignature": "false",
    "gc.auto": "0",
    "maintenance.auto": "false",
    "submodule.recurse": "false",
    "status.submoduleSummary": "false",
}
# Per-driver keys (filter.NAME.clean...) whose value is a command.
_DRIVER_KEY = re.compile(
    r"(filter\.(.+)\.(clean|smudge|process)|diff\.(.+)\.(textconv|command)|merge\.(.+)\.driver)",
    re.IGNORECASE,
)
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_PAGER": "cat", "LANGUAGE": "C"}
# Actions that can show diffs, so external diff and textconv are refused on the command line too.
DIFF_FLAGS = ["--no-ext-diff", "--no-textconv"]


def safe_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for git: the parent's without any GIT_* variable, plus non-interactive."""
    source = os.environ if environ is None else environ
    env = {k: v for k, v in source.items() if not k.upper().startswith("GIT_")}
    return {**env, **_ENV}


def safe_options(cwd: Path) -> list[str]:
    """``-c`` options that disable every configured program git could run in ``cwd``."""
    values = dict(_FIXED)
    for key in _configured_keys(cwd):
        match = _DRIVER_KEY.fullmatch(key)
        if match is not None:
            values[key] = ""
            if key.lower().startswith("filter."):
                values[f"filter.{match.group(2)}.required"] = "false"
    return [arg for key, value in values.items() for arg in ("-c", f"{key}={value}")]


def _configured_keys(cwd: Path) -> list[str]:
    """Every config key git sees in ``cwd`` (reading config runs nothing)."""
    listed = subprocess.run(
        ["git", "config", "--list", "--name-only", "-z"],
        cwd=cwd,
        env=safe_env(),
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    return [key for key in listed.stdout.decode("utf-8", "replace").split("\0") if key]
