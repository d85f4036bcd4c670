#!/usr/bin/env bash
# Session 7, H200 call 5 (after scripts/s5/prep-all.sh with the merged
# compiler, branches torch2 and rel): the examples with the three
# sanitizers, the descriptor GEMM with 128x192 tiles checked and timed on
# the one-wave shape beside its 256 and 128 builds, the PyTorch extension
# (host time, the two-kernel block with both GEMM builds, dynamic shapes),
# the attention kernels' checks (the layout pass's use-order fix), and
# 1000 generated programs of seed 300 against the interpreter
# (.dev/s7/g300: gen-tile-programs.py gen --seed 300 --count 1000, then
# make-gpu-cases.py). Carry [".dev/s5", ".dev/s7", ".gpu-deps"].
. scripts/s7/common.sh
examples_sanitized 240
B=build-gpu/bin
echo "== matmul_tma, BLOCK_N 192 $(el)"
$B/tilec-gpu-tests --kernels .dev/s7/tma192 --only matmul_tma 2>&1 | grep -E "FAIL|passed"
for n in 192 256 128; do
  $B/tilec-bench --kernels .dev/s7/tma$n matmul_tma_wave matmul_tma 2>/dev/null | grep -o '"work": "[^"]*", "system": "[^"]*", "ms": [0-9.]*, "GBps": null, "TFLOPs": [0-9.]*' | sed "s/^/BLOCK_N=$n /"
done
echo "== attention checks $(el)"
$B/tilec-gpu-tests --kernels $D/attn --only attention_d128,attention_bwd_d64,attention_bwd_d128 2>&1 | grep -E "FAIL|passed"
echo "== 1000 generated programs (seed 300) $(el)"
JOBS=16 SANITIZER_TOOLS= LOGS=$O/diff timeout 150 scripts/gpu-diff.sh .dev/s7/g300 > $O/diff.log 2>&1; echo "rc=$? $(el)"
echo "PASS $(grep -c '^PASS' $O/diff.log) FAIL $(grep -c '^FAIL' $O/diff.log)"; grep -E "^FAIL" $O/diff.log | head -10; tail -2 $O/diff.log
echo "== torch $(el)"
MAX_JOBS=16 timeout 330 scripts/gpu-torch.sh $D/torch > $O/torch.log 2>&1; echo "rc=$? $(el)"
grep -E "FAIL|host us|block|target" $O/torch.log | grep -v "^PASS" | head -30; echo "PASS lines: $(grep -c PASS $O/torch.log)"
echo "total $(el)"
