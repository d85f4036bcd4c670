#!/usr/bin/env bash
# Session 8, GPU call 3, the last of the session's device time (after
# scripts/s8/prep-2.sh and, for the archive, scripts/prep-diff-batch.sh 500
# 10000 .dev/diff10k/seed500.tar.xz here; carry [".dev/s8b", ".dev/diff10k",
# ".gpu-deps"]): the overlapped attention forward's checks (small sizes)
# and all four descriptor forwards beside SDPA, then as many of the 10^4
# generated programs of seed 500 as the time left allows.
set -u
D=.dev/s8b; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/configure.log 2>&1 &&
  cmake --build $B > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built $(el)"
T="attention_tma_d128_overlap,attention_tma_d128_n128_overlap,attention_tma_d128_n128_overlap_pingpong"
timeout 60 $B/bin/tilec-gpu-tests --kernels $D/attn --only $T --small > $O/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/checks.log) fail=$(grep -c FAIL $O/checks.log) $(el)"
grep -E "FAIL|rror" $O/checks.log | head -4
timeout 70 $B/bin/tilec-bench --kernels $D/attn attention_tma > $O/bench.json 2> $O/bench.err
echo "bench rc=$?"
timeout 35 python3 $D/peers.py attention > $O/peers.txt 2>&1
cat $O/bench.json $O/peers.txt | python3 -c "
import json,sys
for l in sys.stdin:
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][-11:]:11} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF  {r['system']} {r['note'][:34]}\")"
echo "== generated programs $(el)"
left=$(( 150 - ($(date +%s) - t0) ))
GPU_RUN=$B/bin/tilec-gpu-run TIME_BUDGET=$left scripts/gpu-diff-batch.sh .dev/diff10k/seed500.tar.xz > $O/diff.log 2>&1
tail -2 $O/diff.log; grep -E "^(FAIL|CRASH)" $O/diff.log | head -5
echo "total $(el)"
