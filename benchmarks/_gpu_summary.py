"""benchmarks/gpu_check.sh's summary.md: the run's figures as a BENCHMARKS.md section (date,
commit, card; a row per launch; the brake's verdict; the agent's stream rate; what was skipped)."""

from __future__ import annotations

import statistics
from typing import Any

from server.bench.report import machine, machine_line
from server.engine.gpu import gpus


def card_figures() -> dict[str, Any]:
    """The machine, and the card with the memory free now (after any emulation took its share)."""
    cards = gpus()
    found: dict[str, Any] = {"machine": machine_line(machine())}
    if cards:
        card = cards[0]
        found.update(name=card.name, total_mib=card.memory_total_mib)
        found.update(free_mib=card.memory_free_mib, compute_cap=card.compute_cap)
    return found


def render(summary: dict[str, Any]) -> str:
    card = summary.get("card", {})
    what = "CPU half" if summary.get("cpu") else card.get("name", "no card found")
    lines = [f"# gpu_check ({what}), {summary.get('date')}, beecode {summary.get('commit')}", ""]
    lines.append(f"- machine: {card.get('machine') or summary.get('machine')}")
    if "free_mib" in card:
        lines.append(f"- card: {card['total_mib']} MiB, {card['free_mib']} MiB free when planned")
    emulation = summary.get("emulation")
    if emulation:
        lines.append(f"- emulation: {_pairs(emulation)}")
    engine = summary.get("engine")
    if engine:
        lines.append(f"- engine: {engine['source']} ({engine['backend']}), {engine['commit']}")
    lines.append(f"- run: {summary.get('elapsed_s')} s of a {summary.get('budget_s')} s budget")
    steps: dict[str, Any] = summary.get("steps", {})
    lines += ["", *_launch_table(steps), ""]
    for name in ("bench-brake", "bench-raw"):
        if name in steps:
            lines.append(f"- {name}: {_bench_line(steps[name])}")
    if "agent" in steps:
        lines.append(f"- agent: {_agent_line(steps['agent'])}")
    for name, step in steps.items():
        if step.get("status") not in (0, None):
            lines.append(f"- {name}: {step.get('status')}, {step.get('reason', 'see ' + name)}")
    if "error" in summary:
        lines.append(f"- error: {summary['error']}")
    return "\n".join(lines) + "\n"


def _pairs(values: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in values.items())


HEADER = (
    "launch", "fit plan", "card used", "healthy", "prefill tok/s", "decode tok/s",
    "drafted/accepted", "slot saved, restored: then cached",
)  # fmt: skip


def _launch_table(steps: dict[str, Any]) -> list[str]:
    rows = [_row(HEADER), _row(("---",) * len(HEADER))]
    for name, step in steps.items():
        figures = step.get("figures")
        if name.startswith("check-") and isinstance(figures, dict):
            rows.append(_row((name, *_launch_cells(figures))))
    return rows


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(cells) + " |"


def _launch_cells(figures: dict[str, Any]) -> tuple[str, ...]:
    plan, pre = figures.get("plan") or {}, figures.get("prefill") or {}
    dec, slot = figures.get("decode") or {}, figures.get("slot") or {}
    return (
        f"{plan['total_mib']} MiB, ctx {plan['ctx']}, {plan['cache_k']}" if plan else "-",
        f"{figures['card_used_mib']} MiB" if "card_used_mib" in figures else "-",
        f"{figures['healthy_s']} s" if "healthy_s" in figures else "-",
        f"{pre['tok_s']} ({pre['tokens']})" if pre else "-",
        f"{dec['tok_s']} ({dec['tokens']})" if dec else "-",
        f"{dec['drafted']}/{dec['accepted']}" if dec.get("drafted") else "-",
        f"{slot['tokens']} tokens: {slot['save_ms']}, {slot['restore_ms']} ms: "
        f"{slot['then_cache_n']} of {slot['then_cache_n'] + slot['then_prompt_n']}"
        if "then_cache_n" in slot
        else "-",
    )


def _bench_line(step: dict[str, Any]) -> str:
    figures = step.get("figures") or {}
    speedup = figures.get("speedup_by_mode") or {}
    brake = (figures.get("brake_by_mode") or {}).get("dflash")
    text = ", ".join(f"{mode} {value:.3f}x of none" for mode, value in speedup.items()) or "-"
    if brake:
        text += f"; the brake sent {brake.get('paused')} of {brake.get('requests')} requests"
        text += f" without drafting ({brake.get('probe_s')} s of probes)"
    return text


def _agent_line(step: dict[str, Any]) -> str:
    figures = step.get("figures") or {}
    parts = []
    for face in ("headless", "tui", "http"):
        turns = figures.get(face) or []
        timed = [t for t in turns if t.get("server_tok_s") and t.get("user_tok_s") is not None]
        ratios = [t["user_tok_s"] / t["server_tok_s"] for t in timed]
        rates = [t["server_tok_s"] for t in timed]
        if ratios:
            parts.append(
                f"{face} {statistics.median(ratios):.3f} of the server's "
                f"{statistics.median(rates):.0f} tok/s"
            )
    return ", ".join(parts) or "-"
