#!/usr/bin/env bash
# Session 17, GPU call 2 (after scripts/s17/prep-1.sh; carry [".dev/s17",
# ".gpu-deps"]; `tilec-tune compile --builder matmul --arch sm_90a -o
# .dev/s17/tune` here, peers.py beside the candidates): (1) the PyTorch
# extension's checks and the blocks end to end, the transformer block with
# the persistent QKV GEMM and the ping-pong attention, its parts one by one
# (examples/torch/block.py); (2) the GEMM tuning sweep of the 15 LLM shapes
# beside cuBLAS and Triton (scripts/gpu-tune.sh).
S=.dev/s17; . scripts/s14/call.sh
echo "== (1) PyTorch $(el)"
MAX_JOBS=16 timeout 250 bash scripts/gpu-torch.sh $S/torch > $O/x/torch.log 2>&1
echo "torch rc=$? pass=$(grep -c '^PASS' $O/x/torch.log) fail=$(grep -c 'FAIL' $O/x/torch.log)"
grep -v '^PASS' $O/x/torch.log | tail -50
echo "== (2) GEMM tuning $(el)"
PEERS=$S/tune/peers.py LOGS=$O/x/tune timeout 240 bash scripts/gpu-tune.sh $S/tune 2>&1 | tail -40
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
