"""The main conversation's prompt cache kept while a sub-agent runs, as the server allows.

A llama-server with one slot (beecode's profiles: ``-np 1``) would drop the main conversation's
KV cache for the sub-agent's, and the next main request would read the whole conversation in
again. Where the managed server has a ``--slot-save-path``, the slot is saved to a file before
the sub-agent runs and restored after it, so the next main request reads in only the
sub-agent's result and what follows. A server with several slots runs the sub-agent in its
last one and the main agent in slot 0 (``id_slot``). Any other server (no slot files, vLLM,
SGLang, an ``--endpoint`` beecode cannot ask) just runs it: nothing is kept, nothing is said.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from agent.events import EventSink, Notice, RequestStats
from agent.model.endpoint import ChatModel, OpenAIChatModel
from server.client import get_props, slot_file
from server.errors import ServerError

if TYPE_CHECKING:
    from agent.config import Config
    from agent.loop.agent import Agent


def pinned(model: ChatModel, slot: int) -> ChatModel:
    """The model with every request sent to ``slot`` (llama-server's ``id_slot``)."""
    if not isinstance(model, OpenAIChatModel):
        return model
    twin = copy.copy(model)
    twin._extra = {**model._extra, "id_slot": slot}
    return twin


class SlotGuard:
    def __init__(self, url: str, api_key: str | None, n_slots: int, folder: Path | None) -> None:
        """``folder``: the server's --slot-save-path (None: slots are not saved there)."""
        self.url, self.api_key, self.n_slots, self.folder = url, api_key, n_slots, folder

    @classmethod
    def for_server(cls, url: str, config: Config) -> SlotGuard | None:
        """What this server offers; None where it offers nothing (or cannot be asked)."""
        from agent.runtime.slot_cache import managed_slots

        try:
            n_slots = get_props(url, config.api_key).total_slots
        except ServerError:
            return None
        cache = managed_slots(config) if n_slots == 1 else None
        if n_slots < 2 and cache is None:
            return None
        return cls(
            cache.url if cache else url, config.api_key, n_slots, cache.folder if cache else None
        )

    @property
    def second_slot(self) -> bool:
        return self.n_slots > 1

    def main_model(self, model: ChatModel) -> ChatModel:
        return pinned(model, 0) if self.second_slot else model

    def model_for_subagent(self, model: ChatModel) -> ChatModel:
        return pinned(model, self.n_slots - 1) if self.second_slot else model

    @asynccontextmanager
    async def kept(self, main: Agent, emit: EventSink) -> AsyncIterator[None]:
        """Around a sub-agent's run: on a one-slot server, the main conversation's slot saved
        before and restored after (whether the restore took effect is told by the next main
        request only when it did not)."""
        if self.second_slot or self.folder is None:
            yield
            return
        name = f"{main.session.id}.main.slot"
        try:
            await asyncio.to_thread(self._slot, "save", name)
        except ServerError as e:
            emit(
                Notice(
                    f"prompt cache not saved ({e}): the conversation is read in again", "warning"
                )
            )
            yield
            return
        try:
            yield
        finally:
            await self._restore(main, name, emit)

    async def _restore(self, main: Agent, name: str, emit: EventSink) -> None:
        try:
            n = await asyncio.to_thread(self._slot, "restore", name)
        except ServerError as e:
            emit(
                Notice(
                    f"prompt cache not restored ({e}): the conversation is read in again", "warning"
                )
            )
            return
        finally:
            (self.folder or Path()).joinpath(name).unlink(missing_ok=True)

        def check(stats: RequestStats) -> Notice | None:
            from agent.runtime.slot_cache import restore_effect

            note = restore_effect(n, stats)
            return note if note.level == "warning" else None

        main.on_next_stats = check

    def _slot(self, action: str, name: str) -> int:
        moved = slot_file(
            self.url, 0, "save" if action == "save" else "restore", name, api_key=self.api_key
        )
        return moved.n_tokens
