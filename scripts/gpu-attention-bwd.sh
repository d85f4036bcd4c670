#!/usr/bin/env bash
# Flash attention backward on the GPU machine, from the repository root:
#
#   scripts/gpu-attention-bwd.sh KERNELS_DIR
#
# KERNELS_DIR holds, as .cubin (or .ptx) + .json, the builder's forward
# attention_d64 and attention_d128, its backward
# attention_bwd_{pre,dkdv,dq}_d{64,128} and the store-dS variant's
# attention_bwd_{dkdv_ds,dq_ds}_d{64,128}, made on the development machine by
#   for k in attention_d64 attention_d128 \
#       attention_bwd_{pre,dkdv,dq,dkdv_ds,dq_ds}_d{64,128}; do
#     build/bin/tilec-examples $k > DIR/$k.tile
#     build/bin/tilec DIR/$k.tile --arch=sm_90a --emit=cubin -o DIR/$k.cubin
#   done
# Runs, continuing past failures:
#   1. tilec-gpu-tests --only attention_bwd_d64,attention_bwd_d128: forward
#      then delta, dK/dV and dQ on random inputs (seq 1, 100, 129, 1000,
#      4097; causal and not; grouped-query heads) against the float64
#      reference gradients (test/Unit/AttentionReference.h): one PASS/FAIL
#      line each for O, dQ, dK, dV, norm-wise relative error under 1e-2,
#      and for the store-dS variant's dQ, dK, dV;
#   2. the same at --small --exact under compute-sanitizer memcheck;
#   3. scripts/gpu-bench.sh KERNELS_DIR attention attention_bwd: the rows
#      "attention fwd|bwd bf16 B4 H32 S4096 D128 causal=False|True" beside
#      torch SDPA's forward and backward (peers.py attention attention_bwd),
#      with the time ratios (bench/compare.py), and the rows "... store-dS"
#      (the store-dS backward, 4.3 GB of dS).
# Exits 1 if a step failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
logs=${LOGS:-$build/logs}
mkdir -p "$logs"
if (($# != 1)) || [ ! -d "$1" ]; then
  echo "usage: scripts/gpu-attention-bwd.sh KERNELS_DIR" >&2
  exit 2
fi
kernels=$(cd "$1" && pwd)
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$logs/configure.log" 2>&1 &&
  cmake --build "$build" >"$logs/build.log" 2>&1 || {
  echo "gpu-attention-bwd: the build failed; see $logs"
  tail -30 "$logs/build.log"
  exit 1
}
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$build/cubin-cache}
failed=()
echo "== attention backward checks"
"$build/bin/tilec-gpu-tests" --kernels "$kernels" \
  --only attention_bwd_d64,attention_bwd_d128 | tee "$logs/attention-bwd-checks.log"
((PIPESTATUS[0] == 0)) || failed+=(checks)
echo "== attention backward under compute-sanitizer memcheck"
"$sanitizer" --tool memcheck --error-exitcode 3 "$build/bin/tilec-gpu-tests" \
  --kernels "$kernels" --only attention_bwd_d64,attention_bwd_d128 --small \
  --exact 2>&1 | tee "$logs/attention-bwd-memcheck.log"
((PIPESTATUS[0] == 0)) || failed+=(memcheck)
echo "== attention bench (forward and backward)"
BUILD=$build LOGS=$logs "$root/scripts/gpu-bench.sh" "$kernels" attention \
  attention_bwd || failed+=(bench)
if ((${#failed[@]})); then
  echo "gpu-attention-bwd: FAILED: ${failed[*]}"
  exit 1
fi
echo "gpu-attention-bwd: all passed"
