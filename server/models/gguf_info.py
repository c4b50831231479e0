"""What beecode needs to know about a GGUF model, derived from its header metadata alone.

The metadata itself comes from server.models.gguf_header's walk; this module turns it into the
figures fit and launch use: layers, per-layer KV heads, sliding-window layers, vocabulary, DFlash
facts. The figures are cached per file (path, size and mtime) in cache_dir()/gguf_info.json, so a
`server up` of files it has seen reads no header and imports neither gguf nor numpy (~0.5 s).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.errors import ModelError
from server.models.spec import ModelSpec
from server.paths import cache_dir, read_json_object, write_json

if TYPE_CHECKING:
    from server.models.gguf_header import MetaValue

CACHE_FILE = "gguf_info.json"
# Bump when the figures derived here change: cached ones from older code are read again.
DERIVATION = 1

# Architectures that enable sliding-window attention with a fixed layer pattern when the GGUF has
# no `sliding_window_pattern` key: (n_pattern, dense_first), as each model's loader in llama.cpp
# (`src/models/*.cpp`, `load_swa_pattern`). Gemma 4 stores a per-layer array; 6 is its fallback.
_SWA_PATTERNS: dict[str, tuple[int, bool]] = {
    "gemma2": (2, False),
    "gemma3": (6, False),
    "gemma3n": (5, False),
    "gemma4": (6, False),
    "gemma-embedding": (6, False),
    "cohere2": (4, False),
    "cohere2moe": (4, True),
    "llama4": (4, False),
    "exaone4": (4, False),
    "olmo2": (4, False),
    "gpt-oss": (2, False),
    "plamo3": (8, False),
    "smallthinker": (4, True),
}
# Hybrid models whose recurrent layers hold no KV cache: default full-attention interval.
_HYBRID_INTERVALS: dict[str, int] = {
    "qwen35": 4,
    "qwen35moe": 4,
    "qwen3next": 4,
    "qwen4exp": 4,
    "minimax01": 8,
}


@dataclass(frozen=True)
class GgufInfo:
    path: Path
    architecture: str
    name: str
    size_bytes: int
    context_length: int
    block_count: int
    embedding_length: int
    head_count: int
    head_count_kv: tuple[int, ...]  # per layer; 0 where a layer keeps no KV (recurrent, shared)
    key_length: int
    value_length: int
    key_length_swa: int | None
    value_length_swa: int | None
    sliding_window: int | None
    swa_layers: tuple[bool, ...]  # per layer: True where attention is sliding-window
    vocab_size: int
    dflash_block_size: int | None
    has_chat_template: bool
    dflash_target_layers: tuple[int, ...] = ()


def read_gguf(path: Path) -> GgufInfo:
    """Metadata of a GGUF model file; ModelError with a one-line reason for missing or bad files."""
    path = Path(path)
    try:
        st = path.stat()
        stamp = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "derivation": DERIVATION}
    except OSError:
        stamp = None  # the header read below says what is wrong with the file
    cache = (read_json_object(cache_dir() / CACHE_FILE) or {}) if stamp else {}
    key = str(path.resolve())
    cached = _cached(cache.get(key), stamp, path)
    if cached is not None:
        return cached
    from server.models.gguf_header import read_metadata

    meta = read_metadata(path)
    arch = meta.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelError(f"{path} has no general.architecture; it is not a model GGUF")
    info = _info_from_metadata(path, arch, meta, path.stat().st_size)
    if stamp is not None:
        figures = {k: v for k, v in asdict(info).items() if k != "path"}
        cache = {k: v for k, v in cache.items() if Path(k).exists()}  # files since deleted go
        cache[key] = {**stamp, "info": figures}
        write_json(cache_dir() / CACHE_FILE, cache)
    return info


def _cached(entry: object, stamp: dict[str, int] | None, path: Path) -> GgufInfo | None:
    if stamp is None or not isinstance(entry, dict):
        return None
    if any(entry.get(k) != v for k, v in stamp.items()):
        return None
    figures = entry.get("info")
    if not isinstance(figures, dict):
        return None
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in figures.items()}
    try:
        return GgufInfo(path=path, **values)
    except TypeError:  # written by another beecode version
        return None


def info_from_facts(spec: ModelSpec) -> GgufInfo | None:
    """The same figures from the facts a profile states (size 0 where the size is unknown)."""
    if spec.facts is None:
        return None
    meta: dict[str, MetaValue] = dict(spec.facts.metadata)
    arch = meta.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelError(f"the facts of {spec.describe()} name no general.architecture")
    return _info_from_metadata(Path(spec.filename), arch, meta, spec.facts.size_bytes or 0)


def _info_from_metadata(
    path: Path, arch: str, meta: dict[str, MetaValue], size_bytes: int
) -> GgufInfo:
    from server.models.gguf_header import ArrayLength

    def num(key: str, default: int = 0) -> int:
        value = meta.get(f"{arch}.{key}")
        if isinstance(value, tuple):  # per-layer arrays: the largest entry is the model's figure
            return max((int(v) for v in value if isinstance(v, int | float)), default=default)
        return int(value) if isinstance(value, int | float) else default

    def optional(key: str) -> int | None:
        return num(key) if f"{arch}.{key}" in meta else None

    n_layer = num("block_count")
    n_embd = num("embedding_length")
    n_head = num("attention.head_count")
    head_dim = n_embd // n_head if n_head else 0
    kv_heads = _per_layer_kv_heads(meta, arch, n_layer, n_head)
    window = optional("attention.sliding_window")
    swa = _swa_layers(meta, arch, n_layer, window)
    tokens = meta.get("tokenizer.ggml.tokens")
    vocab = num("vocab_size") or (tokens.length if isinstance(tokens, ArrayLength) else 0)
    if not vocab and isinstance(tokens, tuple):
        vocab = len(tokens)
    targets = meta.get(f"{arch}.target_layers", meta.get(f"{arch}.dflash.target_layer_ids", ()))
    name = meta.get("general.name")
    return GgufInfo(
        path=path,
        architecture=arch,
        name=name if isinstance(name, str) and name else path.stem,
        size_bytes=size_bytes,
        context_length=num("context_length"),
        block_count=n_layer,
        embedding_length=n_embd,
        head_count=n_head,
        head_count_kv=kv_heads,
        key_length=num("attention.key_length", head_dim),
        value_length=num("attention.value_length", head_dim),
        key_length_swa=optional("attention.key_length_swa"),
        value_length_swa=optional("attention.value_length_swa"),
        sliding_window=window if window else None,
        swa_layers=swa,
        vocab_size=vocab,
        dflash_block_size=_dflash_block_size(meta, arch),
        has_chat_template="tokenizer.chat_template" in meta,
        dflash_target_layers=tuple(int(t) for t in targets if isinstance(t, int))
        if isinstance(targets, tuple)
        else (),
    )


def _per_layer_kv_heads(
    meta: dict[str, MetaValue], arch: str, n_layer: int, n_head: int
) -> tuple[int, ...]:
    raw = meta.get(f"{arch}.attention.head_count_kv", n_head)
    if isinstance(raw, tuple):
        heads = [int(v) if isinstance(v, int) else 0 for v in raw][:n_layer]
        heads += [0] * (n_layer - len(heads))
    else:
        heads = [int(raw) if isinstance(raw, int | float) else n_head] * n_layer
    recurrent = meta.get(f"{arch}.attention.recurrent_layers")
    interval = meta.get(f"{arch}.full_attention_interval", _HYBRID_INTERVALS.get(arch))
    for il in range(n_layer):
        if isinstance(recurrent, tuple):
            is_recurrent = il < len(recurrent) and bool(recurrent[il])
        else:
            is_recurrent = isinstance(interval, int) and interval > 0 and (il + 1) % interval != 0
        if is_recurrent:
            heads[il] = 0
    # Gemma 3n/4: the last `shared_kv_layers` layers reuse earlier layers' KV instead of their own.
    shared = meta.get(f"{arch}.attention.shared_kv_layers", 0)
    if isinstance(shared, int) and 0 < shared <= n_layer:
        heads[n_layer - shared :] = [0] * shared
    return tuple(heads)


def _swa_layers(
    meta: dict[str, MetaValue], arch: str, n_layer: int, window: int | None
) -> tuple[bool, ...]:
    if not window:
        return (False,) * n_layer
    pattern = meta.get(f"{arch}.attention.sliding_window_pattern")
    if isinstance(pattern, tuple):
        flags = [bool(v) for v in pattern[:n_layer]]
        return tuple(flags + [False] * (n_layer - len(flags)))
    n_pattern, dense_first = _SWA_PATTERNS.get(arch, (0, False))
    if isinstance(pattern, int):
        n_pattern = pattern
    elif arch not in _SWA_PATTERNS:
        n_pattern = 0  # a window with no pattern: llama.cpp applies it to every layer
    if n_pattern == 0:
        return (True,) * n_layer
    if dense_first:
        return tuple(il % n_pattern != 0 for il in range(n_layer))
    return tuple(il % n_pattern < n_pattern - 1 for il in range(n_layer))


def _dflash_block_size(meta: dict[str, MetaValue], arch: str) -> int | None:
    """`dflash.block_size` (upstream format) or `dflash-draft.dflash.block_size` (Bee format)."""
    if "dflash" not in arch:
        return None
    for key in (f"{arch}.block_size", f"{arch}.dflash.block_size"):
        value = meta.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None
