"""How `beecode bench` shows results: a rich table, terminal bars, a PNG chart, the machine line."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from server.bench.prompts import AGENT_LONG_PROMPTS, AGENT_PROMPTS
from server.bench.stats import Agreement, Row, Spread, acceptance_by_context, speedup_by_mode
from server.engine.gpu import gpus

BAR_WIDTH = 40
BAR_STYLES = ("grey50", "green", "cyan", "magenta", "yellow", "blue", "red")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, object]:
    """What the figures were measured on: noted next to every result."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count() or 0,
        "gpus": [f"{g.name} ({g.memory_total_mib} MiB)" for g in gpus()],
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        # Other work on the machine skews timings; noted with every result.
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def machine_line(info: dict[str, object]) -> str:
    gpu_list = info.get("gpus")
    listed = gpu_list if isinstance(gpu_list, list) else []
    gpu = ", ".join(str(g) for g in listed) or "no GPU"
    return f"{info['cores']} cores, {info['cpu']}, {gpu}, load {info['load_avg_1m']}"


def _spread(spread: Spread | None, fmt: str = "{:.1f}") -> str:
    if spread is None:
        return "-"
    text = fmt.format(spread.median)
    if spread.high > spread.low:
        text += f" ({fmt.format(spread.low)}-{fmt.format(spread.high)})"
    return text


