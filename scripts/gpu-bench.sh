#!/usr/bin/env bash
# The benchmark beside the peers, on the GPU machine, from the repository
# root:
#
#   scripts/gpu-bench.sh [KERNELS_DIR] [WORKLOAD...]
#
# Workloads: add coscos bias_gelu softmax layernorm rmsnorm matmul
# matmul_bias_gelu matmul_fp16 matmul_ragged matmul_tma matmul_tma_ragged
# matmul_tma_bias_gelu matmul_tma_persistent matmul_tma_persistent_ragged
# matmul_tma_cluster matmul_tma_cluster_ragged
# matmul_tma_fp16 attention attention_bwd launch
# (default: all but matmul_bias_gelu, matmul_fp16, matmul_ragged, matmul_tma
# and attention). matmul_bias_gelu (examples/matmul_bias_gelu.tile) is timed
# beside peers.py's "gelu(A@B+b)" rows of its matmul workload, matmul_fp16
# beside peers.py matmul_fp16, matmul_ragged (DIR/matmul on bf16
# 4000x4096x4096) beside bench/peers_gemm.py's cuBLAS and Triton rows,
# matmul_tma (examples/matmul_tma.tile) beside peers.py's matmul, attention
# (the builder's attention_d128) beside SDPA.
# KERNELS_DIR as for scripts/gpu-test.sh (default: the nvcc
# fixture kernels, reported as system "nvcc fixture" rather than "tilec").
# Runs tilec-bench, then peers.py on the same workloads plus the copy
# ceiling, in one call, and prints the side-by-side table (bench/compare.py).
# Environment: PEERS, the path of peers.py (default: shared/bench/peers.py,
# ../shared/bench/peers.py or .gpu-runtime/peers.py, the first found);
# PEER_WORK, the peers.py workloads to run instead of the same ones;
# BUILD (default build-gpu); LOGS, where rows and logs go (default
# $BUILD/logs): tilec.json, peers.json, table.md.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
out=${LOGS:-$build/logs}
mkdir -p "$out"

kernels=""
if (($#)) && [ -d "$1" ]; then
  kernels=$1
  shift
fi
work=("$@")
system=tilec
if [ -z "$kernels" ]; then
  kernels=$build/test/GPU/fixtures
  system="nvcc fixture"
fi

peers=${PEERS:-}
if [ -z "$peers" ]; then
  for p in "$root/shared/bench/peers.py" "$root/../shared/bench/peers.py" \
    "$root/.gpu-runtime/peers.py"; do
    if [ -f "$p" ]; then
      peers=$p
      break
    fi
  done
fi

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build "$build" >"$out/build.log" 2>&1 || {
  echo "gpu-bench: the build failed; see $out"
  tail -30 "$out/build.log"
  exit 1
}

echo "== tilec-bench ($system, kernels from $kernels)"
"$build/bin/tilec-bench" --kernels "$kernels" --system "$system" \
  --out "$out/tilec.json" "${work[@]}" || {
  echo "gpu-bench: tilec-bench failed"
  exit 1
}

if [ -z "$peers" ]; then
  echo "gpu-bench: peers.py not found (set PEERS); no comparison"
  exit 1
fi
# peers.py knows no rmsnorm, times gelu(A@B+b) with matmul and has no
# ragged GEMM (bench/peers_gemm.py times that); it always measures the copy
# ceiling.
peer_work=(copy)
gemm_work=()
for w in "${work[@]}"; do
  case $w in
  rmsnorm) ;;
  matmul_bias_gelu | matmul_tma | matmul_tma_bias_gelu | matmul_tma_persistent | matmul_tma_cluster | matmul) [[ " ${peer_work[*]} " == *" matmul "* ]] || peer_work+=(matmul) ;;
  matmul_fp16 | matmul_tma_fp16) [[ " ${peer_work[*]} " == *" matmul_fp16 "* ]] || peer_work+=(matmul_fp16) ;;
  matmul_ragged | matmul_tma_ragged | matmul_tma_persistent_ragged | matmul_tma_cluster_ragged) [[ " ${gemm_work[*]} " == *" matmul_ragged "* ]] || gemm_work+=(matmul_ragged) ;;
  *) peer_work+=("$w") ;;
  esac
done
if ((${#work[@]} == 0)); then
  peer_work=(copy add coscos bias_gelu softmax layernorm matmul launch)
fi
if [ -n "${PEER_WORK:-}" ]; then # e.g. PEER_WORK="copy launch": fewer peers
  read -r -a peer_work <<<"$PEER_WORK"
fi
echo "== peers.py ${peer_work[*]}"
OUT=$out PYTHONUNBUFFERED=1 python3 "$peers" "${peer_work[@]}" ||
  echo "gpu-bench: peers.py failed (the table shows what it wrote)"
if ((${#gemm_work[@]})); then
  echo "== bench/peers_gemm.py ${gemm_work[*]}"
  OUT=$out PEERS=$peers PYTHONUNBUFFERED=1 \
    python3 "$root/bench/peers_gemm.py" "${gemm_work[@]}" ||
    echo "gpu-bench: peers_gemm.py failed (the table shows what it wrote)"
fi

echo "== side by side"
python3 "$root/bench/compare.py" "$out/tilec.json" "$out/peers.json" \
  --ours "$system" | tee "$out/table.md"
