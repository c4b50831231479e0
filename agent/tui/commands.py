"""The slash commands as the TUI sees them: the core registry (built-ins, skills, custom
commands) for the dispatcher, completion, /help and the palette."""

from __future__ import annotations

from pathlib import Path

from agent.commands.load import Loaded, load
from agent.commands.registry import BUILT_IN, Command, parse
from agent.config import ConfigError, load_config

COMMANDS: tuple[Command, ...] = BUILT_IN  # the palette's: the ones the app itself carries out
BY_NAME = {command.name: command for command in COMMANDS}
_LOADED: dict[Path, Loaded] = {}

__all__ = ["BY_NAME", "COMMANDS", "parse", "workspace_commands", "known"]


def workspace_commands(workspace: Path, *, refresh: bool = False) -> Loaded | None:
    """The workspace's skills and commands, found once (again on refresh, as /skills does);
    None when its config is broken (the app shows that error on connect)."""
    if refresh or workspace not in _LOADED:
        try:
            _LOADED[workspace] = load(workspace, load_config(workspace))
        except ConfigError:
            return None
    return _LOADED[workspace]


def known(workspace: Path) -> list[Command]:
    """Every command to offer: the built-ins, then skills and custom commands by name."""
    loaded = workspace_commands(workspace)
    return loaded.registry.all() if loaded is not None else list(COMMANDS)
