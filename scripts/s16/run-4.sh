#!/usr/bin/env bash
# Session 16, GPU call 4 (after scripts/s16/prep-1.sh, with
# matmul_tma_persistent_bf16out and attention_tma_d128_n128_overlap_pingpong
# in the extension's sources, and `tilec-examples --arch sm_90a -o
# .dev/s16/P matmul_tma_persistent_bf16out` here; carry [".dev/s16",
# ".gpu-deps"]): (1) the builder's persistent GEMM against the host
# reference and under memcheck; (2) the PyTorch extension's checks and the
# blocks end to end, the transformer block with the persistent QKV GEMM
# and the ping-pong attention, its parts one by one.
S=.dev/s16; . scripts/s14/call.sh
echo "== (1) persistent GEMM $(el)"
timeout 60 $B/bin/tilec-gpu-tests --kernels $S/P --only matmul_tma_persistent_bf16out > $O/x/gemm.log 2>&1
echo "gemm rc=$? pass=$(grep -c PASS $O/x/gemm.log) fail=$(grep -c FAIL $O/x/gemm.log)"; grep FAIL $O/x/gemm.log | head -3
timeout 60 compute-sanitizer --tool memcheck $B/bin/tilec-gpu-tests --kernels $S/P --small \
  --only matmul_tma_persistent_bf16out 2>&1 | grep -E "ERROR SUMMARY|passed"
echo "== (2) PyTorch $(el)"
MAX_JOBS=16 timeout 250 bash scripts/gpu-torch.sh $S/torch > $O/x/torch.log 2>&1
echo "torch rc=$? pass=$(grep -c '^PASS' $O/x/torch.log) fail=$(grep -c 'FAIL' $O/x/torch.log)"
grep -v '^PASS' $O/x/torch.log | tail -45
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
