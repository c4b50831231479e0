"""`beecode server plan`: the launch and its memory budget without building or downloading.

What is on this machine is used as `server up` would use it (a built engine's own `--help`, the
model files' headers); what is not comes from the profile: the flag dialect of the engine
release it would build (server.engine.known_dialects) and the facts its models state (size and
GGUF metadata). A plan can be made for a card this machine does not have (`--gpu`, `--vram`);
every assumption is returned as a note beside the command.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from server.engine.build import BuildOptions, cached_engine
from server.engine.dialect import probe
from server.engine.gpu import Gpu, gpus
from server.engine.known_dialects import presumed_dialect
from server.errors import ProfileError
from server.launch.addresses import check_host
from server.launch.plan import LaunchPlan, assemble, engine_for, stated_size
from server.models.fetch import cached_model
from server.models.gguf_info import GgufInfo, info_from_facts, read_gguf
from server.models.spec import ModelSpec
from server.profiles.builtin import default_profile_name
from server.profiles.catalog import get_profile

GIB = 1 << 30


def plan_offline(
    profile_name: str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    api_key: str | None = None,
    card: Gpu | None = None,
    cuda_archs: str | None = None,
) -> LaunchPlan:
    """The launch `server up` would make, for this machine or for `card`; builds nothing,
    downloads nothing."""
    check_host(host, api_key)
    devices = [card] if card is not None else gpus()
    profile = get_profile(profile_name or default_profile_name(devices))
    source, options = engine_for(profile)
    notes: list[str] = []
    if profile.backend == "cuda":
        seen = ";".join(sorted({g.cuda_arch for g in devices if g.cuda_arch}))
        options = replace(options, cuda_archs=cuda_archs or options.cuda_archs or seen or None)
    built = None if _archs_unknown(options) else cached_engine(source, options)
    what = f"{source.kind} {source.ref} ({_backend(options)})"
    if built is not None:
        binary, dialect = built.binary, probe(built.binary)
        notes.append(f"engine {what}: built, flags from its --help")
    else:
        binary, dialect = Path("llama-server"), presumed_dialect(source)
        hint = "; give --cuda-archs (or --gpu) to name the build" if _archs_unknown(options) else ""
        notes.append(f"engine {what}: not built; flags as that release spells them{hint}")
    target_path, target_info = _model("model", profile.target, profile.name, notes)
    draft: tuple[Path | None, GgufInfo | None] = (None, None)
    if profile.draft is not None:
        draft = _model("draft", profile.draft, profile.name, notes)
    if card is not None:
        gib = card.memory_total_mib / 1024
        notes.append(f"card {card.name}: {gib:g} GiB, all of it free (not this machine's card)")
    free_mib = float(devices[0].memory_free_mib) if profile.backend == "cuda" and devices else None
    mmproj: tuple[Path | None, int | None] = (None, None)
    if profile.mmproj is not None and profile.vision != "off":
        cached = cached_model(profile.mmproj)
        size = cached.stat().st_size if cached is not None else stated_size(profile.mmproj)
        mmproj = (cached or Path(profile.mmproj.filename or "mmproj.gguf"), size)
        where = str(cached) if cached else f"{profile.mmproj.describe()}: not downloaded"
        notes.append(f"vision projector {where}")
    return assemble(
        profile, dialect, binary, (target_path, target_info), draft, free_mib,
        host=host, port=port, api_key=api_key, notes=tuple(notes), mmproj=mmproj,
    )  # fmt: skip


def _archs_unknown(options: BuildOptions) -> bool:
    return options.backend == "cuda" and not options.cuda_archs


def _backend(options: BuildOptions) -> str:
    if options.backend != "cuda":
        return options.backend
    return f"cuda {options.cuda_archs}" if options.cuda_archs else "cuda, architectures unknown"


def _model(label: str, spec: ModelSpec, profile: str, notes: list[str]) -> tuple[Path, GgufInfo]:
    """The file and its figures: read from disk when cached, else stated by the profile."""
    path = cached_model(spec)
    if path is not None:
        notes.append(f"{label} {path}")
        return path, read_gguf(path)
    info = info_from_facts(spec)
    if info is None or spec.facts is None:
        raise ProfileError(
            f"{spec.describe()} is not on this machine and profile '{profile}' states no facts "
            f"about it; fetch it first (`beecode server fetch --profile {profile}`)"
        )
    size = spec.facts.size_bytes
    known = f"{size / GIB:.2f} GiB" if size else "size unknown"
    notes.append(f"{label} {spec.describe()}: not downloaded; {known} ({spec.facts.source})")
    return info.path, info
