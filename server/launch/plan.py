"""Everything short of starting llama-server: the profile, engine, models, memory plan and argv.

prepare_launch builds the engine and fetches the models when needed, probes the binary's flag
dialect, checks the launch fits in memory, and returns the exact command (server.launch.llama_argv)
as a LaunchPlan for the supervisor or the bench to run.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from server.cli.progress import Hooks
from server.engine.build import (
    BuildOptions,
    Engine,
    EngineSource,
    default_options,
    default_source,
    ensure_engine,
)
from server.engine.cmake_build import needs_all_quants
from server.engine.dialect import Dialect, probe
from server.engine.gpu import gpus
from server.errors import LaunchError
from server.launch.addresses import check_host
from server.launch.fit import MemoryPlan, plan_memory
from server.launch.llama_argv import build_argv
from server.models.fetch import cached_model, ensure_model
from server.models.gguf_info import GgufInfo, read_gguf
from server.models.spec import ModelSpec
from server.paths import slots_dir
from server.process.state import chosen_engine
from server.profiles.builtin import default_profile_name
from server.profiles.catalog import get_profile
from server.profiles.profile import Profile

DEFAULT_PORT = 8080  # llama-server's own default, so other tools find it where they expect


@dataclass(frozen=True)
class LaunchPlan:
    argv: list[str]
    host: str
    port: int
    profile: Profile
    dialect: Dialect
    memory: MemoryPlan | None
    target: Path | None = None
    draft: Path | None = None
    engine: Engine | None = None
    notes: tuple[str, ...] = ()  # what a plan made without the engine or models assumed
    mmproj: Path | None = None  # the vision projector launched (None: no vision)

    @property
    def command(self) -> str:
        return shlex.join(self.argv)


def engine_for(profile: Profile) -> tuple[EngineSource, BuildOptions]:
    """The engine a profile runs on: the release it names (built with the options `server build`
    chose, e.g. its CUDA architectures), else the one `server build` chose, else the default."""
    cuda = profile.backend == "cuda"
    chosen = chosen_engine(profile.backend)
    if profile.engine is not None:
        source, options = profile.engine, chosen[1] if chosen else default_options(cuda)
    else:
        source, options = chosen or (default_source(cuda), default_options(cuda))
    if cuda and needs_all_quants(profile.cache_type_k, profile.cache_type_v):
        options = replace(options, fa_all_quants=True)
    return source, options


def prepare_launch(
    profile_name: str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    api_key: str | None = None,
    api_key_file: Path | None = None,
    hooks: Hooks | None = None,
    pip_args: Sequence[str] = (),
    engine: tuple[EngineSource, BuildOptions] | None = None,
) -> LaunchPlan:
    """Everything short of starting: profile, engine (built if needed), models (fetched if
    needed), dialect, memory plan and the exact command line."""
    hooks = hooks or Hooks()
    check_host(host, api_key)
    devices = gpus()
    profile = get_profile(profile_name or default_profile_name(devices))
    source, options = engine or engine_for(profile)
    built = ensure_engine(source, options, hooks.build, pip_args)
    target = ensure_model(profile.target, hooks.download, pip_args)
    draft = ensure_model(profile.draft, hooks.download, pip_args) if profile.draft else None
    dialect = probe(built.binary)
    draft_info = read_gguf(draft) if draft is not None else None
    free_mib = float(devices[0].memory_free_mib) if profile.backend == "cuda" and devices else None
    target_info = read_gguf(target)
    mmproj = None
    if profile.mmproj is not None and profile.vision != "off":
        # Fetched only where the plan launches it (the size on disk or else the stated one
        # decides, as `server plan` counts it), then counted as is.
        cached = cached_model(profile.mmproj)
        stated = cached.stat().st_size if cached is not None else stated_size(profile.mmproj)
        wanted = plan_memory(profile, target_info, draft_info, free_mib, dialect, stated)
        if wanted.vision:
            mmproj = ensure_model(profile.mmproj, hooks.download, pip_args)
    plan = assemble(
        profile, dialect, built.binary, (target, target_info), (draft, draft_info),
        free_mib, host=host, port=port, api_key=api_key, api_key_file=api_key_file,
        mmproj=(mmproj, mmproj.stat().st_size if mmproj else None),
    )  # fmt: skip
    if plan.memory is not None and not plan.memory.fits:
        raise LaunchError(
            f"profile '{profile.name}' does not fit: {plan.memory.explanation.splitlines()[0]}"
        )
    return replace(plan, engine=built)


def assemble(
    profile: Profile,
    dialect: Dialect,
    binary: Path,
    target: tuple[Path, GgufInfo],
    draft: tuple[Path | None, GgufInfo | None],
    free_mib: float | None,
    *,
    host: str,
    port: int | None,
    api_key: str | None = None,
    api_key_file: Path | None = None,
    notes: tuple[str, ...] = (),
    mmproj: tuple[Path | None, int | None] = (None, None),
) -> LaunchPlan:
    """The memory plan and the command line for models already described (read or stated);
    ``mmproj``: the vision projector's file and size (launched where the plan counts it)."""
    memory = plan_memory(profile, target[1], draft[1], free_mib, dialect, mmproj[1])
    projector = mmproj[0] if memory.vision else None
    port = port or DEFAULT_PORT
    argv = build_argv(
        binary,
        profile,
        dialect,
        target[0],
        draft[0],
        host=host,
        port=port,
        ctx=memory.ctx,
        cache_types=(memory.cache_type_k, memory.cache_type_v),
        api_key=api_key,
        api_key_file=api_key_file,
        target_info=target[1],
        draft_info=draft[1],
        slot_dir=slots_dir(),
        mmproj=projector,
    )
    return LaunchPlan(
        argv, host, port, profile, dialect, memory, target[0], draft[0], None, notes, projector
    )


def stated_size(spec: ModelSpec) -> int | None:
    """A model's size as its pin or its facts state it, before it is fetched."""
    return spec.size_bytes or (spec.facts.size_bytes if spec.facts is not None else None)
