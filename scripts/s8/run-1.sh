#!/usr/bin/env bash
# Session 8, H200 call 1 (after scripts/s8/prep-1.sh here; carry
# [".dev/s8", ".gpu-deps"]): the descriptor attention forward against the
# float64 reference (ragged seq, GQA, causal), under memcheck, racecheck
# and synccheck, beside SDPA and the pointer kernel; its SASS; then every
# example with the three sanitizers (matmul_tma's 128x192 default since
# session 7).
set -u
D=.dev/s8; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/configure.log 2>&1 &&
  cmake --build $B > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built $(el)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T="attention_tma_d128,attention_tma_d128_n128"
echo "== checks $(el)"
timeout 120 $B/bin/tilec-gpu-tests --kernels $D/attn --only $T,attention_d128 > $O/checks.log 2>&1
echo "rc=$? pass=$(grep -c PASS $O/checks.log) fail=$(grep -c FAIL $O/checks.log) $(el)"
grep -E "FAIL|error" $O/checks.log | head -8
for tool in memcheck racecheck synccheck; do
  timeout 150 $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests \
    --kernels $D/attn --only $T --small --exact > $O/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/$tool.log | head -2 | tr '\n' ' ') $(el)"
done
echo "== bench $(el)"
timeout 150 $B/bin/tilec-bench --kernels $D/attn attention attention_tma > $O/bench.json 2> $O/bench.err
echo "rc=$?"; grep -o '"work": "[^"]*", "system": "[^"]*", "ms": [0-9.]*, "GBps": [^,]*, "TFLOPs": [0-9.]*, "note": "[^"]*"' $O/bench.json
timeout 100 python3 $D/peers.py attention 2>&1 | grep -o '"work": "[^"]*", "system": "[^"]*", "ms": [0-9.]*' 
echo "== sass $(el)"
for k in attention_tma_d128 attention_tma_d128_n128; do
  cuobjdump -sass $D/attn/$k.cubin > $O/$k.sass 2>&1
  echo "$k HGMMA=$(grep -c HGMMA $O/$k.sass) UTMALDG=$(grep -c UTMALDG $O/$k.sass) LDL=$(grep -c LDL $O/$k.sass) STL=$(grep -c STL $O/$k.sass) SETMAXNREG=$(grep -c -i setmaxnreg $O/$k.sass) BAR=$(grep -c 'BAR' $O/$k.sass)"
done
echo "== examples, three sanitizers $(el)"
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test BUILD=$B timeout 200 \
  scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
echo "rc=$? $(el)"
grep -E "FAIL|passed|failed|gpu-test|SUMMARY" $O/gpu-test.log | grep -v "^PASS" | head -20
echo "total $(el)"
