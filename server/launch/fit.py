"""Will the launch fit? Memory arithmetic from GGUF metadata, after llama-server.md §4.

Device memory = target weights + KV cache + draft (weights, KV, DFlash ring, compute) + compute
buffers + a margin. When a GPU's free memory is known and the profile does not fit, the context is
stepped down first, then the KV cache types (f16 -> q8_0 -> q4_0), and the choice explained.
CPU profiles (free memory unknown) are not fitted; their plan still says how much RAM they need,
as a CUDA profile's plan without a card says how much GPU memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from server.models.gguf_info import GgufInfo

if TYPE_CHECKING:
    from server.engine.dialect import Dialect
    from server.profiles.profile import Profile

MIB = 1 << 20
GIB = 1 << 30
# Bytes per cached element (ggml block size / bytes per block; turbo types from Bee's docs).
CACHE_TYPE_BYTES: dict[str, float] = {
    "f32": 4.0,
    "f16": 2.0,
    "bf16": 2.0,
    "q8_0": 34 / 32,
    "q5_1": 24 / 32,
    "q5_0": 22 / 32,
    "q4_1": 20 / 32,
    "q4_0": 18 / 32,
    "iq4_nl": 18 / 32,
    "turbo4": 66 / 128,
    "turbo3": 50 / 128,
    "turbo2": 34 / 128,
    "turbo3_tcq": 52 / 128,
    "turbo2_tcq": 36 / 128,
}
DEFAULT_CACHE_TYPE = "f16"
# The step-down ladder: the seed's DFlash run used f16. Same-type pairs only: a CUDA build has
# flash-attention kernels for mixed pairs (the seed's baseline q5_0/q4_1) only with
# GGML_CUDA_FA_ALL_QUANTS, which beecode turns on only for a profile that names such a pair.
CACHE_LADDER: tuple[tuple[str, str], ...] = (("f16", "f16"), ("q8_0", "q8_0"), ("q4_0", "q4_0"))
MARGIN_MIB = 1024.0  # upstream's -fitt default
CUDA_CONTEXT_MIB = 384.0  # CUDA context and cuBLAS workspaces, 0.3-0.5 GiB in practice
MIN_CTX = 2048
BEE_DRAFT_CTX = 256  # Bee <= 0.3 forces -cd 256 for DFlash
BEE_CROSS_CTX = 1024  # the seed's --spec-dflash-cross-ctx
# Activations held per ubatch token, in units of n_embd floats; fitted so Gemma 4 31B at -ub 512
# gets ~0.7 GiB besides its 0.5 GiB of logits (llama-server.md §4: 0.8-1.5 GiB in total).
_ACTIVATION_FLOATS_PER_EMBD = 64
# The vision projector's compute buffer (one image through its encoder), besides its weights:
# an estimate, not measured on a GPU yet (llama.cpp's clip reserves it at load).
PROJECTOR_COMPUTE_MIB = 512.0


@dataclass(frozen=True)
class MemoryPlan:
    weights_mib: float
    kv_mib: float
    draft_mib: float
    compute_mib: float
    margin_mib: float
    total_mib: float
    free_mib: float | None
    ctx: int
    cache_type_k: str
    cache_type_v: str
    fits: bool
    explanation: str  # first line: the verdict; later lines: the breakdown
    projector_mib: float = 0.0  # the vision projector, when it is launched (0: not)

    @property
    def vision(self) -> bool:
        """Whether the launch loads the vision projector (``--mmproj``)."""
        return self.projector_mib > 0


def pad(n: int, to: int) -> int:
    return -(-n // to) * to


def kv_cache_bytes(
    info: GgufInfo, ctx: int, type_k: str, type_v: str, n_seq: int = 1, ubatch: int = 512
) -> int:
    """KV cache size as llama.cpp allocates it: full-attention layers hold pad256(ctx) cells,
    sliding-window layers pad256(min(ctx, n_swa * n_seq + ubatch)) (`llama-kv-cache-iswa.cpp`)."""
    b_k, b_v = _bytes_per_element(type_k), _bytes_per_element(type_v)
    full_cells = pad(ctx, 256)
    window = info.sliding_window or 0
    swa_cells = pad(min(full_cells, window * n_seq + ubatch), 256) if window else full_cells
    total = 0.0
    for il, heads in enumerate(info.head_count_kv):
        if heads <= 0:
            continue
        swa = il < len(info.swa_layers) and info.swa_layers[il] and window > 0
        k_len = (info.key_length_swa if swa else None) or info.key_length
        v_len = (info.value_length_swa if swa else None) or info.value_length
        cells = swa_cells if swa else full_cells
        total += cells * heads * (k_len * b_k + v_len * b_v)
    return int(total)


def _bytes_per_element(cache_type: str) -> float:
    try:
        return CACHE_TYPE_BYTES[cache_type]
    except KeyError:
        known = ", ".join(CACHE_TYPE_BYTES)
        raise ValueError(f"unknown KV cache type {cache_type!r} (known: {known})") from None


def compute_bytes(info: GgufInfo, ubatch: int) -> int:
    """Compute buffers of one forward pass: f32 logits for a ubatch plus activations."""
    logits = ubatch * info.vocab_size * 4
    activations = ubatch * info.embedding_length * 4 * _ACTIVATION_FLOATS_PER_EMBD
    return logits + activations


def draft_bytes(
    profile: Profile, target: GgufInfo, draft: GgufInfo, ctx: int, dialect: Dialect | None
) -> int:
    """Draft weights + its KV + its compute (+ Bee's GPU hidden-state ring for DFlash)."""
    bee_dflash = dialect is not None and dialect.dflash_type == "dflash"
    # Bee <= 0.3 caps the DFlash draft's context at 256; upstream and Bee >= 0.4 give it the
    # target's context (the VRAM regression of Bee issues #97/#98). Unknown engine: the worst case.
    draft_ctx = BEE_DRAFT_CTX if bee_dflash and draft.dflash_block_size else ctx
    kv = kv_cache_bytes(draft, draft_ctx, DEFAULT_CACHE_TYPE, DEFAULT_CACHE_TYPE,
                        profile.n_parallel, profile.ubatch)  # fmt: skip
    if profile.spec_type == "draft-mtp":
        kv = 0  # an MTP drafter reads the target's KV (upstream speculative.cpp, is_mem_shared)
    block = draft.dflash_block_size
    draft_ubatch = min(profile.ubatch, 8 * block) if block else profile.ubatch
    # The draft's logits; it shares the target's output head, so its vocabulary too.
    compute = draft_ubatch * (draft.vocab_size or target.vocab_size) * 4
    ring = 0
    if bee_dflash and block:
        n_capture = len(draft.dflash_target_layers) or 6
        ring = n_capture * target.embedding_length * BEE_CROSS_CTX * 4
    return draft.size_bytes + kv + compute + ring


def plan_memory(
    profile: Profile,
    target: GgufInfo,
    draft: GgufInfo | None,
    free_mib: float | None,
    dialect: Dialect | None,
    projector_bytes: int | None = None,
) -> MemoryPlan:
    """The context and cache types to launch with, and why; ``projector_bytes``: the size of the
    profile's vision projector file (None: it has none, or its size is unknown)."""
    wanted_ctx = profile.ctx
    notes: list[str] = []
    if target.context_length and wanted_ctx > target.context_length:
        notes.append(f"context capped at the model's trained {target.context_length}")
        wanted_ctx = target.context_length
    wanted_types = (profile.cache_type_k or DEFAULT_CACHE_TYPE,
                    profile.cache_type_v or DEFAULT_CACHE_TYPE)  # fmt: skip
    if draft is not None and not draft.size_bytes:  # a figure for it would be a guess
        notes.append("the draft is left out of this budget: its size is unknown until fetched")
        draft = None
    projector = _projector(profile, projector_bytes, notes)
    if projector and profile.vision == "auto" and free_mib is None and profile.backend == "cuda":
        notes.append("vision projector left out: whether it fits is known only for a card "
                     '(--gpu NAME or --vram GiB), or with vision = "on"')  # fmt: skip
        projector = 0.0
    if projector and profile.vision == "auto" and free_mib is not None:
        at_full = _plan(profile, target, draft, free_mib, dialect, wanted_ctx, wanted_types)
        if not _fits_with(at_full, projector):
            notes.append(f"vision projector left out: {wanted_ctx} context with it needs "
                         f"{_gib(at_full.total_mib + projector)} of {_gib(free_mib)} free; "
                         'vision = "on" trades context for it')  # fmt: skip
            projector = 0.0
    plan, verdict = _fitted(
        profile, target, draft, free_mib, dialect, wanted_ctx, wanted_types, projector
    )
    stepped = (plan.ctx, _types(plan)) != (wanted_ctx, "/".join(wanted_types))
    if projector and stepped and free_mib is not None and plan.fits:
        bare = _plan(profile, target, draft, free_mib, dialect, wanted_ctx, wanted_types)
        if bare.fits:
            notes.append(f'vision = "on": stepped down to make room for the vision projector '
                         f"({_gib(projector)}); without it {wanted_ctx} context with "
                         f"{_types(bare)} KV fits")  # fmt: skip
    return _explained(plan, verdict, notes)


def _fits_with(plan: MemoryPlan, extra_mib: float) -> bool:
    """Whether ``plan`` still fits with ``extra_mib`` more."""
    return plan.free_mib is None or plan.total_mib + extra_mib <= plan.free_mib


def _projector(profile: Profile, size: int | None, notes: list[str]) -> float:
    """The projector's MiB in the budget (weights and compute), 0 when it is not launched."""
    if profile.mmproj is None or profile.vision == "off":
        return 0.0
    if not size:
        notes.append("vision projector left out: its size is unknown until fetched")
        return 0.0
    return size / MIB + PROJECTOR_COMPUTE_MIB


def _fitted(
    profile: Profile,
    target: GgufInfo,
    draft: GgufInfo | None,
    free_mib: float | None,
    dialect: Dialect | None,
    wanted_ctx: int,
    wanted_types: tuple[str, str],
    projector: float,
) -> tuple[MemoryPlan, str]:
    """The plan at the wanted context, else stepped down until it fits, and its verdict."""
    first = _plan(profile, target, draft, free_mib, dialect, wanted_ctx, wanted_types, projector)
    if free_mib is None and profile.backend == "cuda":
        verdict = (f"needs about {_gib(first.total_mib)} of GPU memory (no card to fit it to: "
                   "give --gpu NAME or --vram GiB)")  # fmt: skip
        return first, verdict
    if free_mib is None:
        return first, f"runs on CPU: needs about {_gib(first.total_mib)} of RAM"
    if first.fits:
        verdict = (f"fits: {_gib(first.total_mib)} of {_gib(free_mib)} free "
                   f"at {first.ctx} context with {_types(first)} KV")  # fmt: skip
        return first, verdict
    for ctx, types in _candidates(profile, wanted_ctx, wanted_types, dialect):
        plan = _plan(profile, target, draft, free_mib, dialect, ctx, types, projector)
        if plan.fits:
            verdict = (f"fits after stepping down: {ctx} context with {_types(plan)} KV needs "
                       f"{_gib(plan.total_mib)} of {_gib(free_mib)} free "
                       f"({wanted_ctx} context with {_types(first)} KV needs "
                       f"{_gib(first.total_mib)})")  # fmt: skip
            return plan, verdict
    smallest = _plan(
        profile, target, draft, free_mib, dialect, MIN_CTX, CACHE_LADDER[-1], projector
    )
    verdict = (f"does not fit: even {MIN_CTX} context with {_types(smallest)} KV needs "
               f"{_gib(smallest.total_mib)} but {_gib(free_mib)} is free (weights alone "
               f"{_gib(first.weights_mib)}); use a smaller quant, free GPU memory, or the "
               "CPU profile 'tiny'")  # fmt: skip
    return first, verdict


def _candidates(
    profile: Profile, wanted_ctx: int, wanted_types: tuple[str, str], dialect: Dialect | None
) -> Iterator[tuple[int, tuple[str, str]]]:
    """Smaller contexts first (down to half), then each cheaper cache type from the full context
    down; the cheapest type keeps halving the context to MIN_CTX."""
    ladder = [wanted_types]
    if wanted_types in CACHE_LADDER:
        ladder += list(CACHE_LADDER[CACHE_LADDER.index(wanted_types) + 1 :])
    usable = set(dialect.cache_types) if dialect is not None and dialect.cache_types else None
    # Quantized V needs flash attention in llama.cpp; without it only K steps down.
    ladder = [(k, v if profile.flash_attn else wanted_types[1]) for k, v in ladder]
    ladder = [t for t in dict.fromkeys(ladder) if usable is None or set(t) <= usable | {"f16"}]
    steps = [c for c in (wanted_ctx, wanted_ctx * 3 // 4, wanted_ctx // 2) if c >= MIN_CTX]
    for i, types in enumerate(ladder):
        contexts = list(steps)
        if i == len(ladder) - 1:
            ctx = wanted_ctx // 4
            while ctx >= MIN_CTX:
                contexts.append(ctx)
                ctx //= 2
        for ctx in dict.fromkeys(pad(c, 256) for c in contexts):
            if (ctx, types) != (wanted_ctx, wanted_types):
                yield ctx, types


def _plan(
    profile: Profile,
    target: GgufInfo,
    draft: GgufInfo | None,
    free_mib: float | None,
    dialect: Dialect | None,
    ctx: int,
    types: tuple[str, str],
    projector: float = 0.0,
) -> MemoryPlan:
    gpu = profile.backend == "cuda"
    weights = target.size_bytes / MIB
    kv = kv_cache_bytes(target, ctx, types[0], types[1], profile.n_parallel, profile.ubatch) / MIB
    drafted = draft_bytes(profile, target, draft, ctx, dialect) / MIB if draft else 0.0
    compute = compute_bytes(target, profile.ubatch) / MIB + (CUDA_CONTEXT_MIB if gpu else 0.0)
    margin = MARGIN_MIB if gpu else 0.0
    total = weights + kv + drafted + compute + margin + projector
    fits = free_mib is None or total <= free_mib
    return MemoryPlan(weights, kv, drafted, compute, margin, total, free_mib, ctx,
                      types[0], types[1], fits, "", projector)  # fmt: skip


def _explained(plan: MemoryPlan, verdict: str, notes: list[str]) -> MemoryPlan:
    drafted = f" + draft {_gib(plan.draft_mib)}" if plan.draft_mib else ""
    drafted += f" + vision projector {_gib(plan.projector_mib)}" if plan.projector_mib else ""
    breakdown = (f"weights {_gib(plan.weights_mib)} + KV {_gib(plan.kv_mib)}{drafted} + "
                 f"compute {_gib(plan.compute_mib)} + margin "
                 f"{_gib(plan.margin_mib)} = {_gib(plan.total_mib)}")  # fmt: skip
    return replace(plan, explanation="\n".join([verdict, breakdown, *notes]))


def _types(plan: MemoryPlan) -> str:
    return f"{plan.cache_type_k}/{plan.cache_type_v}"


def _gib(mib: float) -> str:
    return f"{mib / 1024:.2f} GiB"
