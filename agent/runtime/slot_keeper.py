"""Whose conversation the managed server's slot holds, so that leaving a session saves the right
one and coming back restores it (the files themselves: ``agent.runtime.slot_cache``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.config import Config
from agent.faces.contract import Progress

if TYPE_CHECKING:
    from agent.events import Notice, RequestStats
    from agent.loop.agent import Agent


class SlotKeeper:
    def __init__(self) -> None:
        # Whether the slot holds the agent's conversation: once the agent has made a request
        # since it came (or since the server restarted), or after a restore.
        self.holds = False
        self.held_by: str | None = None  # the session whose conversation it holds, if it does

    def leave(
        self, agent: Agent | None, config: Config, model: str, progress: Progress | None
    ) -> None:
        """Save the agent's prompt cache in the server before its session is left or the
        server stops."""
        if agent is None or not self.holds:
            return
        from agent.runtime.slot_cache import managed_slots, prefix_of

        cache = managed_slots(config)
        if cache is not None:
            prefix = prefix_of(model, agent.messages, agent.registry.schemas())
            line = cache.save(agent.session.id, prefix)
            if line and progress is not None:
                progress("step", line)

    def arrive(
        self, agent: Agent | None, config: Config, model: str, progress: Progress, resumed: bool
    ) -> None:
        """The slot holds nothing of ``agent``'s conversation yet: restore it when ``resumed``
        and the saved prefix matches what will be sent. The agent's next request then marks
        the slot as its own, and says whether a restore took effect."""
        from agent.runtime.slot_cache import managed_slots, restore_effect
        from agent.sessions.fork import ancestors

        held, self.holds, n = self.held_by if self.holds else None, False, 0
        if agent is None:
            return
        session = agent.session
        sources = ancestors(session.path) if resumed else []
        cache = managed_slots(config) if resumed else None
        if held and held in sources:
            # /fork: the slot holds the conversation this one was copied from; it goes on there.
            self.holds, cache = True, None
        if cache is not None:
            schemas = agent.registry.schemas()
            n, line = cache.restore(session.id, model, agent.messages, schemas, sources)
            if line:
                progress("step", line)
            self.holds = n > 0
        self.held_by = session.id if self.holds else None

        def first_request(stats: RequestStats) -> Notice | None:
            self.holds, self.held_by = True, session.id
            return restore_effect(n, stats) if n else None

        agent.on_next_stats = first_request
