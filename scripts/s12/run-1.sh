#!/usr/bin/env bash
# Session 12, GPU call 1 (after scripts/s12/prep-1.sh here; carry
# [".dev/s12", ".dev/s11d", ".gpu-deps"]). Prints each result as it comes
# (the slow steps last): (1) the forwards of A, B, C, D timed twice,
# interleaved, beside SDPA (peers.py attention); (2) B's overlapped forwards
# against the float64 reference, and B's ping-pong forward under memcheck,
# racecheck and synccheck at small sizes; (3) `tilec-tune measure --arg`
# twice (the second from the cache); (4) the TMA GEMM and the backward of
# A and D (setmaxnreg 24 / 240), and D's checks of them.
set -u
S=.dev/s12; O=${OUT:-/tmp/out}; mkdir -p $O/x
. scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu; A=.dev/s11d/k
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
fmt() { for f in "$@"; do echo "-- $(basename $f)"; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][27:62]:35} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF {r['note'][:40]}\")" $f; done; }
dir() { [ $1 = A ] && echo $A || echo $S/$1; }
echo "== (1) forwards $(el)"
for r in 1 2; do for v in A B C D; do
  timeout 40 $B/bin/tilec-bench --kernels $(dir $v) attention_tma > $O/x/attn-$v-$r.json 2>> $O/x/bench.err
done; done
for v in A B C D; do fmt $O/x/attn-$v-1.json $O/x/attn-$v-2.json | grep -E "^--|pingpong|n128_overlap \(|d128_overlap \("; done
timeout 60 python3 $S/peers.py attention > $O/x/peers-attn.txt 2>&1; grep -E '"ms"|ms' $O/x/peers-attn.txt | head -4
echo "== (2) checks and sanitizers of B $(el)"
fwd=attention_tma_d128_overlap,attention_tma_d128_n128_overlap,attention_tma_d128_n128_overlap_pingpong
timeout 60 $B/bin/tilec-gpu-tests --kernels $S/B --only $fwd > $O/x/checks-B.log 2>&1
echo "B rc=$? pass=$(grep -c PASS $O/x/checks-B.log) fail=$(grep -c FAIL $O/x/checks-B.log) $(el)"
grep -h FAIL $O/x/checks-B.log | head -4 | cut -c1-150
for t in memcheck racecheck synccheck; do
  timeout 45 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/B --small \
    --only attention_tma_d128_n128_overlap_pingpong > $O/x/san-B-$t.log 2>&1
  echo "B $t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-B-$t.log | head -1) pass=$(grep -c PASS $O/x/san-B-$t.log) $(el)"
done
echo "== (3) tilec-tune measure --arg $(el)"
n=67108864
for r in 1 2; do
  timeout 60 $B/bin/tilec-tune measure $S/tune-add --arg n=$n,rand=1 --arg n=$n,rand=2 \
    --arg n=$n --arg $n --cache-dir /tmp/tune-cache --json $O/x/tune-$r.json > $O/x/tune-$r.txt 2>&1
  echo "tune $r rc=$?"; tail -11 $O/x/tune-$r.txt
done
echo "== (4) GEMM and backward, A and D $(el)"
for r in 1 2; do for v in A D; do
  timeout 40 $B/bin/tilec-bench --kernels $(dir $v) matmul_tma matmul_tma_bias_gelu > $O/x/mm-$v-$r.json 2>> $O/x/bench.err
done; done
fmt $O/x/mm-*.json
for v in A D; do
  timeout 60 $B/bin/tilec-bench --kernels $(dir $v) attention_bwd > $O/x/bwd-$v.json 2>> $O/x/bench.err
  fmt $O/x/bwd-$v.json | grep -E "^--|TMA"
done
echo "$(el)"
timeout 90 $B/bin/tilec-gpu-tests --kernels $S/D --only matmul_tma,matmul_tma_bias_gelu,attention_bwd_d128 > $O/x/checks-D.log 2>&1
echo "D rc=$? pass=$(grep -c PASS $O/x/checks-D.log) fail=$(grep -c FAIL $O/x/checks-D.log) $(el)"
grep -h FAIL $O/x/checks-D.log | head -4 | cut -c1-150
tail -3 $O/x/bench.err
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
