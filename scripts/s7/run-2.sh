#!/usr/bin/env bash
# Session 7, H200 call 4 (after scripts/s5/prep-all.sh's attention step
# and .dev/s7/bm64 here): attention forward and backward again (the
# forward back to its plain step, tile-async-dots' settled waits), the
# head_dim 128 forward with 64 queries per program on 4 warps (two
# programs per SM, each with its own barriers) checked and timed, ncu on
# both forwards (one launch each), and the 1408x2304x8192 GEMM where
# 128x192 tiles fill one wave, beside cuBLAS and Triton. Carry
# [".dev/s5", ".dev/s7", ".gpu-deps"].
set -u
D=.dev/s5; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
echo "== attention $(el)"
bash scripts/s5/run-attn.sh 2>&1 | tail -14
B=build-gpu/bin; S=/usr/local/cuda/bin/compute-sanitizer
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
echo "== attention_d128, 64 queries per program, 4 warps $(el)"
$B/tilec-gpu-tests --kernels .dev/s7/bm64 --only attention_d128 --attention-block-m 64 2>&1 | grep -E "FAIL|passed"
$S --tool memcheck $B/tilec-gpu-tests --kernels .dev/s7/bm64 --only attention_d128 --attention-block-m 64 --small --exact 2>&1 | tail -2
$B/tilec-bench --kernels .dev/s7/bm64 --attention-block-m 64 attention 2>/dev/null | grep -o '"work": "[^"]*", "system": "[^"]*", "ms": [0-9.]*'
echo "== ncu $(el)"
for v in "$D/attn 128" ".dev/s7/bm64 64"; do
  set -- $v
  timeout 120 $NCU --kernel-name attention_d128 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis \
    $B/tilec-bench --kernels $1 --attention-block-m $2 attention > $O/ncu-bm$2.txt 2>&1
  echo "ncu bm$2 rc=$?"
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Stall|Executed Ipc A" $O/ncu-bm$2.txt | head -24
done
echo "== GEMM 1408x2304x8192 $(el)"
for tile in 128x192 128x128; do
  $B/tilec-bench --kernels $D/np2/mm$tile --matmul-tile ${tile/x/,} matmul_wave 2>/dev/null | grep -o '"work": "[^"]*", "system": "[^"]*", "ms": [0-9.]*, "GBps": null, "TFLOPs": [0-9.]*' | sed "s/^/$tile /"
done
OUT=$O/gemm PEERS=$D/peers.py timeout 120 python3 bench/peers_gemm.py matmul_wave 2>&1 | grep -E '"work"|Error' | head
echo "total $(el)"
