"""The two always-visible lines under the prompt: throughput and status."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from agent.context.prefill import seconds_text
from agent.events import RequestStats
from agent.faces.contract import Facts, ServerView
from agent.tui import format as fmt
from agent.tui.throughput import LiveRate, speedup_source, throughput_parts


class ThroughputLine(Static):
    """Decode speed, draft acceptance, prompt cache and the session's tok/s sparkline; a
    speed-up's source (the rate it divides by, measured how) is its tooltip."""

    def show(
        self,
        turn: RequestStats | None,
        live: LiveRate | None,
        facts: Facts | None,
        history: Sequence[float],
    ) -> None:
        speculative = facts.speculative if facts else None
        parts = throughput_parts(turn, live, history, speculative)
        self.update(Content.assemble(*parts))
        self.tooltip = speedup_source(turn, speculative)


class StatusLine(Static):
    """Model and profile, context used against the server's real n_ctx, permission mode, server."""

    def show(
        self,
        facts: Facts | None,
        mode: str | None,
        context_used: int,
        server: ServerView | None,
        busy: bool,
        failed: bool = False,
    ) -> None:
        """``failed``: the last connect failed (its reason is in the conversation)."""
        parts: list[tuple[str, str] | str] = []
        if busy:  # first: a long model name in a narrow terminal cuts off the line's end
            parts.append(("working (esc cancels) · ", "$text-warning"))
        if facts is None and failed:
            parts.append(("not connected (/clear tries again)", "$text-error"))
        elif facts is None:
            parts.append(("connecting…", "$text-warning"))
        else:
            parts.append((facts.model, "bold"))
            if facts.profile:
                parts.append(f" ({facts.profile})")
            if facts.n_ctx:
                share = fmt.percent(context_used / facts.n_ctx)
                used = f"{fmt.tokens(context_used)}/{fmt.tokens(facts.n_ctx)}"
                seconds = facts.prefill.seconds(context_used) if facts.prefill else None
                cold = f", {seconds_text(seconds)} cold" if seconds else ""
                parts.append((f" · ctx {used} ({share}{cold})", ""))
        if mode:
            parts.append((" · mode ", "dim"))
            parts.append((mode, "$text-warning" if mode == "yolo" else "$text-accent"))
        if server is not None:
            state_style = "$text-success" if server.state in ("up", "external") else "$text-error"
            parts.append((" · server ", "dim"))
            parts.append((server.state, state_style))
        self.update(Content.assemble(*parts))
