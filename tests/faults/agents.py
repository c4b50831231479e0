"""The agent the fault tests drive: the real loop in yolo mode with native tool calls (what is
tested is the fault, not the permission prompt)."""

from __future__ import annotations

from pathlib import Path

from agent.config import Config
from agent.loop.agent import Agent
from agent.model.endpoint import ChatModel
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from tools.registry import ToolRegistry, default_registry
from tools.tool import ToolContext


def yolo_agent(
    model: ChatModel,
    ws: Path,
    session: Session | None = None,
    registry: ToolRegistry | None = None,
    system: str = "s",
    max_steps: int = 50,
) -> Agent:
    cfg = Config(permission_mode="yolo", tool_mode="native", max_steps=max_steps)
    return Agent(
        model,
        registry if registry is not None else default_registry(),
        Permissions("yolo", [], [], ws, []),
        session or Session.create(ws),
        cfg,
        ToolContext(ws),
        system=system,
    )
