"""The bench's modes (none, dflash, n-gram types, combinations, draft-max settings) as launches.

A mode is written `TYPE[+TYPE...][@N]`: `none`, `dflash`, `ngram-mod`, `dflash+ngram-mod`,
`dflash@8` (draft-max 8). Each becomes a variant of one profile served by the same engine build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from server.cli.progress import Hooks
from server.engine.build import Engine, ensure_engine
from server.engine.dialect import Dialect, probe
from server.engine.gpu import gpus
from server.errors import ServerError
from server.launch.fit import plan_memory
from server.launch.llama_argv import build_argv
from server.launch.plan import engine_for
from server.models.fetch import ensure_model
from server.models.gguf_info import GgufInfo, read_gguf
from server.profiles.catalog import get_profile
from server.profiles.profile import Profile, nospec_twin

NONE = "none"
DFLASH = "dflash"
MTP = "draft-mtp"  # the target's MTP heads; Gemma 4's come as a separate draft file
NGRAM_TYPES = ("ngram-mod", "ngram-cache", "ngram-simple", "ngram-map-k", "ngram-map-k4v")
# What `beecode bench` compares on a CPU profile without a draft (cpu-rig.md §7).
CPU_NGRAM_MODES = ("ngram-mod", "ngram-cache", "ngram-simple", "ngram-map-k")

_MODE = re.compile(r"^(?P<types>[a-z0-9-]+(\+[a-z0-9-]+)*)(@(?P<n>[1-9][0-9]*))?$")


class BenchError(ServerError):
    """A bench request that cannot run as asked (bad mode, a mode the profile cannot serve)."""


@dataclass(frozen=True)
class Mode:
    label: str
    types: tuple[str, ...]  # () for none; "dflash" first when present
    draft_max: int | None

    @property
    def uses_draft(self) -> bool:
        return DFLASH in self.types or MTP in self.types


def parse_mode(text: str) -> Mode:
    found = _MODE.match(text.strip())
    if found is None:
        raise BenchError(
            f"bad mode '{text}': write TYPE[+TYPE...][@DRAFT_MAX], e.g. "
            "none, dflash, ngram-mod, dflash+ngram-mod, dflash@8"
        )
    types = tuple(found["types"].split("+"))
    if NONE in types and len(types) > 1:
        raise BenchError(f"bad mode '{text}': none cannot be combined")
    if len(set(types)) != len(types):
        raise BenchError(f"bad mode '{text}': a type is repeated")
    n = int(found["n"]) if found["n"] else None
    if types == (NONE,):
        if n is not None:
            raise BenchError(f"bad mode '{text}': none has no draft-max")
        return Mode(NONE, (), None)
    ordered = tuple(sorted(types, key=lambda t: t not in (DFLASH, MTP)))  # the draft's type leads
    return Mode(text.strip(), ordered, n)


def parse_modes(text: str) -> list[Mode]:
    modes = [parse_mode(part) for part in text.split(",") if part.strip()]
    if not modes:
        raise BenchError("--modes is empty")
    labels = [m.label for m in modes]
    if len(set(labels)) != len(labels):
        raise BenchError(f"--modes repeats a mode: {text}")
    return modes


def default_modes(profile: Profile) -> list[Mode]:
    """none and the profile's speculation; every n-gram type on a CPU profile without a draft."""
    spec = profile.spec_type
    if spec == MTP:
        return [parse_mode(NONE), parse_mode(MTP)]
    if profile.draft is not None or spec == DFLASH:
        return [parse_mode(NONE), parse_mode(DFLASH)]
    if profile.backend == "cpu":
        ngram = [spec] if spec in NGRAM_TYPES else []
        ngram += [t for t in CPU_NGRAM_MODES if t != spec]
        return [parse_mode(NONE), *(parse_mode(t) for t in ngram)]
    return [parse_mode(NONE)] + ([parse_mode(spec)] if spec else [])


def mode_profile(profile: Profile, mode: Mode, draft_max: int | None = None) -> Profile:
    """The profile variant that serves one mode; none is the profile's no-speculation twin."""
    if not mode.types:
        return get_profile(profile.baseline) if profile.baseline else nospec_twin(profile)
    if DFLASH in mode.types and profile.draft is None:
        raise BenchError(
            f"mode {mode.label} needs a draft model and profile '{profile.name}' "
            "has none (the CPU DFlash path runs with --profile smol-dflash)"
        )
    return replace(
        profile,
        spec_type=mode.types[0],
        draft=profile.draft if mode.uses_draft else None,
        draft_max=mode.draft_max or draft_max or profile.draft_max,
    )


@dataclass(frozen=True)
class Served:
    """One engine build and the profile's model files: every mode runs on exactly these."""

    engine: Engine
    dialect: Dialect
    target: Path
    target_info: GgufInfo
    draft: Path | None
    draft_info: GgufInfo | None


def prepare(profile: Profile, modes: list[Mode], hooks: Hooks) -> Served:
    """Build (or find) the engine `server up` would use and fetch the models the modes need."""
    engine = ensure_engine(*engine_for(profile), hooks.build)
    target = ensure_model(profile.target, hooks.download)
    needs_draft = any(m.uses_draft for m in modes)
    draft = ensure_model(profile.draft, hooks.download) if needs_draft and profile.draft else None
    dialect = probe(engine.binary)
    known = set(dialect.spec_types)
    for mode in modes:
        unknown = [t for t in mode.types if t != DFLASH and t not in known]
        if unknown:
            raise BenchError(
                f"this llama-server has no --spec-type {unknown[0]} "
                f"(it knows: {', '.join(dialect.spec_types)})"
            )
    return Served(
        engine,
        dialect,
        target,
        read_gguf(target),
        draft,
        read_gguf(draft) if draft is not None else None,
    )


def mode_argv(served: Served, profile: Profile, mode: Mode, port: int) -> list[str]:
    """The launch of one mode's profile variant, fitted to this machine like `server up`."""
    devices = gpus()
    free_mib = float(devices[0].memory_free_mib) if profile.backend == "cuda" and devices else None
    draft_info = served.draft_info if mode.uses_draft else None
    memory = plan_memory(profile, served.target_info, draft_info, free_mib, served.dialect)
    if not memory.fits:
        raise BenchError(f"mode {mode.label} does not fit: {memory.explanation.splitlines()[0]}")
    argv = build_argv(
        served.engine.binary,
        profile,
        served.dialect,
        served.target,
        served.draft if mode.uses_draft else None,
        port=port,
        ctx=memory.ctx,
        cache_types=(memory.cache_type_k, memory.cache_type_v),
        target_info=served.target_info,
        draft_info=draft_info,
    )
    if len(mode.types) > 1:
        # build_argv spells one type (DFlash per dialect); llama-server takes a comma list.
        at = argv.index("--spec-type") + 1
        argv[at] = ",".join([argv[at], *mode.types[1:]])
    return argv
