"""MCP prompts as slash commands: ``/server:prompt args``, arguments by name (``focus=speed``) or
by position in the server's order; a missing required one is told with the usage."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from agent.commands.registry import Command, McpPrompt

if TYPE_CHECKING:
    from tools.mcp.servers import McpServers


def prompt_commands(mcp: McpServers | None) -> list[Command]:
    """One command per prompt of each connected server."""
    from tools.mcp.tool import one_line

    made = []
    for server, (prompts, _) in (mcp.offers() if mcp is not None else {}).items():
        for prompt in prompts:
            wanted = tuple((a.name, bool(a.required)) for a in prompt.arguments or [])
            hint = " ".join(f"<{n}>" if required else f"[{n}]" for n, required in wanted)
            spec = McpPrompt(server, prompt.name, wanted)
            help_line = one_line(prompt.description) or f"prompt of the MCP server {server}"
            made.append(
                Command(f"{server}:{prompt.name}", help_line, hint, "user", "prompt", prompt=spec)
            )
    return made


def prompt_arguments(prompt: McpPrompt, text: str) -> dict[str, str]:
    """The arguments of ``text``; ValueError with the usage when they do not fit."""
    names = [name for name, _ in prompt.arguments]
    usage = f"usage: /{prompt.server}:{prompt.name} " + " ".join(
        f"<{n}>" if required else f"[{n}]" for n, required in prompt.arguments
    )
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise ValueError(f"{err}; {usage}") from None
    given: dict[str, str] = {}
    positional = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in names:
            given[key] = value
        else:
            positional.append(word)
    free = [n for n in names if n not in given]
    if len(positional) > len(free):
        if not free:
            raise ValueError(f"too many arguments; {usage}")
        # The last free argument takes the rest, as a sentence.
        positional[len(free) - 1 :] = [" ".join(positional[len(free) - 1 :])]
    given |= dict(zip(free, positional, strict=False))
    missing = [n for n, required in prompt.arguments if required and n not in given]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}; {usage}")
    return given
