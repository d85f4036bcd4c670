#!/usr/bin/env bash
# Issue 12's GEMM targets on the GPU machine, from the repository root, in
# one call:
#
#   scripts/gpu-gemm.sh K90A [K256 [KPERSIST]]
#
# K90A: `tilec examples/<k>.tile --arch=sm_90a --emit=cubin -o K90A/<k>.cubin`
#   for k in matmul matmul_bias_gelu matmul_fp16 (+ the .json beside each).
# K256 (optional): the builder's matmul on its sm_90a tile, 128x256 with
#   K step 32: `tilec-examples --arch sm_90a -o K256 matmul`, then
#   `tilec K256/matmul.tile --arch=sm_90a --emit=cubin -o K256/matmul.cubin`.
# KPERSIST (optional): the same with persistent programs:
#   `tilec-examples --arch sm_90a --persistent -o KPERSIST matmul`, then
#   tilec on KPERSIST/matmul.tile as for K256.
# Runs, continuing past failures:
#   1. tilec-gpu-tests on K90A's three matmuls (random ragged M, N, K,
#      float64 host reference, rel. error < 1e-2) and on K256's matmul with
#      --matmul-tile 128,256 (KPERSIST's with --matmul-persistent too);
#   2. the same with --small --exact under compute-sanitizer memcheck;
#   3. scripts/gpu-bench.sh K90A matmul matmul_bias_gelu matmul_fp16
#      matmul_ragged: tilec beside cuBLAS, Triton, torch eager and
#      torch.compile (peers.py matmul matmul_fp16, bench/peers_gemm.py
#      matmul_ragged); PEER_WORK as for gpu-bench.sh;
#   4. tilec-bench on K256 (system "tilec 128x256") for matmul and
#      matmul_ragged, and the table of those rows beside the same peers;
#      the same for KPERSIST (system "tilec 128x256 persistent", one
#      program per SM).
# Logs and rows in $LOGS (default build-gpu/logs/gemm). Exits 1 if a check
# failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
logs=${LOGS:-$build/logs/gemm}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p "$logs"
if (($# < 1)) || [ ! -d "$1" ]; then
  echo "usage: scripts/gpu-gemm.sh K90A [K256 [KPERSIST]]" >&2
  exit 2
fi
k90a=$1
k256=${2:-}
kpersist=${3:-}
status=0

# The runtime-only build of gpu-test.sh and gpu-bench.sh (no MLIR here):
# tilec-gpu-tests and tilec-bench.
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$logs/configure.log" 2>&1 &&
  cmake --build "$build" >"$logs/build.log" 2>&1 || {
  echo "gpu-gemm: the build failed; see $logs"
  tail -30 "$logs/configure.log" "$logs/build.log"
  exit 1
}
tests=$build/bin/tilec-gpu-tests

check() { # NAME COMMAND...: runs it, logs it, one result line
  local name=$1
  shift
  if "$@" >"$logs/$name.log" 2>&1; then
    echo "PASS gpu-gemm $name: $(tail -1 "$logs/$name.log")"
  else
    echo "FAIL gpu-gemm $name (see $logs/$name.log):"
    grep -E '^FAIL|ERROR SUMMARY|error' "$logs/$name.log" | head -20
    status=1
  fi
}

echo "== checks"
check tests-sm90a "$tests" --kernels "$k90a" --only matmul,matmul_bias_gelu,matmul_fp16
check memcheck-sm90a "$sanitizer" --tool memcheck --error-exitcode 1 \
  "$tests" --kernels "$k90a" --only matmul,matmul_bias_gelu,matmul_fp16 --small --exact
if [ -n "$k256" ]; then
  check tests-128x256 "$tests" --kernels "$k256" --only matmul --matmul-tile 128,256
  check memcheck-128x256 "$sanitizer" --tool memcheck --error-exitcode 1 \
    "$tests" --kernels "$k256" --only matmul --matmul-tile 128,256 --small --exact
fi
if [ -n "$kpersist" ]; then
  check tests-persistent "$tests" --kernels "$kpersist" --only matmul \
    --matmul-tile 128,256 --matmul-persistent
  check memcheck-persistent "$sanitizer" --tool memcheck --error-exitcode 1 \
    "$tests" --kernels "$kpersist" --only matmul --matmul-tile 128,256 \
    --matmul-persistent --small --exact
fi

echo "== timings"
LOGS=$logs "$root/scripts/gpu-bench.sh" "$k90a" matmul matmul_bias_gelu \
  matmul_fp16 matmul_ragged || status=1
bench_other() { # DIR SYSTEM TILEC-BENCH-OPTIONS...: its rows beside the peers
  local dir=$1 system=$2 file
  shift 2
  file=$logs/tilec-${system// /-}.json
  if "$build/bin/tilec-bench" --kernels "$dir" --matmul-tile 128,256 \
    --system "$system" --out "$file" "$@" matmul matmul_ragged; then
    echo "== $system beside the same peers"
    python3 "$root/bench/compare.py" "$file" "$logs/peers.json" \
      --ours "$system" | tee "${file%.json}.md"
  else
    echo "FAIL gpu-gemm: tilec-bench on $dir"
    status=1
  fi
}
[ -z "$k256" ] || bench_other "$k256" "tilec 128x256"
[ -z "$kpersist" ] ||
  bench_other "$kpersist" "tilec 128x256 persistent" --matmul-persistent
exit $status
