"""The one factory for a real agent in tests: assembled as the faces assemble it
(``agent.runtime.assemble.assemble_agent``), with the real tools, permissions and remembered allow
rules, a real session and real compaction in the test's folders. Only the model is scripted
(``agent.model.scripted``): no server, every reply given by the test.

``make_agent`` is for tests of an agent alone (headless mode); ``ScriptedRuntime`` is the real
runtime both faces use, whose agents all talk to one scripted model (the TUI tests).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from agent.config import Config
from agent.context.prompt import TokenCounter
from agent.events import DraftingNote, RequestStats
from agent.faces.contract import ConnectRequest, Core, Progress
from agent.loop.agent import Agent
from agent.model.endpoint import StreamEnd, TextPiece
from agent.model.scripted import Script, ScriptedModel, Step
from agent.runtime import Runtime
from agent.runtime.assemble import assemble_agent, tool_registry
from agent.runtime.served import ServedModel
from agent.sessions.store import Session

MODEL_NAME = "qwen2.5-coder-0.5b"  # what the scripted model is served as
ENDPOINT = "http://127.0.0.1:9/v1"  # never contacted: the scripted model answers


def served(
    model: ScriptedModel, n_ctx: int | None = 8192, vision: bool | None = False
) -> ServedModel:
    """The scripted model as the runtime sees a served one: native tool calls, a context size,
    and a token counter without a server (it estimates); ``vision``: it reads images."""
    return ServedModel(model, MODEL_NAME, n_ctx, "", TokenCounter(None), vision)


def make_agent(
    workspace: Path,
    replies: Iterable[Script],
    config: Config | None = None,
    *,
    resume: str | None = None,
    n_ctx: int | None = 8192,
) -> Agent:
    """A real agent in ``workspace`` whose model gives ``replies`` in order."""
    config = config or Config(endpoint=ENDPOINT, tool_mode="native")
    earlier = Session.open(resume) if resume else None
    model = ScriptedModel(replies)
    return assemble_agent(workspace, config, served(model, n_ctx), earlier, tool_registry(None))


def stats(
    tok_s: float = 40.0,
    predicted: int = 120,
    draft: tuple[int, int] | None = None,
    prompt: int = 300,
    cache: int = 0,
    drafting: DraftingNote | None = None,
) -> RequestStats:
    """One request's figures as a llama-server reports them (3 s of wall time); ``drafting``:
    the speculation brake's note on it."""
    proposed, accepted = draft if draft is not None else (None, None)
    return RequestStats(
        "server", tok_s, predicted, prompt, cache, proposed, accepted, 3.0, drafting=drafting
    )


def answer(*pieces: str, figures: RequestStats | None = None) -> list[Step]:
    """A reply in words, streamed in the given pieces, ending with the request's figures."""
    return [*(TextPiece(p) for p in pieces), StreamEnd("stop", figures or stats())]


class ScriptedRuntime(Runtime):
    """The real runtime (connect, sessions, MCP, facts, server view, extras, shutdown) whose
    agents talk to one scripted model instead of a served one.

    ``progress_lines`` are reported while the model is "served", as a server's build and
    download would be; ``gate`` holds the connect there until a test sets it."""

    def __init__(
        self,
        workspace: Path,
        replies: Iterable[Script] = (),
        config: Config | None = None,
        n_ctx: int | None = 8192,
    ) -> None:
        super().__init__(workspace, config or Config(endpoint=ENDPOINT))
        self.model = ScriptedModel(replies)
        self.n_ctx = n_ctx
        self.vision: bool | None = False  # as the server says (None: another endpoint)
        self.requests: list[ConnectRequest] = []
        self.progress_lines: list[tuple[str, str]] = []
        self.gate = threading.Event()
        self.gate.set()

    def connect(self, request: ConnectRequest, progress: Progress) -> Core:
        self.requests.append(request)
        return super().connect(request, progress)

    def reach_endpoint(self, config: Config) -> None:
        pass  # the scripted model answers: nothing is contacted

    def serve_model(self, config: Config, progress: Progress, *, switch: bool) -> ServedModel:
        for key, line in self.progress_lines:
            progress(key, line)
        self.gate.wait(timeout=30)
        return served(self.model, self.n_ctx, self.vision)
