#!/usr/bin/env bash
# Session 16, GPU call 3 (after scripts/s16/prep-1.sh, scripts/s16/prep-2.sh
# and `tilec-tune compile --builder matmul --arch sm_90a -o
# .dev/s16c/tune` here, peers.py beside the candidates; carry [".dev/s16",
# ".dev/s16b", ".dev/s16c", ".gpu-deps"]): (1) the GEMM tuning sweep of the
# 15 LLM shapes beside cuBLAS and Triton on the H200 (scripts/gpu-tune.sh);
# (2) the PyTorch extension's checks and the blocks end to end with the
# transformer block's parts timed one by one beside PyTorch's ops
# (examples/torch/block.py); (3) scripts/s16/run-2.sh again: the
# dQ-by-TMA-reduce kernel with its transposed tile stored through the
# slot's transposed view.
set -u
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
mkdir -p ${OUT:-/tmp/out}
echo "== (1) GEMM tuning $(el)"
PEERS=.dev/s16c/tune/peers.py LOGS=${OUT:-/tmp/out}/tune timeout 300 \
  bash scripts/gpu-tune.sh .dev/s16c/tune 2>&1 | tail -40
echo "== (2) PyTorch $(el)"
MAX_JOBS=16 timeout 250 bash scripts/gpu-torch.sh .dev/s16/torch > ${OUT:-/tmp/out}/torch.log 2>&1
echo "torch rc=$? pass=$(grep -c '^PASS' ${OUT:-/tmp/out}/torch.log) fail=$(grep -c 'FAIL' ${OUT:-/tmp/out}/torch.log)"
grep -v '^PASS' ${OUT:-/tmp/out}/torch.log | tail -40
echo "== (3) backward $(el)"
OUT=${OUT:-/tmp/out}/bwd bash scripts/s16/run-2.sh 2>&1 | grep -vE "^(PASS|%y)"
echo "total $(el)"
