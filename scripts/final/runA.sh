#!/usr/bin/env bash
# Call A on the H200: every example checked (sm_90a + sm_90), sanitizers,
# the benchmark beside the peers, the builder GEMM tiles, SASS evidence.
set -u
D=.dev/s4; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== gpu-test.sh sm_90a $(el)"
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test timeout 280 scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
echo "rc=$? $(el)"
grep -E "^== |PASS|FAIL|passed|failed|ERROR SUMMARY|RACECHECK SUMMARY|gpu-test" $O/gpu-test.log | grep -vE "^PASS" | head -40
grep -cE "^PASS" $O/gpu-test.log
B=build-gpu; export TILEC_CACHE_DIR=$B/cubin-cache
echo "== sm_90 examples $(el)"
timeout 90 $B/bin/tilec-gpu-tests --kernels $D/k90 > $O/test-k90.log 2>&1; echo "rc=$? pass=$(grep -c PASS $O/test-k90.log) fail=$(grep -c FAIL $O/test-k90.log)"; grep FAIL $O/test-k90.log | head
echo "== builder 128x256 / persistent checks $(el)"
timeout 60 $B/bin/tilec-gpu-tests --kernels $D/k256 --only matmul --matmul-tile 128,256 2>&1 | grep -E "PASS|FAIL" | head -5
timeout 60 $B/bin/tilec-gpu-tests --kernels $D/kpersist --only matmul --matmul-tile 128,256 --matmul-persistent 2>&1 | grep -E "PASS|FAIL" | head -5
echo "== bench beside peers $(el)"
PEERS=$D/peers.py LOGS=$O/bench timeout 300 scripts/gpu-bench.sh $D/k90a matmul matmul_tma matmul_bias_gelu matmul_fp16 matmul_ragged matmul_tma_ragged attention launch add bias_gelu softmax layernorm softmax5000 layernorm3072 > $O/bench.log 2>&1; echo "rc=$? $(el)"
tail -45 $O/bench.log
echo "== builder tiles $(el)"
timeout 60 $B/bin/tilec-bench --kernels $D/k256 --matmul-tile 128,256 --system "tilec 128x256 (builder)" matmul matmul_ragged 2>&1 | grep -E "matmul" | head
timeout 60 $B/bin/tilec-bench --kernels $D/kpersist --matmul-tile 128,256 --matmul-persistent --system "tilec 128x256 persistent" matmul matmul_ragged 2>&1 | grep -E "matmul" | head
echo "== sass $(el)"
for k in matmul matmul_tma matmul_bias_gelu matmul_fp16 attention attention_d128; do
  /usr/local/cuda/bin/cuobjdump --dump-sass $D/k90a/$k.cubin > $O/$k.sass 2>/dev/null
  echo "$k: HGMMA $(grep -c HGMMA $O/$k.sass) HMMA $(grep -c HMMA $O/$k.sass) UTMALDG $(grep -c UTMALDG $O/$k.sass) LDL/STL $(grep -cE 'LDL|STL' $O/$k.sass)"
done
/usr/local/cuda/bin/cuobjdump --dump-sass $D/k256/matmul.cubin | grep -c HGMMA
echo "total $(el)"
