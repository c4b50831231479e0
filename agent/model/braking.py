"""The agent's requests through beecode's speculation brake (server.brake): a probe pair before a
request where the brake wants one, drafting off where it loses, and each request's figures given
back to the brake and noted in the request's own figures."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from agent.events import DraftingNote, RequestStats
from server.brake import Brake, Measure, Probed, Way, probe_pair


async def before_request(
    brake: Brake, request: dict[str, Any], base_url: str, api_key: str | None
) -> Probed | None:
    """A probe pair first where the brake wants one (what it cost); the request's fields with
    drafting off where drafting loses."""
    body = {k: v for k, v in request.items() if k != "extra_body"}
    body.update(request.get("extra_body", {}))
    probed = None
    if brake.needs_probe():
        probed = await asyncio.to_thread(probe_pair, brake, base_url, body, api_key)
    request["extra_body"] = {**request.get("extra_body", {}), **brake.fields()}
    return probed


def after_request(
    brake: Brake, stats: RequestStats, request: dict[str, Any], probed: Probed | None
) -> RequestStats:
    """The server-timed figures of a request sent through the brake, given back to it, with its
    note, and with the probe pair's prefill as the request's own."""
    paused = "speculative.n_max" in request["extra_body"]
    seconds = stats.predicted_n / stats.decode_tok_s if stats.decode_tok_s else 0.0
    way: Way = "off" if paused else "on"
    measure = Measure(way, stats.predicted_n, seconds, stats.draft_n, stats.draft_accepted)
    context = stats.prompt_n + stats.cache_n  # the band this request was sent in
    brake.record(measure, context + stats.predicted_n, context)
    state = brake.state(context)
    note = DraftingNote(paused, state.ratio, state.held, state.off_tok_s, state.never_accepted)
    stats = replace(stats, drafting=note)
    return with_probe_prefill(stats, probed) if probed is not None else stats


def with_probe_prefill(stats: RequestStats, probed: Probed) -> RequestStats:
    """The request's figures with its probe pair's prefill as its own: the prompt tokens the
    probe read in are those the request then found cached, so they count as new, with their
    seconds (a restore that did not take effect still shows as a read-in)."""
    moved = min(probed.prompt_n, stats.cache_n)
    if not moved:
        return stats
    own_s = stats.prompt_n / stats.prompt_tok_s if stats.prompt_tok_s > 0 else 0.0
    prompt_n, seconds = stats.prompt_n + moved, own_s + probed.prompt_s
    rate = prompt_n / seconds if seconds > 0 else stats.prompt_tok_s
    return replace(stats, prompt_n=prompt_n, cache_n=stats.cache_n - moved, prompt_tok_s=rate)
