#!/usr/bin/env bash
# Flash attention on the GPU machine, from the repository root:
#
#   scripts/gpu-attention.sh KERNELS_DIR
#
# KERNELS_DIR holds attention.ptx/.json (examples/attention.tile, head_dim
# 64) and attention_d128.ptx/.json (the builder's, head_dim 128), made on
# the development machine by
#   tilec examples/attention.tile --arch=sm_90a -o DIR/attention.ptx
#   tilec-examples attention_d128 > DIR/attention_d128.tile
#   tilec DIR/attention_d128.tile --arch=sm_90a -o DIR/attention_d128.ptx
# (or --arch=sm_90). Runs, continuing past failures:
#   1. tilec-gpu-tests --only attention,attention_d128: both kernels on
#      random inputs (ragged seq 1, 100, 129, 1000, 4097; causal and not;
#      grouped-query heads) against the float64 reference: PASS/FAIL lines;
#   2. the same at --small --exact under compute-sanitizer memcheck;
#   3. scripts/gpu-bench.sh KERNELS_DIR attention: the two rows
#      "attention fwd bf16 B4 H32 S4096 D128 causal=False|True" beside
#      torch SDPA (peers.py attention).
# Exits 1 if a step failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
logs=${LOGS:-$build/logs}
mkdir -p "$logs"
if (($# != 1)) || [ ! -d "$1" ]; then
  echo "usage: scripts/gpu-attention.sh KERNELS_DIR" >&2
  exit 2
fi
kernels=$(cd "$1" && pwd)
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$logs/configure.log" 2>&1 &&
  cmake --build "$build" >"$logs/build.log" 2>&1 || {
  echo "gpu-attention: the build failed; see $logs"
  tail -30 "$logs/build.log"
  exit 1
}
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$build/cubin-cache}
failed=()
echo "== attention checks"
"$build/bin/tilec-gpu-tests" --kernels "$kernels" \
  --only attention,attention_d128 | tee "$logs/attention-checks.log"
((PIPESTATUS[0] == 0)) || failed+=(checks)
echo "== attention under compute-sanitizer memcheck"
"$sanitizer" --tool memcheck --error-exitcode 3 "$build/bin/tilec-gpu-tests" \
  --kernels "$kernels" --only attention,attention_d128 --small --exact \
  2>&1 | tee "$logs/attention-memcheck.log"
((PIPESTATUS[0] == 0)) || failed+=(memcheck)
echo "== attention bench"
BUILD=$build LOGS=$logs "$root/scripts/gpu-bench.sh" "$kernels" attention ||
  failed+=(bench)
if ((${#failed[@]})); then
  echo "gpu-attention: FAILED: ${failed[*]}"
  exit 1
fi
echo "gpu-attention: all passed"
