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


# What git run by bash (any command line, any repository, a script's git too) may run: each of these
# takes the user's own value (system or global config, or the environment's GIT_CONFIG_*), else
# one that runs nothing. A repository's value never counts, unless the workspace is trusted.
_COMMAND_PROGRAMS = {
    **{key: _FIXED[key] for key in ("core.fsmonitor", "core.hooksPath", "core.pager")},
    **{key: _FIXED[key] for key in ("core.editor", "core.askPass", "core.gitProxy")},
    "core.sshCommand": "ssh",  # git's own default: push and fetch over ssh still work
    "sequence.editor": "true",
    "gpg.program": "gpg",
    "gpg.ssh.program": "ssh-keygen",
    "gpg.x509.program": "gpgsm",
    "protocol.ext.allow": "never",  # ext:: URLs run a command
}
# Keys that name a program where no value means "none" (one driver's, one remote's): where the
# repository sets one, the user's value, else "false" (git says it failed; a filter: none).
# A remote's upload-pack is taken first-set-wins, so its local transports are refused instead.
_NAMED_PROGRAM = re.compile(
    rf"diff\.external|{_DRIVER_KEY.pattern}|remote\.(.+)\.(uploadpack|receivepack)"
    r"|(diff|merge)tool\.(.+)\.cmd",
    re.IGNORECASE,
)
_USERS_SCOPES = ("system", "global", "command")


def command_git_env(cwd: Path, environ: dict[str, str]) -> dict[str, str]:
    """``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n`` for a bash command's environment: a layer over
    every config file, so no repository's config can make git run a program of its choosing.
    The repository in ``cwd`` is read for its drivers' names; elsewhere the fixed keys hold."""
    users: dict[str, list[tuple[str, str]]] = {}  # lower-case key: (key, value), in git's order
    theirs: dict[str, str] = {}
    # Credential helpers are a list that an empty value resets: reset, then the user's again.
    layer = [("credential.helper", "")]
    for scope, key, value in _scoped_config(cwd, environ):
        if scope in _USERS_SCOPES:
            users.setdefault(key.lower(), []).append((key, value))
            if key.lower().startswith("credential.") and key.lower().endswith(".helper"):
                layer.append((key, value))
        elif _NAMED_PROGRAM.fullmatch(key):
            theirs[key.lower()] = key
    for key, default in _COMMAND_PROGRAMS.items():
        own = users.get(key.lower())
        layer.append((key, own[-1][1] if own else default))
    for key in theirs.values():
        own = users.get(key.lower())
        if key.lower().endswith("pack"):  # git takes the first: the repository's wins
            layer += [("protocol.file.allow", "never"), ("protocol.ssh.allow", "never")]
            continue
        match = _DRIVER_KEY.fullmatch(key)
        if match is not None and key.lower().startswith("filter."):  # "": the file as it is
            layer += [
                (key, own[-1][1] if own else ""),
                (f"filter.{match.group(2)}.required", "false"),
            ]
        else:
            layer.append((key, own[-1][1] if own else "false"))
    count = environ.get("GIT_CONFIG_COUNT", "")
    start = int(count) if count.isdigit() else 0  # the user's own entries stay first
    env = {"GIT_CONFIG_COUNT": str(start + len(layer))}
    for i, (key, value) in enumerate(layer, start):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return env


def _scoped_config(cwd: Path, environ: dict[str, str]) -> list[tuple[str, str, str]]:
    """(scope, key, value) of every config entry git sees in ``cwd`` (reading runs nothing)."""
    try:
        listed = subprocess.run(
            ["git", "config", "--list", "--show-scope", "-z"],
            cwd=cwd,
            env={**environ, "GIT_TERMINAL_PROMPT": "0"},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):  # no git here: the fixed keys still go
        return []
    fields = listed.stdout.decode("utf-8", "replace").split("\0")
    entries = []
    for scope, entry in zip(fields[::2], fields[1::2], strict=False):
        key, _, value = entry.partition("\n")
        entries.append((scope, key, value))
    return entries


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
