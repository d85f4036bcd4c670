#!/usr/bin/env bash
# Session 13, GPU call 2 (after scripts/s13/prep-2.sh here; carry
# [".dev/s13", ".gpu-deps"]): (1) the PyTorch extension and its checks
# (scripts/gpu-torch.sh: operators against PyTorch, the allocating
# overloads, refusals, CUDA graph, torch.compile, host time, the block end
# to end); (2) unless NO_TUNE is set, the GEMM tuning sweep of the 15 LLM
# shapes beside cuBLAS and Triton (scripts/gpu-tune.sh).
set -u
D=.dev/s13
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
echo "== (1) PyTorch $(el)"
MAX_JOBS=16 timeout 330 bash scripts/gpu-torch.sh $D/torch 2>&1 |
  grep -vE "^PASS" | tail -60
echo "torch done $(el)"
[ -n "${NO_TUNE:-}" ] && exit 0
echo "== (2) GEMM tuning $(el)"
PEERS=$D/tune/peers.py timeout 400 bash scripts/gpu-tune.sh $D/tune 2>&1 | tail -45
echo "total $(el)"