def results_table(rows: Sequence[Row], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for name in ("prompt", "context", "mode", "tokens", "tok/s", "gen s", "drafted", "accepted"):
        table.add_column(name, justify="left" if name in ("prompt", "mode") else "right")
    table.add_column("acc %", justify="right")
    table.add_column("speed-up", justify="right", style="bold")
    table.add_column("best/best", justify="right")
    previous = None
    for row in rows:
        table.add_row(
            row.prompt if row.prompt != previous else "",
            f"{row.context:,}" if row.prompt != previous else "",
            row.mode,
            _spread(row.completion_tokens, "{:.0f}"),
            _spread(row.tok_s),
            _spread(row.gen_s),
            _spread(row.draft_n, "{:.0f}"),
            _spread(row.accepted, "{:.0f}"),
            _spread(
                None
                if row.acceptance is None
                else Spread(
                    row.acceptance.median * 100, row.acceptance.low * 100, row.acceptance.high * 100
                ),
                "{:.0f}",
            ),
            f"{row.speedup:.2f}x" if row.speedup is not None else "",
            f"{row.speedup_best:.2f}x" if row.speedup_best is not None else "",
        )
        previous = row.prompt
    return table


def agreement_table(agreements: Sequence[Agreement]) -> Table:
    table = Table(
        title="Greedy (T=0) output against the baseline, token by token", title_justify="left"
    )
    columns = ("prompt", "mode", "baseline tok", "tokens", "same prefix", "prefix %", "matching %")
    for name in columns:
        table.add_column(name, justify="left" if name in ("prompt", "mode") else "right")
    for a in agreements:
        table.add_row(
            a.prompt,
            a.mode,
            str(a.baseline_tokens),
            str(a.tokens),
            str(a.same_prefix),
            f"{a.prefix_share * 100:.0f}",
            f"{a.matching_share * 100:.0f}",
        )
    return table


def _modes(rows: Sequence[Row]) -> list[str]:
    return list(dict.fromkeys(row.mode for row in rows))


def terminal_bars(rows: Sequence[Row]) -> Text:
    """Median decode tok/s per prompt and mode as horizontal bars, one colour per mode."""
    top = max((row.tok_s.high for row in rows), default=0.0) or 1.0
    modes = _modes(rows)
    width = max((len(m) for m in modes), default=4)
    text = Text("decode tok/s (median; bar = median, label shows min-max)\n", style="bold")
    previous = None
    for row in rows:
        if row.prompt != previous:
            text.append(f"{row.prompt}\n", style="bold")
            previous = row.prompt
        style = BAR_STYLES[modes.index(row.mode) % len(BAR_STYLES)]
        cells = max(1, round(row.tok_s.median / top * BAR_WIDTH))
        text.append(f"  {row.mode:<{width}} ")
        text.append("█" * cells, style=style)
        text.append(f" {_spread(row.tok_s)}\n")
    return text


# Why an n-gram mode can lose: it drafts only what the context already holds, and verifying a
# draft that fails costs a batch. The seed's own client, its three new-code prompts at T=0.7,
# `tiny` against `tiny-nospec`: ngram-mod 0.93-0.96x (it gains 2.4-4.1x on edits and copies).
NGRAM_COST = (
    "n-gram drafts pay only where the output repeats its context (edits, copies, rewrites); on "
    "new code a failed draft costs its verification (the seed's new-code prompts: ngram-mod "
    "0.93-0.96x of none)"
)


def speed_notes(means: Mapping[str, float]) -> list[str]:
    """A line for each mode that ran slower than none: speculation is not free."""
    notes = []
    for mode, value in means.items():
        if value < 1.0:
            why = f": {NGRAM_COST}" if "ngram" in mode else ""
            notes.append(f"{mode} costs speed on these prompts ({value:.2f}x of none){why}")
    return notes


def brake_lines(brake: Mapping[str, Mapping[str, float]]) -> list[str]:
    return [
        f"{mode}: the brake sent {row['paused']:.0f} of {row['requests']:.0f} requests with "
        f"drafting off; its probe pairs took {row['probe_s']:.1f} s, counted in the figures"
        for mode, row in brake.items()
    ]


def print_report(
    console: Console,
    rows: Sequence[Row],
    agreements: Sequence[Agreement],
    title: str,
    brake: Mapping[str, Mapping[str, float]] | None = None,
) -> None:
    console.print(results_table(rows, title))
    means, bests = speedup_by_mode(rows), speedup_by_mode(rows, best=True)
    if means:
        console.print(
            "speed-up over none, geometric mean over prompts (median / best-of-reps): "
            + ", ".join(
                f"{mode} {value:.2f}x / {bests[mode]:.2f}x" for mode, value in means.items()
            )
        )
    agent = {p.name for p in AGENT_PROMPTS + AGENT_LONG_PROMPTS}
    for mode, points in acceptance_by_context([r for r in rows if r.prompt in agent]).items():
        if len(points) > 1:
            shown = ", ".join(f"{context:,} tokens {value:.0%}" for context, value in points)
            console.print(f"{mode} acceptance by context: {shown}")
    for line in speed_notes(means):
        console.print(line, style="yellow")
    for line in brake_lines(brake or {}):
        console.print(line)
    console.print(terminal_bars(rows))
    if agreements:
        console.print(agreement_table(agreements))


def write_chart(rows: Sequence[Row], path: Path, title: str) -> Path:
    """Grouped bars of median tok/s by prompt and mode, min-max as error bars, as a PNG."""
    from matplotlib.figure import Figure  # imported here: slow, and only the chart needs it

    prompts = list(dict.fromkeys(row.prompt for row in rows))
    modes = _modes(rows)
    width = 0.8 / max(len(modes), 1)
    figure = Figure(figsize=(max(7.0, 0.8 * len(prompts) * max(1, len(modes))), 4.8), dpi=110)
    axes = figure.add_subplot()
    for m, mode in enumerate(modes):
        xs, heights, below, above = [], [], [], []
        for p, prompt in enumerate(prompts):
            row = next((r for r in rows if r.prompt == prompt and r.mode == mode), None)
            if row is None:
                continue
            xs.append(p + (m - (len(modes) - 1) / 2) * width)
            heights.append(row.tok_s.median)
            below.append(row.tok_s.median - row.tok_s.low)
            above.append(row.tok_s.high - row.tok_s.median)
        axes.bar(xs, heights, width, yerr=[below, above], capsize=3, label=mode)
    axes.set_xticks(range(len(prompts)), prompts)
    axes.set_ylabel("decode tok/s (median, min-max)")
    axes.set_title(title, fontsize=9)
    axes.legend(fontsize=8)
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    return path
