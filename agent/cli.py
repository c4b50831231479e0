"""The ``beecode`` command: dispatches to the server commands, headless mode or the TUI.

beecode                      the TUI
beecode -p TASK [options]    one task, headless (see agent.faces.headless)
beecode -p "/NAME ARGS"      a skill or custom command, headless
beecode -r ID | -c [--fork]  resume a session (--fork: go on in a copy of it)
beecode acp [options]        an Agent Client Protocol agent on stdio, for editors (agent.faces.acp)
beecode sessions             this workspace's sessions, newest first
beecode undo [N|--list|--redo]  restore the files of the last N turns (agent.checkpoints)
beecode mcp list|get|add|remove|test|enable|disable|approve  MCP servers (agent.mcp_command)
beecode skills list|show|new the skills and custom commands (agent.commands.cli)
beecode server ... | doctor  the model server (server.cli.commands)
beecode bench ...            benchmarks
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from typing import Any

    from agent.config import Config

# agent.faces.headless loads openai (~0.6 s); it is imported only for -p, so the TUI starts fast.
OUTPUT_FORMATS = ("text", "json", "stream-json")  # what agent.faces.headless renders
SUBCOMMANDS = {  # listed in --help; _dispatch runs each
    "sessions": "this workspace's sessions, newest first",
    "undo": "restore the files of the last N turns (undo N | --list | --redo)",
    "mcp": "MCP servers: list, get, add, remove, test, enable, disable, approve",
    "skills": "skills and custom commands: list, show, new",
    "server": "the model server: up, plan, status, logs, down, build, fetch",
    "doctor": "what this machine has for building and running the engine, and what next",
    "bench": "decode speed with and without speculation on this machine",
}


def _parser() -> argparse.ArgumentParser:
    # Imported here, not at the top: `beecode server ...` never needs the bash judge (bashlex).
    from agent.permissions.rules import MODES
    from server.cli.parser import bounded

    commands = "\n".join(f"  {name:<10} {what}" for name, what in SUBCOMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="beecode",
        usage="beecode [options] | beecode -p TASK [options] | beecode COMMAND ...",
        description="A private, offline coding agent.",
        epilog="commands (mcp, skills, server, bench, undo: COMMAND --help for more):\n"
        f"{commands}\n\n"
        "Headless runs (-p) cannot ask for permission: calls the mode would ask about are\n"
        "denied (noted on stderr). Use --permission-mode auto-edit or yolo, or allow rules.\n"
        "Exit status: 0 done, 1 error, 2 usage, 3 step limit or repeated tool failures.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-p", "--print", dest="task", metavar="TASK", help="run one task headless and exit"
    )
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text")
    parser.add_argument("--permission-mode", choices=MODES)
    parser.add_argument(
        "--max-steps",
        "--max-turns",
        dest="max_steps",
        type=bounded(int, 1, 10**6),
        metavar="N",
        help="model requests per task",
    )
    parser.add_argument("--endpoint", metavar="URL", help="an OpenAI-compatible server to use")
    parser.add_argument("--profile", metavar="NAME", help="the managed server profile")
    parser.add_argument("--tool-mode", choices=("auto", "native", "constrained"))
    parser.add_argument("--lint-cmd", metavar="CMD", help="the project's lint command")
    parser.add_argument("--test-cmd", metavar="CMD", help="the project's test command")
    checks = "after a turn's changes, and send failures to the model"
    parser.add_argument("--auto-lint", action=argparse.BooleanOptionalAction, help=f"lint {checks}")
    parser.add_argument("--auto-test", action=argparse.BooleanOptionalAction, help=f"test {checks}")
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="continue this workspace's latest session",
    )
    parser.add_argument(
        "-r", "--resume", metavar="ID", help="resume a session by id (or a unique start of one)"
    )
    parser.add_argument(
        "--fork",
        action="store_true",
        help="with -r or -c: go on in a new session, a copy; the original is left as it was",
    )
    parser.add_argument("--version", action="store_true", help="print beecode's version")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:  # the reader left (`| head`): no error of ours, and none to print
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own advice
        return 141
    except OSError as e:  # beecode's own dirs unusable (read-only, a file in the way, full)
        where = f": {e.filename}" if e.filename else ""
        print(f"beecode: {e.strerror or e}{where}", file=sys.stderr)
        return 1


def _dispatch(args: list[str]) -> int:
    if args and args[0] in ("server", "doctor"):
        from server.cli.commands import main as server_main

        return server_main(args)
    if args and args[0] == "bench":
        return int(_entry("server.bench.command", "main")(args[1:]) or 0)
    if args and args[0] == "sessions":
        return _sessions()
    if args and args[0] == "acp":
        return int(_entry("agent.faces.acp.command", "main")(args[1:]))
    if args and args[0] == "undo":
        return int(_entry("agent.checkpoints.command", "main")(args[1:]))
    if args and args[0] == "mcp":
        return int(_entry("agent.mcp_command", "main")(args[1:]))
    if args and args[0] == "skills":
        return int(_entry("agent.commands.cli", "main")(args[1:]))
    try:
        options = _parser().parse_args(args)
    except SystemExit as e:  # argparse has printed the usage problem (or the help)
        return 0 if e.code == 0 else 2
    if options.version:
        from agent.sessions.store import beecode_version

        print(f"beecode {beecode_version()}")
        return 0
    if options.fork and not (options.resume or options.continue_latest):
        print("beecode: --fork needs a session to fork: -r ID or -c", file=sys.stderr)
        return 2
    from agent.config import ConfigError, load_config

    workspace = Path.cwd()
    flags: dict[str, Any] = {
        "permission_mode": options.permission_mode,
        "endpoint": options.endpoint,
        "profile": options.profile,
        "max_steps": options.max_steps,
        "tool_mode": options.tool_mode,
        "lint_cmd": options.lint_cmd,
        "test_cmd": options.test_cmd,
        "auto_lint": options.auto_lint,
        "auto_test": options.auto_test,
    }
    try:
        config = load_config(workspace, flags)
    except ConfigError as e:
        print(f"beecode: {e}", file=sys.stderr)
        return 2
    if options.task is None:
        return _tui(workspace, config, options)
    if not options.task.strip():
        print("beecode: -p needs a task", file=sys.stderr)
        return 2
    from agent.faces.headless import run_headless

    return run_headless(
        options.task,
        config,
        options.output_format,
        workspace=workspace,
        resume=options.resume,
        continue_latest=options.continue_latest,
        fork=options.fork,
    )


def _entry(module: str, name: str) -> Any:
    """A function of a module imported only when its command runs (they are heavy)."""
    return getattr(importlib.import_module(module), name)


def _sessions() -> int:
    from agent.sessions.store import list_sessions

    found = list_sessions(Path.cwd())
    if not found:
        print("no sessions in this workspace yet", file=sys.stderr)
    for info in found:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated))
        fork = f"  (fork of {info.forked_from})" if info.forked_from else ""
        print(f"{info.id}  {when}  {info.n_messages:4d} messages  {info.title}{fork}")
    return 0


def _tui(workspace: Path, config: Config, options: argparse.Namespace) -> int:
    try:
        from agent.tui.app import run
    except ImportError:
        print(
            "beecode: the terminal UI is not installed in this build; use `beecode -p TASK`",
            file=sys.stderr,
        )
        return 2
    return run(workspace, config, options.resume, options.continue_latest, options.fork)


if __name__ == "__main__":
    sys.exit(main())
