"""The slash commands: one table used by the dispatcher, completion, /help and the palette."""

from __future__ import annotations

from dataclasses import dataclass

from agent.permissions.rules import MODES


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash
    args: str  # argument hint for /help, "" when none
    help: str


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "", "Keys and commands"),
    SlashCommand("clear", "", "Start a new session with an empty conversation"),
    SlashCommand("compact", "", "Summarise older turns to free context"),
    SlashCommand("resume", "[ID]", "Reopen a session of this workspace"),
    SlashCommand("sessions", "", "List the sessions of this workspace"),
    SlashCommand("model", "[PROFILE]", "Show or switch the server profile"),
    SlashCommand("mode", f"[{'|'.join(MODES)}]", "Show or set the permission mode"),
    SlashCommand("undo", "[N]", "Restore the files of the last N turns (write, edit, bash, git)"),
    SlashCommand("redo", "", "Undo the last /undo"),
    SlashCommand("rewind", "[N]", "Like /undo, and cut the conversation back to before them"),
    SlashCommand("diff", "", "Show uncommitted changes in the workspace"),
    SlashCommand("stats", "", "Speed and draft figures of every turn"),
    SlashCommand("server", "", "Show or hide the server panel"),
    SlashCommand("mcp", "", "MCP servers"),
    SlashCommand("skills", "", "Skills"),
    SlashCommand("bench", "", "How to measure speculation on this machine"),
    SlashCommand("quit", "", "Quit (stops a server this app started)"),
)

BY_NAME = {command.name: command for command in COMMANDS}


def parse(text: str) -> tuple[str, str] | None:
    """``"/mode yolo"`` -> ``("mode", "yolo")``; None when the text is not a slash command."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, rest = text[1:].strip().partition(" ")
    return name.lower(), rest.strip()
