"""A launch profile: a target model, an optional draft, and the settings to serve them with.

Every speculative profile has a `<name>-nospec` twin, the same launch without speculation, that
benchmarks compare against; the twins are derived here so built-ins and user profiles get
them alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from server.engine.sources import EngineSource
from server.models.spec import ModelSpec

NOSPEC_SUFFIX = "-nospec"


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    target: ModelSpec
    draft: ModelSpec | None = None
    spec_type: str | None = None  # "dflash" (spelled per dialect), an n-gram type, or None
    backend: Literal["cpu", "cuda"] = "cpu"
    ctx: int = 8192
    batch: int = 2048
    ubatch: int = 512
    n_parallel: int = 1
    gpu_layers: str = "0"  # "all" or a layer count
    cache_type_k: str | None = None  # None: the engine's default (f16)
    cache_type_v: str | None = None
    flash_attn: bool = True
    reasoning: Literal["on", "off", "auto"] = "auto"
    sampling: dict[str, float] = field(default_factory=dict)  # temperature, top_k, top_p, min_p
    draft_max: int | None = None  # None: the engine's default for the spec type
    extra_args: tuple[str, ...] = ()  # passed through; flags the binary lacks are dropped
    baseline: str | None = None  # name of the no-speculation twin
    # The vision projector (a CLIP-style mmproj GGUF, `--mmproj`): the model reads images.
    # vision "auto": launched where it fits without shrinking the context; "on": always, the
    # context stepped down to make room; "off": never (server.launch.fit).
    mmproj: ModelSpec | None = None
    vision: Literal["auto", "on", "off"] = "auto"
    # The engine release this profile needs (MTP needs BeeLlama >= 0.4); None: the backend's
    # default or the one `beecode server build` chose.
    engine: EngineSource | None = None


def nospec_twin(profile: Profile) -> Profile:
    """The same launch without speculation: the baseline a benchmark compares against."""
    return replace(
        profile,
        name=profile.name + NOSPEC_SUFFIX,
        description=f"{profile.description}; no speculation (baseline)",
        draft=None,
        spec_type=None,
        draft_max=None,
        baseline=None,
    )


def with_twins(profiles: dict[str, Profile]) -> dict[str, Profile]:
    """Adds a -nospec twin for each speculative profile that lacks one and links it as baseline."""
    out = dict(profiles)
    for profile in profiles.values():
        if profile.spec_type is None and profile.draft is None:
            continue
        twin_name = profile.name + NOSPEC_SUFFIX
        out.setdefault(twin_name, nospec_twin(profile))
        out[profile.name] = replace(profile, baseline=twin_name)
    return out
