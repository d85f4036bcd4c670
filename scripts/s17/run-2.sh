#!/usr/bin/env bash
# Session 17, GPU call 2 (after scripts/s17/prep-1.sh; carry [".dev/s17",
# ".gpu-deps"]): the PyTorch extension's checks and the blocks end to end,
# the transformer block with the persistent QKV GEMM and the ping-pong
# attention, its parts one by one (examples/torch/block.py).
S=.dev/s17; . scripts/s14/call.sh
echo "== PyTorch $(el)"
MAX_JOBS=16 timeout 400 bash scripts/gpu-torch.sh $S/torch > $O/x/torch.log 2>&1
echo "torch rc=$? pass=$(grep -c '^PASS' $O/x/torch.log) fail=$(grep -c 'FAIL' $O/x/torch.log)"
grep -v '^PASS' $O/x/torch.log | tail -50
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
