"""The llama-server HTTP client: /props, /slots, /metrics, /tokenize, /v1/models, chat.

The agent streams chat through its own async OpenAI client (given `openai_base_url`); every other
call to a llama-server goes through here: the supervisor, the CLI, the benchmarks, the agent's
token counter and its model facts. A base URL may end in /v1 or not. Bad or missing fields in a
reply, and servers that do not answer, raise ServerError with one line, never a KeyError.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from server.errors import ServerError
from server.launch.addresses import server_root
from server.launch.machine_key import key_for

if TYPE_CHECKING:  # httpx costs ~0.3 s to import: `server up` starts without it
    import httpx


@dataclass(frozen=True)
class Timings:
    """The `timings` object of a completion; draft fields are None when nothing was drafted."""

    prompt_n: int
    cache_n: int
    prompt_ms: float
    predicted_n: int
    predicted_ms: float
    predicted_per_second: float
    prompt_per_second: float
    draft_n: int | None
    draft_n_accepted: int | None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Timings:
        def number(key: str) -> float:
            value = d.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ServerError(f"server reply has no numeric timings.{key}: {value!r}")
            return float(value)

        return cls(
            prompt_n=int(number("prompt_n")),
            cache_n=int(number("cache_n")),
            prompt_ms=number("prompt_ms"),
            predicted_n=int(number("predicted_n")),
            predicted_ms=number("predicted_ms"),
            predicted_per_second=number("predicted_per_second"),
            prompt_per_second=number("prompt_per_second"),
            draft_n=int(number("draft_n")) if "draft_n" in d else None,
            draft_n_accepted=int(number("draft_n_accepted")) if "draft_n_accepted" in d else None,
        )

    @property
    def acceptance(self) -> float | None:
        """Accepted share of drafted tokens, or None when speculation did not run."""
        if not self.draft_n or self.draft_n_accepted is None:
            return None
        return self.draft_n_accepted / self.draft_n


@dataclass(frozen=True)
class Props:
    n_ctx: int
    model_path: str
    build_info: str
    chat_template_caps: dict[str, bool]
    total_slots: int
    vision: bool = False  # modalities.vision: the model reads images (a projector is loaded)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Props:
        settings = d.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        if not isinstance(n_ctx, int):
            raise ServerError("server /props has no default_generation_settings.n_ctx")
        caps = d.get("chat_template_caps") or {}
        modalities = d.get("modalities")
        return cls(
            n_ctx=n_ctx,
            model_path=str(d.get("model_path", "")),
            build_info=str(d.get("build_info", "")),
            chat_template_caps={k: bool(v) for k, v in caps.items()}
            if isinstance(caps, dict)
            else {},
            total_slots=int(d.get("total_slots", 1)),
            vision=isinstance(modalities, dict) and bool(modalities.get("vision")),
        )


@dataclass(frozen=True)
class ServedModel:
    """The first model of /v1/models; n_params is None when the server does not report it."""

    id: str
    n_params: int | None


def openai_base_url(url: str) -> str:
    """The OpenAI-compatible base URL (ending in /v1) of a server given either way."""
    return server_root(url) + "/v1"


def _headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _request(
    method: str,
    base_url: str,
    path: str,
    *,
    api_key: str | None = None,
    timeout_s: float = 10.0,
    json: Any = None,
    http: httpx.Client | None = None,
) -> httpx.Response:
    import httpx

    url = server_root(base_url) + path
    send = http.request if http is not None else httpx.request
    try:
        headers = _headers(key_for(base_url, api_key))  # the managed server's own key by default
        reply = send(method, url, headers=headers, json=json, timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise ServerError(f"cannot reach llama-server at {url}: {exc}") from None
    if reply.status_code != 200:
        raise ServerError(f"{method} {url} answered {reply.status_code}: {reply.text[:200]}")
    return reply


def _json(reply: httpx.Response) -> Any:
    try:
        return reply.json()
    except ValueError:
        raise ServerError(f"{reply.request.url} did not answer JSON: {reply.text[:200]}") from None


def get_props(base_url: str, api_key: str | None = None) -> Props:
    data = _json(_request("GET", base_url, "/props", api_key=api_key))
    if not isinstance(data, dict):
        raise ServerError("server /props is not a JSON object")
    return Props.from_json(data)


def get_slots(base_url: str, api_key: str | None = None) -> list[dict[str, Any]]:
    data = _json(_request("GET", base_url, "/slots", api_key=api_key))
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise ServerError("server /slots is not a list of objects")
    return data


@dataclass(frozen=True)
class SlotFile:
    """What a slot save or restore moved: the slot's tokens, the file's bytes, its milliseconds."""

    n_tokens: int
    n_bytes: int
    ms: float


def slot_file(
    base_url: str,
    slot_id: int,
    action: Literal["save", "restore"],
    filename: str,
    *,
    api_key: str | None = None,
    timeout_s: float = 300.0,
) -> SlotFile:
    """POST /slots/{id}?action=save|restore: the slot's KV cache to or from ``filename`` in the
    server's --slot-save-path. ServerError when the server has no such path (501), the file is
    missing or does not fit this model and context."""
    path, body = f"/slots/{slot_id}?action={action}", {"filename": filename}
    data = _json(_request("POST", base_url, path, api_key=api_key, json=body, timeout_s=timeout_s))
    keys = ("n_saved", "n_written") if action == "save" else ("n_restored", "n_read")
    fields = data if isinstance(data, dict) else {}
    n_tokens, n_bytes, timings = fields.get(keys[0]), fields.get(keys[1]), fields.get("timings")
    if (
        not isinstance(n_tokens, int)
        or not isinstance(n_bytes, int)
        or not isinstance(timings, dict)
    ):
        raise ServerError(f"server {action} of slot {slot_id} answered {str(data)[:120]}")
    ms = timings.get(f"{action}_ms", 0.0)
    return SlotFile(n_tokens, n_bytes, float(ms) if isinstance(ms, int | float) else 0.0)


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text to {name: value}, without the `llamacpp:` prefix; labels stay in names."""
    values: dict[str, float] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.rpartition(" ")
        try:
            values[name.strip().removeprefix("llamacpp:")] = float(rest)
        except ValueError:
            raise ServerError(f"server /metrics has a bad line: {line[:120]}") from None
    return values


