#!/usr/bin/env bash
# beecode on a borrowed GPU machine with no network, in two runs of under 10 minutes each.
#
#   benchmarks/gpu_check.sh carry     HERE (with the package indexes): gathers into .gpu-carry/
#                                     what the GPU machine lacks: beecode's dependency wheels for
#                                     its Python and the BeeLlama v0.2.0 source bundle (< 64 MiB)
#   benchmarks/gpu_check.sh build     GPU run 1, carrying .gpu-carry: installs the wheels, builds
#                                     BeeLlama for CUDA with beecode's own build code (same-type
#                                     KV kernels only, ~8 min on 16 cores); build.json, build.log
#                                     and build_s under $OUT
#   benchmarks/gpu_check.sh measure   GPU run 2, within ~30 s of run 1 (a machine taken back
#                                     loses the build): a 24 GB card emulated by holding the rest
#                                     of the GPU's memory, then benchmarks/_gpu_check.py (random
#                                     8B target and Bee drafter written there, plan, bench through
#                                     the brake and without, slot save/restore, the agent)
#   GPU_CHECK_CPU=1 benchmarks/gpu_check.sh measure   the same on this machine's CPU engine with a
#                                     tiny shape (tests/bench/test_gpu_check.py runs it)
#
# Results land in $OUT (the device tool's folder), else gpu-check-<time>/.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-$(date +%Y%m%d-%H%M%S)}
CARRY=.gpu-carry
PY=${PYTHON:-python3}
mkdir -p "$OUT"

case "${1:-}" in
carry)
    mkdir -p "$CARRY/wheels"
    # The GPU machine's Python (3.12, manylinux x86_64): wheels only, no dependencies resolved
    # there; what its image already ships (numpy, torch) is left out.
    .venv/bin/python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))\
['project']['dependencies'], sep='\n')" >"$CARRY/requirements.txt"
    .venv/bin/python -m pip download -q --only-binary :all: --python-version 3.12 \
        --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 -d "$CARRY/wheels" \
        -r "$CARRY/requirements.txt"
    # numpy comes with the machine's PyTorch; hf_xet only speeds up Hub downloads: 20 MB saved.
    rm -f "$CARRY"/wheels/numpy-*.whl "$CARRY"/wheels/hf_xet-*.whl
    cp ../shared/engines/beellama-v0.2.0.bundle "$CARRY/"
    size=$(du -sm "$CARRY" | cut -f1)
    echo "$CARRY: $size MiB (a run carries at most 64)"
    [ "$size" -lt 64 ]
    ;;
build)
    export PYTHONPATH="$PWD/$CARRY/site:$PWD"
    "$PY" -m pip install -q --no-index --no-deps --target "$CARRY/site" "$CARRY"/wheels/*.whl
    rm -rf /tmp/bee.git && git clone -q --bare "$CARRY/beellama-v0.2.0.bundle" /tmp/bee.git
    export BEECODE_BEELLAMA_GIT_URL=file:///tmp/bee.git
    start=$(date +%s)
    "$PY" -m agent server build --cuda --source beellama 2>&1 | tail -5 | tee "$OUT/build.txt"
    echo $(($(date +%s) - start)) >"$OUT/build_s"
    cp ~/.cache/beecode/engines/beellama-*/build.json "$OUT/" 2>/dev/null || true
    cp ~/.cache/beecode/engines/beellama-*/build.log "$OUT/" 2>/dev/null || true
    nvidia-smi --query-gpu=name,memory.total,memory.free,compute_cap --format=csv >"$OUT/gpu.csv"
    ;;
measure)
    git rev-parse --short HEAD >"$OUT/commit.txt" 2>/dev/null || true
    if [ -n "${GPU_CHECK_CPU:-}" ]; then
        exec .venv/bin/python benchmarks/_gpu_check.py "$OUT" --cpu ${GPU_CHECK_QUICK:+--quick}
    fi
    export PYTHONPATH="$PWD/$CARRY/site:$PWD"
    # A 24 GB card: hold all but 24 GiB of the GPU's memory while the plans and servers run.
    "$PY" - <<'EOF' &
import time, torch
free, total = torch.cuda.mem_get_info()
hold = max(0, free - 24 * 1024**3)
block = torch.empty(hold, dtype=torch.uint8, device="cuda")
print(f"holding {hold / 1024**3:.1f} GiB of {total / 1024**3:.1f}", flush=True)
time.sleep(3600)
EOF
    holder=$!
    trap 'kill $holder 2>/dev/null || true' EXIT
    sleep 15
    "$PY" benchmarks/_gpu_check.py "$OUT"
    ;;
*)
    sed -n 2,19p "$0"
    exit 2
    ;;
esac
