#!/usr/bin/env bash
# Call 1 of the final H200 check: every example (sm_90a and sm_90) against
# host references, sanitizers, the benchmark beside the peers, SASS counts,
# the outside AOT program.
set -u
D=.dev/s5; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== gpu-test.sh sm_90a $(el)"
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test timeout 300 scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
echo "rc=$? $(el)"
grep -E "^== |FAIL|passed|failed|ERROR SUMMARY|RACECHECK SUMMARY|gpu-test" $O/gpu-test.log | grep -vE "^PASS" | head -40
echo "PASS lines: $(grep -cE "^PASS" $O/gpu-test.log)"
B=build-gpu; export TILEC_CACHE_DIR=$B/cubin-cache
echo "== sm_90 examples $(el)"
timeout 90 $B/bin/tilec-gpu-tests --kernels $D/k90 > $O/test-k90.log 2>&1; echo "rc=$? pass=$(grep -c PASS $O/test-k90.log) fail=$(grep -c FAIL $O/test-k90.log)"; grep FAIL $O/test-k90.log | head
echo "== bench beside peers $(el)"
PEERS=$D/peers.py LOGS=$O/bench timeout 280 scripts/gpu-bench.sh $D/k90a matmul matmul_tma matmul_tma_persistent matmul_tma_bias_gelu matmul_bias_gelu matmul_fp16 matmul_tma_fp16 matmul_ragged matmul_tma_ragged matmul_tma_persistent_ragged attention launch add bias_gelu softmax layernorm softmax5000 layernorm3072 > $O/bench.log 2>&1; echo "rc=$? $(el)"
sed -n '/side by side/,$p' $O/bench.log | head -60
echo "== sass $(el)"
for k in matmul matmul_tma matmul_tma_persistent matmul_tma_bias_gelu attention attention_d128; do
  /usr/local/cuda/bin/cuobjdump --dump-sass $D/k90a/$k.cubin > $O/$k.sass 2>/dev/null
  echo "$k: HGMMA $(grep -c HGMMA $O/$k.sass) HMMA $(grep -c HMMA $O/$k.sass) UTMALDG $(grep -c UTMALDG $O/$k.sass) USETMAXREG $(grep -c USETMAXREG $O/$k.sass) LDL/STL $(grep -cE 'LDL|STL' $O/$k.sass)"
done
echo "== outside aot $(el)"
timeout 90 scripts/gpu-outside.sh $D/aot > $O/outside.log 2>&1; echo "rc=$?"; grep -E "PASS|FAIL" $O/outside.log | head -5
echo "total $(el)"
