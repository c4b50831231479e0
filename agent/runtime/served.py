"""The model server the agent talks to: the managed one (started or reused) or an
``--endpoint``, and what it says about its model (its context, size, tool calls, vision,
speculation), which picks the tool mode (``agent.small.session_policy``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agent.config import Config
from agent.context.prompt import TokenCounter
from agent.model.endpoint import ChatModel, OpenAIChatModel
from server.brake import Brake
from server.client import get_props, get_slots, served_model
from server.errors import ServerError
from server.launch.addresses import server_root
from server.launch.machine_key import key_for

Progress = Callable[[str], None]
ENDPOINT_CONNECT_S = 5.0  # an --endpoint that takes longer to accept a connection is unreachable
SMALL_MODEL_PARAMS = 3_000_000_000  # below this, tool calls are constrained to a schema
_SIZE_IN_NAME = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b\b", re.I)


class AppError(Exception):
    """The agent could not be assembled; one line for the user."""


def model_facts(url: str, api_key: str | None) -> tuple[str, int | None]:
    """The served model's id and parameter count ("" and None when the server does not say)."""
    try:
        model = served_model(url, api_key)
    except ServerError:
        return "", None
    return model.id, model.n_params


def small_model(caps: dict[str, bool], name: str, n_params: int | None) -> str:
    """Why "auto" gives this model constrained steps: a model under 3B parameters (by the
    server's count, else the size its name gives), or a chat template without tool calls; ""
    for native calls (constrained output pauses speculative decoding, so big models on a GPU
    stay native)."""
    if not caps.get("supports_tool_calls", False):
        return "the chat template has no tool calls"
    if n_params is None:
        sizes = [float(m) for m in _SIZE_IN_NAME.findall(name)]
        n_params = int(max(sizes) * 1e9) if sizes else None
    if n_params is not None and n_params < SMALL_MODEL_PARAMS:
        return f"a model of {n_params / 1e9:.1f}B parameters"
    return ""


def check_endpoint(url: str) -> None:
    """AppError with one line when nothing answers at ``url`` (refused, no route, a name that
    does not resolve): said before any MCP server starts, not after. Any HTTP answer will do."""
    import httpx

    try:
        httpx.get(server_root(url), timeout=ENDPOINT_CONNECT_S)
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as e:
        raise AppError(f"cannot reach the model server at {url}: {e}") from None
    except httpx.HTTPError:
        pass  # it answered, if slowly or oddly: the model requests tell the rest


def resolve_endpoint(config: Config, progress: Progress | None) -> str:
    if config.endpoint:
        return config.endpoint
    from server.cli.progress import Hooks
    from server.process.detached import up
    from server.process.state import running

    if running() is None and progress:
        progress(f"starting the model server ({config.profile or 'default profile'})")
    # Reuses the server that runs (or refuses, naming it, when it serves another profile).
    return up(config.profile, hooks=Hooks(step=progress)).url


@dataclass(frozen=True)
class ServedModel:
    """The model the agent talks to and what its server says about it."""

    chat: ChatModel
    name: str  # the served model's id; "" when the server does not say
    n_ctx: int | None
    small: str  # why "auto" gives it constrained steps; "": native
    counter: TokenCounter
    # The server says its model reads images (/props modalities); None: not a llama-server,
    # nothing says (the user's own images are sent as they are, a tool's described in a line).
    vision: bool | None = False
    speculative: bool | None = None  # whether the server drafts (its /slots); None: not known


def serve_model(url: str, config: Config) -> ServedModel:
    """The model at ``url`` (a llama-server, or any OpenAI-compatible ``--endpoint``)."""
    if not config.endpoint:  # the managed server wants this machine's key (server.launch)
        config.api_key = key_for(url, config.api_key)
    root = server_root(url)
    try:
        props = get_props(root, config.api_key)
        n_ctx: int | None = props.n_ctx
        name, n_params = model_facts(root, config.api_key)
        small = small_model(props.chat_template_caps, name, n_params)
        vision: bool | None = props.vision
    except ServerError:
        if not config.endpoint:
            raise
        # not a llama-server: plain OpenAI API, native calls
        name, n_ctx, small = model_facts(root, config.api_key)[0], None, ""
        vision = None  # nothing says whether it reads images
    drafts = speculates(root, config.api_key)
    model = OpenAIChatModel(
        url,
        api_key=config.api_key,
        model=config.model,
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        max_tokens=config.max_tokens,
        stall_s=config.stall_timeout_s,
        # a llama-server that drafts: requests go with drafting off where it loses
        brake=Brake() if drafts and n_ctx is not None else None,
    )
    counter = TokenCounter(root if n_ctx is not None else None, api_key=config.api_key)
    return ServedModel(model, name, n_ctx, small, counter, vision, drafts)


def speculates(root: str, api_key: str | None) -> bool | None:
    """Whether llama-server drafts: its timings only count drafts when a request made some,
    so "speculation off" needs the server's own word (/slots; None where it has none)."""
    try:
        slots = get_slots(root, api_key)
    except ServerError:  # /slots turned off (--no-slots), or not a llama-server
        return None
    known = [s["speculative"] for s in slots if isinstance(s.get("speculative"), bool)]
    return any(known) if known else None
