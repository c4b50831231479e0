"""The requests of `beecode bench`: each prompt and repetition on each server, timed by the server.

Each request is a non-streaming chat completion whose `timings` give the figures. The response
is saved as it came; at temperature 0 the reply is tokenized for the agreement check.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from server.bench.prompts import BenchPrompt
from server.bench.stats import Sample
from server.brake import Brake, measure_of, probe_pair
from server.client import Timings, complete, tokenize
from server.errors import ServerError

REQUEST_TIMEOUT_S = 900.0
SEED = 1234  # repetition r uses SEED + r, the same in every mode
GREEDY_REP = -1  # the extra T=0 run of a sampled prompt, for the agreement check


@dataclass
class BenchRun:
    """What one `beecode bench` collects; written to summary.json at the end."""

    out: Path
    prompts: tuple[BenchPrompt, ...]
    reps: int
    lossless: bool
    interleaved: bool = False
    brake: bool = True  # drafting modes go through the speculation brake (server.brake)
    sampling: dict[str, float] = field(default_factory=dict)
    samples: list[Sample] = field(default_factory=list)
    greedy_tokens: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    servers: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Target:
    """One mode's server."""

    mode: str
    url: str
    api_key: str | None = None
    brake: Brake | None = None  # a drafting mode's requests go through the brake as the agent's


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.+@-]+", "-", text.lower()).strip("-") or "mode"


def schedule(bench: BenchRun) -> list[tuple[BenchPrompt, int]]:
    """(prompt, repetition) in order; a sampled prompt adds its T=0 check run at the end."""
    plan: list[tuple[BenchPrompt, int]] = []
    for prompt in bench.prompts:
        plan += [(prompt, rep) for rep in range(bench.reps)]
        if bench.lossless and prompt.temperature != 0:
            plan.append((prompt, GREEDY_REP))
    return plan


def run_requests(bench: BenchRun, targets: list[Target], console: Console) -> None:
    """The whole schedule on every target; several targets take turns request by request, so
    load from elsewhere on the machine falls on every mode alike."""
    for prompt, rep in schedule(bench):
        for target in targets:
            measure(bench, target, prompt, rep, console)


def measure(
    bench: BenchRun,
    target: Target,
    prompt: BenchPrompt,
    rep: int,
    console: Console,
) -> Sample:
    temperature = 0.0 if rep == GREEDY_REP else prompt.temperature
    sample, text = _complete(bench, target, prompt, rep, temperature)
    label = "T=0 check" if rep == GREEDY_REP else f"#{rep + 1}"
    console.print(f"  {target.mode} · {prompt.name} {label}: {describe(sample)}")
    if rep == GREEDY_REP or (rep == 0 and temperature == 0):
        tokens = tokenize(target.url, text, target.api_key)
        bench.greedy_tokens[(prompt.name, target.mode)] = tokens
    return sample


def _complete(
    bench: BenchRun,
    target: Target,
    prompt: BenchPrompt,
    rep: int,
    temperature: float,
) -> tuple[Sample, str]:
    mode = target.mode
    body: dict[str, Any] = {
        "messages": list(prompt.messages) or [{"role": "user", "content": prompt.text}],
        "max_tokens": prompt.max_tokens,
        "temperature": temperature,
        "seed": SEED + max(rep, 0),
        # Every request prefills from scratch, so repetitions and modes start from the same state.
        "cache_prompt": False,
        **bench.sampling,
    }
    brake, probe_s = target.brake, 0.0
    if brake is not None:
        if brake.needs_probe():
            # Its prefill is left out, as every request's is (decode rates): the agent's request
            # after a probe pair finds that prompt cached, so the pair costs only its decoding.
            probed = probe_pair(brake, target.url, body, target.api_key)
            probe_s = max(0.0, probed.seconds - probed.prompt_s)
        body.update(brake.fields())
    paused = "speculative.n_max" in body
    try:
        data = complete(target.url, body, api_key=target.api_key, timeout_s=REQUEST_TIMEOUT_S)
    except ServerError as err:
        raise ServerError(f"{mode}: {prompt.name}: {err}") from None
    name = f"{prompt.name}-{'t0' if rep == GREEDY_REP else f'r{rep + 1}'}.json"
    raw = bench.out / "raw" / slug(mode) / name
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text(json.dumps({"request": body, "response": data}, indent=1) + "\n")
    try:
        message = data["choices"][0]["message"]
        timings = Timings.from_json(data["timings"])
    except (KeyError, IndexError, TypeError):
        raise ServerError(
            f"{mode}: reply for {prompt.name} lacks choices or timings (see {raw})"
        ) from None
    text = (message.get("reasoning_content") or "") + (message.get("content") or "")
    if brake is not None:
        context = timings.prompt_n + timings.cache_n + timings.predicted_n
        brake.record(measure_of(timings, "off" if paused else "on"), context)
    # A probe pair's decoding is the brake's cost: it counts against this request's rate.
    gen_s = timings.predicted_ms / 1000 + probe_s
    tok_s = timings.predicted_n / gen_s if probe_s and gen_s else timings.predicted_per_second
    sample = Sample(
        prompt.name,
        mode,
        rep,
        temperature,
        timings.predicted_n,
        tok_s,
        gen_s,
        timings.prompt_n,
        timings.cache_n,
        timings.draft_n,
        timings.draft_n_accepted,
        paused,
        round(probe_s, 3),
    )
    bench.samples.append(sample)
    return sample, text


def describe(s: Sample) -> str:
    drafted = f", drafted {s.draft_n}, accepted {s.draft_accepted}" if s.draft_n is not None else ""
    brake = (", drafting paused" if s.paused else "") + (
        f", probe pair {s.probe_s:.1f} s" if s.probe_s else ""
    )
    return f"{s.completion_tokens} tokens, {s.tok_s:.1f} tok/s in {s.gen_s:.1f} s{drafted}{brake}"
