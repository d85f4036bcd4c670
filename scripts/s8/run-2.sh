#!/usr/bin/env bash
# Session 8, GPU call 2 (after scripts/s8/prep-2.sh here; carry
# [".dev/s8b", ".gpu-deps"]): the overlapped attention forward against the
# float64 reference and under the three sanitizers, all four descriptor
# variants beside SDPA, then every example under memcheck, racecheck and
# synccheck as time allows.
set -u
D=.dev/s8b; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
left() { echo $(( 570 - ($(date +%s) - t0) )); }
B=build-gpu
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/configure.log 2>&1 &&
  cmake --build $B > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built $(el)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T="attention_tma_d128_overlap,attention_tma_d128_n128_overlap,attention_tma_d128_n128_overlap_pingpong"
echo "== checks $(el)"
timeout 100 $B/bin/tilec-gpu-tests --kernels $D/attn --only $T > $O/checks.log 2>&1
echo "rc=$? pass=$(grep -c PASS $O/checks.log) fail=$(grep -c FAIL $O/checks.log) $(el)"
grep -E "FAIL|rror" $O/checks.log | head -6
for tool in memcheck racecheck synccheck; do
  timeout 60 $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests \
    --kernels $D/attn --only $T --small --exact > $O/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/$tool.log | head -2 | tr '\n' ' ') $(el)"
done
echo "== bench $(el)"
timeout 120 $B/bin/tilec-bench --kernels $D/attn attention_tma > $O/bench.json 2> $O/bench.err
echo "rc=$?"; tail -2 $O/bench.err
timeout 60 python3 $D/peers.py attention > $O/peers.txt 2>&1
cat $O/bench.json $O/peers.txt | python3 -c "
import json,sys
for l in sys.stdin:
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][:48]:48} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF  {r['system']} {r['note']}\")"
echo "== examples, three sanitizers $(el)"
l=$(left)
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test BUILD=$B timeout $((l - 5)) \
  scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
echo "rc=$? $(el)"
grep -E "FAIL|passed|failed|gpu-test|SUMMARY" $O/gpu-test.log | grep -v "^PASS" | head -20
echo "total $(el)"
