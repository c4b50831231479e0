"""Sub-agent definitions from every folder, in Claude Code's format, and a project's only ever
narrowing (``agent.subagents.definitions``)."""

from __future__ import annotations

from pathlib import Path

from agent.subagents.definitions import READ_ONLY, load_definitions


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text)
    return path


def agent_file(name: str, tools: str | None = None, model: str | None = None) -> str:
    lines = ["---", f"name: {name}", f"description: The {name} agent"]
    lines += [f"tools: {tools}"] if tools is not None else []
    lines += [f"model: {model}"] if model is not None else []
    return "\n".join([*lines, "---", f"You are {name}.", ""])


def test_every_folder_and_claude_codes_names(tmp_path: Path) -> None:
    ws, config, claude = tmp_path / "ws", tmp_path / "config", tmp_path / "claude"
    write(config / "agents", "mine", agent_file("mine", "Read, Grep, Glob"))
    write(claude / "agents", "reviewer", agent_file("reviewer", "Read, Bash, MultiEdit", "sonnet"))
    write(ws / ".claude" / "agents", "tester", agent_file("tester"))
    write(ws / ".beecode" / "agents", "docs", agent_file("docs", "Read, Write"))
    found = load_definitions(ws, config, claude, trusted=True)
    agents = found.agents
    assert list(agents) == ["explore", "general", "mine", "reviewer", "tester", "docs"]
    assert agents["mine"].tools == ("read", "grep", "glob")
    assert agents["reviewer"].tools == ("read", "bash", "edit")
    assert agents["tester"].tools is None  # the main agent's tools
    assert agents["docs"].tools == ("read", "write") and agents["docs"].prompt == "You are docs."
    assert (agents["mine"].origin, agents["docs"].origin) == ("user", "project")
    [note] = found.notes  # the model is accepted and said once to be ignored
    assert "model 'sonnet' ignored" in note
    assert "reviewer  [user]" in "\n".join(found.listing())


def test_frontmatter_errors_are_one_line_each_and_lose_nothing_else(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    folder = ws / ".beecode" / "agents"
    write(folder, "good", agent_file("good"))
    write(folder, "nofront", "just text\n")
    write(folder, "badyaml", "---\nname: [unclosed\n---\nbody\n")
    write(folder, "nodesc", "---\nname: nodesc\n---\nbody\n")
    write(folder, "patterned", agent_file("patterned", "Bash(git status:*), Read, Task"))
    found = load_definitions(ws, tmp_path / "c", tmp_path / "h", trusted=True)
    assert "good" in found.agents and found.agents["patterned"].tools == ("read",)
    assert len(found.notes) == 5 and all("\n" not in n for n in found.notes)
    by_file = {n.split(":")[0].rsplit("/", 1)[1]: n for n in found.notes}
    assert "no YAML frontmatter" in by_file["nofront.md"]
    assert "not valid YAML" in by_file["badyaml.md"]
    assert "no description" in by_file["nodesc.md"]
    assert {"nofront", "badyaml", "nodesc"}.isdisjoint(found.agents)


def test_an_untrusted_project_only_narrows(tmp_path: Path) -> None:
    ws, config = tmp_path / "ws", tmp_path / "config"
    write(ws / ".claude" / "agents", "wide", agent_file("wide", "Bash, Write, Read"))
    write(ws / ".claude" / "agents", "plain", agent_file("plain"))
    write(ws / ".claude" / "agents", "explore", agent_file("explore", "Bash"))
    write(config / "agents", "mine", agent_file("mine", "Bash"))
    write(ws / ".beecode" / "agents", "mine", agent_file("mine", "Read"))
    untrusted = load_definitions(ws, config, tmp_path / "h", trusted=False)
    agents = untrusted.agents
    assert agents["wide"].tools == ("read",) and not agents["wide"].trusted
    assert agents["plain"].tools == READ_ONLY  # not the main agent's: read-only at most
    assert agents["explore"].origin == "built-in"  # not replaced
    assert agents["mine"].origin == "user" and agents["mine"].tools == ("bash",)
    assert sum("cannot replace" in n for n in untrusted.notes) == 2
    trusted = load_definitions(ws, config, tmp_path / "h", trusted=True).agents
    assert trusted["wide"].tools == ("bash", "write", "read")
    assert trusted["explore"].origin == "project" and trusted["mine"].origin == "project"
