#!/usr/bin/env bash
# Session 8, H200 call 1 (after scripts/s8/prep-1.sh here; carry
# [".dev/s8", ".gpu-deps"]): the descriptor attention forward and backward
# against the float64 references (ragged seq, GQA, causal), beside SDPA
# and the pointer kernels, their SASS, then compute-sanitizer (memcheck,
# racecheck, synccheck) as time allows.
set -u
D=.dev/s8; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
left() { echo $(( 570 - ($(date +%s) - t0) )); }
B=build-gpu
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/configure.log 2>&1 &&
  cmake --build $B > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built $(el)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T="attention_tma_d128,attention_tma_d128_n128"
echo "== forward checks $(el)"
timeout 100 $B/bin/tilec-gpu-tests --kernels $D/attn --only $T,attention_d128 > $O/checks.log 2>&1
echo "rc=$? pass=$(grep -c PASS $O/checks.log) fail=$(grep -c FAIL $O/checks.log) $(el)"
grep -E "FAIL|rror" $O/checks.log | head -6
echo "== bench $(el)"
timeout 120 $B/bin/tilec-bench --kernels $D/attn attention attention_tma attention_bwd > $O/bench.json 2> $O/bench.err
echo "rc=$?"; tail -3 $O/bench.err
python3 - $O/bench.json <<'PY'
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r=json.loads(l); print(f"{r['work'][:48]:48} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF  {r['note']}")
PY
timeout 100 python3 $D/peers.py attention attention_bwd 2>&1 | python3 -c "
import json,sys
for l in sys.stdin:
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][:48]:48} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF  {r['system']}\")"
echo "== backward checks $(el)"
timeout 150 $B/bin/tilec-gpu-tests --kernels $D/attn --only attention_bwd_d128 > $O/bwd.log 2>&1
echo "rc=$? pass=$(grep -c PASS $O/bwd.log) fail=$(grep -c FAIL $O/bwd.log) tma=$(grep -c 'tma.*PASS\|PASS.*tma' $O/bwd.log) $(el)"
grep -E "FAIL|rror" $O/bwd.log | head -6
echo "== sass $(el)"
for k in attention_tma_d128 attention_tma_d128_n128 attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128; do
  cuobjdump -sass $D/attn/$k.cubin > $O/$k.sass 2>&1
  echo "$k HGMMA=$(grep -c HGMMA $O/$k.sass) UTMALDG=$(grep -c UTMALDG $O/$k.sass) LDL=$(grep -c LDL $O/$k.sass) STL=$(grep -c STL $O/$k.sass)"
done
for tool in memcheck racecheck synccheck; do
  l=$(left); ((l > 40)) || { echo "skipped $tool: no time"; continue; }
  timeout $((l - 10)) $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests \
    --kernels $D/attn --only $T,attention_bwd_d128 --small --exact > $O/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/$tool.log | head -2 | tr '\n' ' ') $(el)"
done
echo "total $(el)"
