#!/usr/bin/env bash
# beecode on a borrowed GPU machine with no network, in two runs of under 10 minutes each.
#
#   benchmarks/gpu_check.sh carry     HERE (with the package indexes): gathers into .gpu-carry/
#                                     what the GPU machine lacks: beecode's dependency wheels for
#                                     its Python, the BeeLlama v0.2.0 source bundle and SmolLM2's
#                                     tokenizer (< 64 MiB, the most a run carries)
#   benchmarks/gpu_check.sh build     GPU run 1, carrying .gpu-carry: installs the wheels, builds
#                                     BeeLlama for CUDA with beecode's own build code (same-type KV
#                                     kernels, the card's architecture only: ~8 min on 16 cores),
#                                     writing the random Gemma 4 31B and Qwen 3.6 27B targets
#                                     meanwhile and their drafters after; build.txt, build.log,
#                                     build.json, build_s and models.json under $OUT
#   benchmarks/gpu_check.sh measure   GPU run 2, within ~30 s of run 1 (a machine taken back loses
#                                     the build and the models): a 24 GB card emulated by holding
#                                     the rest of the GPU's memory, then benchmarks/_gpu_check.py:
#                                     each target planned and served alone and with DFlash (MTP
#                                     where the engine has it): prefill, decode, slot save and
#                                     restore; `beecode bench` through the brake and without; the
#                                     agent and TUI at the real stream rate. summary.json and
#                                     summary.md under $OUT after every step
#   GPU_CHECK_CPU=1 benchmarks/gpu_check.sh measure   the same on this machine's CPU engine with
#                                     scaled-down shapes (tests/bench/test_gpu_check.py runs it)
#
# Settings: OUT (default gpu-check-<time>/), PYTHON (the GPU machine's python3), GPU_CHECK_MODELS
# (where run 1 leaves the models for run 2: ~/.cache/beecode/gpu-check), GPU_CHECK_FREE_MIB (the
# emulated card's free memory: 24000), GPU_CHECK_BUDGET_S (run 2's steps: 540; give it the device
# time left), GPU_CHECK_BUILD_S (run 1's build before it is stopped, to resume in another `build`:
# 520), BEECODE_BENCH_COMMIT (the commit, where the tree travels without .git).
set -euo pipefail
cd "$(dirname "$0")/.."
CARRY=.gpu-carry
PY=${PYTHON:-python3}
# Outside the tree: a run carrying .gpu-carry replaces that folder on the machine.
MODELS=${GPU_CHECK_MODELS:-$HOME/.cache/beecode/gpu-check}
SITE=$HOME/.cache/beecode/gpu-check-site
ENGINE_FOR=gemma4-31b-dflash # the profile whose engine (BeeLlama v0.2.0, CUDA) serves the check

out_dir() {
    OUT=$(realpath -m "${OUT:-gpu-check-$(date +%Y%m%d-%H%M%S)}")
    mkdir -p "$OUT"
}

# beecode's dependencies from the carried wheels, once per machine.
site() {
    export PYTHONPATH="$SITE:$PWD"
    if [ ! -d "$SITE" ]; then
        "$PY" -m pip install -q --no-index --no-deps --target "$SITE.tmp" "$CARRY"/wheels/*.whl
        mv "$SITE.tmp" "$SITE"
    fi
}

case "${1:-}" in
carry)
    rm -rf "$CARRY" && mkdir -p "$CARRY/wheels" # no wheels of an older resolution left
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
    .venv/bin/python benchmarks/_gpu_models.py tokenizer "$CARRY/tokenizer.gguf"
    size=$(du -sm "$CARRY" | cut -f1)
    echo "$CARRY: $size MiB (a run carries at most 64)"
    [ "$size" -lt 64 ]
    ;;
build)
    out_dir
    start=$(date +%s)
    site
    rm -rf /tmp/bee.git && git clone -q --bare "$CARRY/beellama-v0.2.0.bundle" /tmp/bee.git
    export BEECODE_BEELLAMA_GIT_URL=file:///tmp/bee.git
    # The targets need no engine: written while it compiles (one core, the disk's time).
    "$PY" benchmarks/_gpu_models.py write "$MODELS" "$CARRY/tokenizer.gguf" \
        >"$OUT/models-targets.txt" 2>&1 &
    writer=$!
    status=0
    timeout "${GPU_CHECK_BUILD_S:-520}" "$PY" -m agent server build --cuda --source beellama \
        >"$OUT/build.txt" 2>&1 || status=$?
    echo $(($(date +%s) - start)) >"$OUT/build_s"
    wait "$writer" || echo "writing the targets failed: see models-targets.txt" >&2
    # A stopped build keeps its work folder: `build` again resumes it.
    state=$("$PY" -c "from server.paths import state_dir; print(state_dir())")
    for log in "$state"/builds/beellama-*.log; do
        if [ -f "$log" ]; then tail -n 3000 "$log" >"$OUT/build.log"; fi
    done
    cp ~/.cache/beecode/engines/beellama-*cuda*/build.json "$OUT/" 2>/dev/null || true
    nvidia-smi --query-gpu=name,memory.total,memory.free,compute_cap --format=csv \
        >"$OUT/gpu.csv" || true
    if [ "$status" -eq 0 ]; then
        # Drafters in the layout the built engine loads (its dialect says which).
        "$PY" benchmarks/_gpu_models.py write "$MODELS" "$CARRY/tokenizer.gguf" \
            --engine-for "$ENGINE_FOR" >"$OUT/models.txt" 2>&1 || status=$?
    fi
    cp "$MODELS/models.json" "$OUT/" 2>/dev/null || true
    echo "build: status $status after $(($(date +%s) - start)) s"
    exit "$status"
    ;;
measure)
    out_dir
    if [ -n "${GPU_CHECK_CPU:-}" ]; then
        exec .venv/bin/python benchmarks/_gpu_check.py "$OUT" --cpu \
            ${GPU_CHECK_BUDGET_S:+--budget "$GPU_CHECK_BUDGET_S"}
    fi
    site
    # A 24 GB card: all but GPU_CHECK_FREE_MIB of the GPU's memory held while plans and servers
    # run (torch starts in seconds, while the models step runs).
    "$PY" benchmarks/_gpu_hold.py "${GPU_CHECK_FREE_MIB:-24000}" "$OUT/card.json" \
        >"$OUT/hold.txt" 2>&1 &
    holder=$!
    trap 'kill "$holder" 2>/dev/null || true' EXIT
    "$PY" benchmarks/_gpu_check.py "$OUT" --models "$MODELS" --tokenizer "$CARRY/tokenizer.gguf" \
        --card-ready "$OUT/card.json" --budget "${GPU_CHECK_BUDGET_S:-540}"
    ;;
*)
    sed -n 2,29p "$0"
    exit 2
    ;;
esac