def get_metrics(
    base_url: str, api_key: str | None = None, timeout_s: float = 10.0
) -> dict[str, float]:
    reply = _request("GET", base_url, "/metrics", api_key=api_key, timeout_s=timeout_s)
    return parse_metrics(reply.text)


def tokenize(
    base_url: str,
    text: str,
    api_key: str | None = None,
    *,
    parse_special: bool = True,
    timeout_s: float = 10.0,
    http: httpx.Client | None = None,
) -> list[int]:
    """The text's tokens, without BOS/EOS; ``http``: a client kept open to count many texts."""
    body = {"content": text, "add_special": False, "parse_special": parse_special}
    reply = _request(
        "POST", base_url, "/tokenize", api_key=api_key, json=body, timeout_s=timeout_s, http=http
    )
    data = _json(reply)
    tokens = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
        raise ServerError("server /tokenize did not answer a token list")
    return tokens


def served_model(base_url: str, api_key: str | None = None) -> ServedModel:
    data = _json(_request("GET", base_url, "/v1/models", api_key=api_key))
    models = data.get("data") if isinstance(data, dict) else None
    first = models[0] if isinstance(models, list) and models else None
    if not isinstance(first, dict):
        raise ServerError("server /v1/models lists no model")
    meta = first.get("meta")
    n_params = meta.get("n_params") if isinstance(meta, dict) else None
    return ServedModel(str(first.get("id", "")), n_params if isinstance(n_params, int) else None)


def complete(
    base_url: str, body: dict[str, Any], *, api_key: str | None = None, timeout_s: float = 120.0
) -> Any:
    """One non-streaming chat completion: the reply's JSON as it came."""
    reply = _request(
        "POST", base_url, "/v1/chat/completions", api_key=api_key, json=body, timeout_s=timeout_s
    )
    return _json(reply)


def chat(
    base_url: str,
    messages: list[dict[str, Any]],
    *,
    api_key: str | None = None,
    timeout_s: float = 120.0,
    **fields: Any,
) -> tuple[str, Timings]:
    """One non-streaming chat completion: the reply text and its timings."""
    body = {"messages": messages, **fields}
    data = complete(base_url, body, api_key=api_key, timeout_s=timeout_s)
    try:
        text = str(data["choices"][0]["message"].get("content") or "")
        timings = data["timings"]
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ServerError("chat completion reply lacks choices[0].message or timings") from None
    return text, Timings.from_json(timings)
