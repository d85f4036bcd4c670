#!/usr/bin/env bash
# Session 12, GPU call 1 (after scripts/s12/prep-1.sh here; carry
# [".dev/s12", ".gpu-deps"]). Prints each result as it comes, the most
# wanted first: (1) the forwards of B and C twice, interleaved (each run
# times the ping-pong forward and its _rf form side by side), beside SDPA;
# (2) B's overlapped forwards against the float64 reference and the _rf
# ping-pong forward under racecheck, memcheck, synccheck; (3) `tilec-tune
# measure --arg` twice (the second from the cache); unless SHORT is set,
# (4) the TMA GEMMs and the backward of B and C (setmaxnreg 24 / 240) and
# C's GEMM checks.
set -u
S=.dev/s12; O=${OUT:-/tmp/out}; mkdir -p $O/x
root=$(pwd); . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu
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
        r=json.loads(l); print(f\"{r['work'][-26:]:26} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF {r['note'][:44]}\")" $f; done; }
echo "== (1) forwards $(el)"
for r in 1 2; do for v in B C; do
  timeout 40 $B/bin/tilec-bench --kernels $S/$v attention_tma > $O/x/attn-$v-$r.json 2>> $O/x/bench.err
  fmt $O/x/attn-$v-$r.json | grep -E "^--|pingpong|n128_overlap \("; echo "$(el)"
done; done
timeout 60 python3 $S/peers.py attention > $O/x/peers-attn.txt 2>&1; grep -E 'ms' $O/x/peers-attn.txt | head -4
echo "== (2) checks and sanitizers of B $(el)"
fwd=attention_tma_d128_overlap,attention_tma_d128_n128_overlap,attention_tma_d128_n128_overlap_pingpong,attention_tma_d128_n128_overlap_pingpong_rf
timeout 60 $B/bin/tilec-gpu-tests --kernels $S/B --only $fwd > $O/x/checks-B.log 2>&1
echo "B rc=$? pass=$(grep -c PASS $O/x/checks-B.log) fail=$(grep -c FAIL $O/x/checks-B.log) $(el)"
grep -h FAIL $O/x/checks-B.log | head -4 | cut -c1-150
for t in ${SANITIZERS:-racecheck memcheck synccheck}; do
  timeout 40 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/B --small \
    --only attention_tma_d128_n128_overlap_pingpong_rf > $O/x/san-B-$t.log 2>&1
  echo "B _rf $t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-B-$t.log | head -1) pass=$(grep -c PASS $O/x/san-B-$t.log) $(el)"
done
echo "== (3) tilec-tune measure --arg $(el)"
n=67108864
for r in 1 2; do
  timeout 40 $B/bin/tilec-tune measure $S/tune-add --arg n=$n,rand=1 --arg n=$n,rand=2 \
    --arg n=$n --arg $n --cache-dir /tmp/tune-cache --json $O/x/tune-$r.json > $O/x/tune-$r.txt 2>&1
  echo "tune $r rc=$?"; tail -11 $O/x/tune-$r.txt
done
[ -n "${SHORT:-}" ] && { echo "short: stop $(el)"; exit 0; }
echo "== (4) GEMM and backward, B and C $(el)"
for v in B C; do
  timeout 30 $B/bin/tilec-bench --kernels $S/$v matmul_tma matmul_tma_bias_gelu > $O/x/mm-$v.json 2>> $O/x/bench.err
  fmt $O/x/mm-$v.json
done
for v in B C; do
  timeout 45 $B/bin/tilec-bench --kernels $S/$v attention_bwd > $O/x/bwd-$v.json 2>> $O/x/bench.err
  fmt $O/x/bwd-$v.json | grep -E "^--|TMA"
done
timeout 40 $B/bin/tilec-gpu-tests --kernels $S/C --only matmul_tma,matmul_tma_bias_gelu > $O/x/checks-C.log 2>&1
echo "C rc=$? pass=$(grep -c PASS $O/x/checks-C.log) fail=$(grep -c FAIL $O/x/checks-C.log) $(el)"
tail -3 $O/x/bench.err
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
