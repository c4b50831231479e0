#!/usr/bin/env bash
# One short run on a machine with an NVIDIA card: what the CPU machines cannot measure.
#
#   benchmarks/gpu_run.sh prepare    builds the engines and fetches the models (long: a CUDA build
#                                    takes 10-30 min, the Gemma files are ~19 GB; needs network)
#   benchmarks/gpu_run.sh [OUT]      the timed run, under 8 minutes once prepared: the card, each
#                                    profile's plan against the real card, then `beecode bench
#                                    --suite agent-long` per profile (none against its speculation,
#                                    acceptance against context length up to ~25K tokens)
#
# PROFILES (default "gemma4-31b-dflash gemma4-31b-mtp": DFlash against the model's own MTP heads on
# the same target) and PYTHON (default .venv/bin/python) can be set. Results land in OUT (default
# gpu-run-<time>): gpu.csv, plan-<profile>.txt, bench-<profile>/ (summary.json, report.txt, logs).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
read -r -a PROFILES <<<"${PROFILES:-gemma4-31b-dflash gemma4-31b-mtp}"
BUDGET_S=${BUDGET_S:-420}  # bench time for all profiles together; plans and the card take seconds

beecode() { "$PY" -m agent "$@"; }

if [ "${1:-}" = prepare ]; then
    # BeeLlama v0.4.4 (the MTP profiles' engine) first; v0.2.0 last, so `server up` and the DFlash
    # profiles keep the seed's engine (a build becomes the backend's choice).
    beecode server build --cuda --source beellama@v0.4.4
    beecode server build --cuda --source beellama
    for profile in "${PROFILES[@]}"; do
        beecode server fetch --profile "$profile"
    done
    exit 0
fi

OUT=${1:-gpu-run-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,memory.free,compute_cap --format=csv | tee "$OUT/gpu.csv"
git rev-parse --short HEAD >"$OUT/commit.txt" 2>/dev/null || true
uptime | tee "$OUT/uptime.txt"
for profile in "${PROFILES[@]}"; do
    beecode server plan --profile "$profile" | tee "$OUT/plan-$profile.txt"
done
# The bench stops cleanly on SIGTERM and keeps what it measured, so a slow card still reports.
per_profile=$((BUDGET_S / ${#PROFILES[@]}))
for profile in "${PROFILES[@]}"; do
    timeout "$per_profile" "$PY" -m agent bench --profile "$profile" --suite agent-long --reps 1 \
        --out "$OUT/bench-$profile" || echo "bench $profile ended with status $?"
done
"$PY" - "$OUT" "${PROFILES[@]}" <<'EOF'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
for profile in sys.argv[2:]:
    summary = out / f"bench-{profile}" / "summary.json"
    if not summary.is_file():
        print(f"{profile}: no summary")
        continue
    data = json.loads(summary.read_text())
    print(f"{profile}: speed-up {data['speedup_by_mode']}")
    for mode, points in data.get("acceptance_by_context", {}).items():
        print(f"  {mode}: " + ", ".join(f"{c} tokens {a:.0%}" for c, a in points))
EOF
