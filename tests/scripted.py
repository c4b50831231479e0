"""The one agent a test builds by hand: the real loop, tools, permissions, session and config on
a model the test gives, most often the scripted one (``agent.model.scripted``), without the
runtime's assembly (``tests.factory`` assembles one as the faces do).

No pytest here: a test's child process (``python -c`` in the checkout) imports it too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent.commands.turns import CommandAgent, setup_skills
from agent.config import Config, Mode
from agent.context.prompt import TokenCounter, system_prompt
from agent.hooks.session import Hooks
from agent.loop.agent import Agent
from agent.model.endpoint import ChatModel
from agent.model.scripted import Script, ScriptedModel
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from agent.small import session_policy
from tools.registry import ToolRegistry, default_registry
from tools.tool import ToolContext

TEST_SYSTEM = "You are a test."


def agent_on(
    model: ChatModel,
    ws: Path,
    *,
    mode: Mode = "yolo",
    registry: ToolRegistry | None = None,
    session: Session | None = None,
    n_ctx: int | None = None,
    system: str | None = None,
    skills: bool = False,
    with_hooks: bool = False,
    **config: Any,
) -> Agent:
    """An agent in ``ws`` talking to ``model``, in permission ``mode``, with ``registry`` (the
    default tools when None), ``session`` (a new one when None) and a context of ``n_ctx``.

    ``config``: ``Config`` fields over ``tool_mode="native"``; the step policy is the session's
    for that tool mode (``agent.small.session_policy``). ``skills``: a ``CommandAgent`` with the
    workspace's skills and commands. ``system``: the system prompt; when None, ``TEST_SYSTEM``,
    or with ``skills`` the real prompt with their catalogue. ``with_hooks``: the hooks the runtime
    would load for ``ws`` (``Hooks.configured``)."""
    config.setdefault("tool_mode", "native")
    cfg = Config(permission_mode=mode, **config)
    ctx = ToolContext(ws)
    permissions = Permissions(cfg.permission_mode, cfg.allow, cfg.deny, ws, [])
    tools = registry if registry is not None else default_registry()
    kind: type[Agent] = Agent
    prompt, extra = TEST_SYSTEM, dict[str, Any]()
    if skills:
        setup = setup_skills(ws, cfg, tools, ctx, permissions, TokenCounter(None).count_text)
        kind, tools, prompt = CommandAgent, setup.registry, system_prompt("", setup.catalogue)
        extra = {"skills": setup}
    session = session or Session.create(ws)
    if with_hooks:
        extra["hooks"] = Hooks.configured(ws, cfg, session, lambda: permissions.mode)
    return kind(
        model,
        tools,
        permissions,
        session,
        cfg,
        ctx,
        system=prompt if system is None else system,
        n_ctx=n_ctx,
        policy=session_policy(cfg.tool_mode, ""),
        **extra,
    )


def make_agent(ws: Path, replies: Iterable[Script], **options: Any) -> tuple[Agent, ScriptedModel]:
    """``agent_on`` (with its ``options``) a scripted model that gives ``replies`` in order; the
    model too, for its recorded requests."""
    model = ScriptedModel(replies)
    return agent_on(model, ws, **options), model
