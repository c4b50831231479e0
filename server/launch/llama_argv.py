"""The llama-server command line for a profile, spelled in the dialect the binary speaks.

The seed recipe (llama-server.md §1.6) is written in the BeeLlama <= 0.3 dialect; upstream llama.cpp
and BeeLlama >= 0.4 spell DFlash `draft-dflash`, have no cross-ctx or draft-context flags, and load
with `--load-mode`. build_argv emits only flags the probed `--help` listed, and refuses a draft the
engine cannot run before anything starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from server.engine.dialect import Dialect
from server.errors import LaunchError, ModelError, ProfileError
from server.launch.addresses import check_host
from server.models.gguf_info import GgufInfo, read_gguf
from server.profiles.profile import Profile

# BeeLlama <= 0.3: the seed's boot log shows cross_ctx=1024 and Bee's quickstart found no gain above
# it; 256 is the draft context Bee forces for DFlash anyway, passed so the command says so.
FORK_CROSS_CTX = 1024
FORK_DRAFT_CTX = 256
# Upstream DFlash drafts at most block_size - 1 tokens; its --spec-draft-n-max default is 3.
UPSTREAM_DFLASH_N_MAX = 15
DFLASH_ARCHS = {"dflash-draft": "dflash", "dflash": "draft-dflash"}  # draft arch -> spec type
DEFAULT_CACHE_TYPE = "f16"

# The spelling used here (the seed's), then the other spellings llama-server accepts.
_ALIASES: dict[str, tuple[str, ...]] = {
    "-m": ("--model",),
    "-md": ("--spec-draft-model", "--model-draft"),
    "-cd": ("--spec-draft-ctx-size", "--ctx-size-draft"),
    "-np": ("--parallel",),
    "-kvu": ("--kv-unified",),
    "-ngl": ("--gpu-layers", "--n-gpu-layers"),
    "--spec-draft-ngl": ("-ngld", "--gpu-layers-draft"),
    "-b": ("--batch-size",),
    "-ub": ("--ubatch-size",),
    "-c": ("--ctx-size",),
    "-fa": ("--flash-attn",),
    "-ctk": ("--cache-type-k",),
    "-ctv": ("--cache-type-v",),
    "--reasoning": ("-rea",),
    "--load-mode": ("-lm",),
}


class _Args:
    """Collects argv, keeping only what the dialect lists (in the seed's spelling when it can)."""

    def __init__(self, dialect: Dialect, binary: Path) -> None:
        self.dialect = dialect
        self.argv = [str(binary)]

    def spelling(self, flag: str) -> str | None:
        for name in (flag, *_ALIASES.get(flag, ())):
            if self.dialect.has(name):
                return name
        return None

    def opt(self, flag: str, *values: object) -> bool:
        """Add a tuning flag; silently left out when this binary does not list it."""
        name = self.spelling(flag)
        if name is not None:
            self.argv += [name, *(_text(v) for v in values)]
        return name is not None

    def need(self, flag: str, *values: object) -> None:
        """Add a flag the launch cannot do without; LaunchError when the binary lacks it."""
        if not self.opt(flag, *values):
            raise LaunchError(
                f"this llama-server has no {flag} flag; rebuild it with `beecode server build`"
            )


def _text(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def resolve_spec_type(
    profile: Profile,
    dialect: Dialect,
    draft: Path | None,
    draft_info: GgufInfo | None,
) -> str | None:
    """The --spec-type value this engine needs, refusing drafts it cannot run."""
    wanted = profile.spec_type
    arch = draft_info.architecture if draft_info is not None else None
    if wanted != "dflash" and not (wanted is None and arch in DFLASH_ARCHS):
        if wanted is not None and wanted not in dialect.spec_types:
            raise LaunchError(
                f"this llama-server does not know --spec-type {wanted} "
                f"(it knows: {', '.join(dialect.spec_types)})"
            )
        return wanted
    if draft is None or arch is None:
        raise ProfileError(f"profile '{profile.name}' uses DFlash but names no draft model")
    if arch not in DFLASH_ARCHS:
        raise ModelError(
            f"draft {draft.name} has architecture '{arch}', not a DFlash drafter "
            "('dflash' or 'dflash-draft')"
        )
    needed = DFLASH_ARCHS[arch]
    if dialect.dflash_type is None:
        raise LaunchError(
            "this llama-server has no DFlash support; build one with "
            "`beecode server build --source upstream` or use the -nospec profile"
        )
    if dialect.dflash_type != needed:
        if arch == "dflash-draft":
            raise ModelError(
                f"draft {draft.name} is a BeeLlama <= 0.3 drafter (architecture "
                "'dflash-draft') but this engine runs 'dflash' drafters only; use an "
                "upstream-format drafter or `beecode server build --source beellama`"
            )
        raise ModelError(
            f"draft {draft.name} is an upstream-format drafter (architecture "
            "'dflash') but this engine (BeeLlama <= 0.3) runs 'dflash-draft' "
            "drafters only; use `beecode server build --source upstream`"
        )
    return needed


def _check_draft_vocab(target: GgufInfo, draft: GgufInfo) -> None:
    if draft.architecture not in DFLASH_ARCHS and draft.vocab_size != target.vocab_size:
        raise ModelError(
            f"draft {draft.path.name} has a {draft.vocab_size}-token vocabulary, the "
            f"target {target.vocab_size}: a draft must share the target's tokenizer"
        )


def _check_cache_type(kind: str, value: str, dialect: Dialect) -> None:
    if value not in dialect.cache_types:
        raise LaunchError(
            f"this llama-server does not support cache type {kind}={value} "
            f"(it supports: {', '.join(dialect.cache_types)})"
        )


# Where the server listens and who may use it are the launcher's to say, never a profile's: a
# shared profile with "--host 0.0.0.0" would otherwise open the model to the network.
_LAUNCHER_FLAGS = frozenset({"--host", "--api-key", "--api-key-file", "--port"})


def _extra_args(args: _Args, extra: Sequence[str]) -> None:
    """A profile's extra flags, each with the values that follow it, dropped when not listed."""
    i = 0
    while i < len(extra):
        flag, i = extra[i], i + 1
        values: list[str] = []
        while i < len(extra) and not _is_flag(extra[i]):
            values.append(extra[i])
            i += 1
        if flag.split("=", 1)[0] not in _LAUNCHER_FLAGS:
            args.opt(flag, *values)


def _is_flag(token: str) -> bool:
    return token.startswith("-") and not token[1:2].isdigit() and token != "-"


def _model_args(
    args: _Args, profile: Profile, target: Path, draft: Path | None, spec: str | None
) -> None:
    args.need("-m", target)
    if draft is not None:
        args.need("-md", draft)
    if spec is not None:
        args.need("--spec-type", spec)
    if spec == "dflash":
        args.opt("--spec-dflash-cross-ctx", FORK_CROSS_CTX)
        args.opt("-cd", FORK_DRAFT_CTX)
    n_max = profile.draft_max or (UPSTREAM_DFLASH_N_MAX if spec == "draft-dflash" else None)
    if spec == "ngram-mod" and n_max:
        # ngram-mod ignores --spec-draft-n-max: its draft length is its own. Its n-min (48 by
        # default) is a floor only below n-max, so a shorter cap also lowers the floor.
        args.opt("--spec-ngram-mod-n-max", n_max)
    elif spec is not None and n_max:
        args.opt("--spec-draft-n-max", n_max)
    if spec in DFLASH_ARCHS.values():
        # Bee's profit controller times each draft depth (depth 0 included, per context-length
        # band) and lowers or stops drafting when it stops paying; on by default in Bee, said
        # here so the command shows it. Upstream has no such controller: the flags drop out.
        args.opt("--spec-dm-adaptive")
        args.opt("--spec-dm-controller", "profit")
    args.opt("-np", profile.n_parallel)
    args.opt("-kvu")
    args.opt("-ngl", profile.gpu_layers)
    if draft is not None:
        args.opt("--spec-draft-ngl", profile.gpu_layers)


def _context_args(
    args: _Args, profile: Profile, ctx: int, cache_types: tuple[str, str] | None
) -> None:
    args.opt("-b", profile.batch)
    args.opt("-ub", profile.ubatch)
    args.opt("-c", ctx)
    args.opt("-fa", "on" if profile.flash_attn else "off")
    type_k, type_v = cache_types or (
        profile.cache_type_k or DEFAULT_CACHE_TYPE,
        profile.cache_type_v or DEFAULT_CACHE_TYPE,
    )
    for flag, kind, value in (("-ctk", "k", type_k), ("-ctv", "v", type_v)):
        if value != DEFAULT_CACHE_TYPE:
            _check_cache_type(kind, value, args.dialect)
            args.need(flag, value)


_SAMPLING_FLAGS = (
    ("--temp", "temperature"),
    ("--top-k", "top_k"),
    ("--top-p", "top_p"),
    ("--min-p", "min_p"),
)


def _serving_args(args: _Args, profile: Profile) -> None:
    args.opt("--jinja")
    args.opt("--metrics")
    args.opt("--reasoning", profile.reasoning)
    for flag, key in _SAMPLING_FLAGS:
        if key in profile.sampling:
            value = profile.sampling[key]
            args.opt(flag, int(value) if key == "top_k" else float(value))
    # The seed pins GPU weights in RAM; CPU profiles keep mmap (mlock needs RLIMIT_MEMLOCK).
    if profile.backend == "cuda":
        if args.dialect.load_mode:
            args.opt("--load-mode", "mlock")
        elif args.opt("--no-mmap"):
            args.opt("--mlock")


def build_argv(
    binary: Path,
    profile: Profile,
    dialect: Dialect,
    target: Path,
    draft: Path | None,
    *,
    host: str = "127.0.0.1",
    port: int,
    ctx: int | None = None,
    cache_types: tuple[str, str] | None = None,
    api_key: str | None = None,
    api_key_file: Path | None = None,
    target_info: GgufInfo | None = None,
    draft_info: GgufInfo | None = None,
    slot_dir: Path | None = None,
    mmproj: Path | None = None,
) -> list[str]:
    """The full command line; target_info/draft_info save re-reading GGUFs the caller has read.
    ``slot_dir``: where the server may save and restore slots (a session's prompt cache).
    ``mmproj``: the vision projector to load (the model then reads images)."""
    check_host(host, api_key)
    if draft is not None and draft_info is None:
        draft_info = read_gguf(draft)
    spec = resolve_spec_type(profile, dialect, draft, draft_info)
    if draft_info is not None and draft_info.architecture not in DFLASH_ARCHS:
        _check_draft_vocab(target_info or read_gguf(target), draft_info)
    args = _Args(dialect, binary)
    _model_args(args, profile, target, draft, spec)
    if mmproj is not None:
        args.need("--mmproj", mmproj)
    _context_args(args, profile, ctx or profile.ctx, cache_types)
    _serving_args(args, profile)
    _extra_args(args, profile.extra_args)
    if slot_dir is not None:
        args.opt("--slot-save-path", slot_dir)
    args.need("--host", host)
    args.need("--port", port)
    if api_key:
        args.need("--api-key", api_key)
    elif api_key_file is not None and not args.opt("--api-key-file", api_key_file):
        # An engine without --api-key-file gets the key itself (then visible in ps).
        args.need("--api-key", api_key_file.read_text(encoding="ascii").strip())
    return args.argv
