#!/usr/bin/env bash
# Session 12, GPU call 1 (after scripts/s12/prep-1.sh here; carry
# [".dev/s12", ".dev/s11d", ".gpu-deps"]): (1) checks of the variants'
# kernels against the host references (B and C: the overlapped forwards
# with P carried in f32; D: the backward and the TMA GEMMs at setmaxnreg
# 24 / 240), compute-sanitizer on B's and C's ping-pong forward at small
# sizes; (2) timing, interleaved: the forwards of A, B, C, D, SDPA, the
# backward of A and D (and C), the GEMMs of A and D beside cuBLAS.
set -u
S=.dev/s12; O=${OUT:-/tmp/out}; mkdir -p $O/x
. scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
A=.dev/s11d/k
fwd=attention_tma_d128_overlap,attention_tma_d128_n128_overlap,attention_tma_d128_n128_overlap_pingpong
echo "== (1) checks $(el)"
for v in B C; do
  timeout 60 $B/bin/tilec-gpu-tests --kernels $S/$v --only $fwd > $O/x/checks-$v.log 2>&1
  echo "$v rc=$? pass=$(grep -c PASS $O/x/checks-$v.log) fail=$(grep -c FAIL $O/x/checks-$v.log) $(el)"
done
timeout 90 $B/bin/tilec-gpu-tests --kernels $S/D --only matmul_tma,matmul_tma_bias_gelu,attention_bwd_d128 > $O/x/checks-D.log 2>&1
echo "D rc=$? pass=$(grep -c PASS $O/x/checks-D.log) fail=$(grep -c FAIL $O/x/checks-D.log) $(el)"
grep -h FAIL $O/x/checks-*.log | head -8 | cut -c1-150
for v in B C; do for t in memcheck racecheck synccheck; do
  timeout 40 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/$v --small \
    --only attention_tma_d128_n128_overlap_pingpong > $O/x/san-$v-$t.log 2>&1
  echo "$v $t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-$v-$t.log | head -1) pass=$(grep -c PASS $O/x/san-$v-$t.log)"
done; done
echo "$(el)"
fmt() { for f in "$@"; do echo "-- $(basename $f)"; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][:50]:50} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF {r['note'][:44]}\")" $f; done; }
echo "== (2) timing $(el)"
for r in 1 2; do
  for v in A B C D; do
    dir=$S/$v; [ $v = A ] && dir=$A
    timeout 40 $B/bin/tilec-bench --kernels $dir attention_tma > $O/x/attn-$v-$r.json 2>> $O/x/bench.err
  done
done
echo "fwd done $(el)"
timeout 60 python3 $S/peers.py attention attention_bwd matmul > $O/x/peers.txt 2>&1
echo "peers done $(el)"
for v in A D C; do
  dir=$S/$v; [ $v = A ] && dir=$A
  timeout 50 $B/bin/tilec-bench --kernels $dir attention_bwd > $O/x/bwd-$v.json 2>> $O/x/bench.err
done
echo "bwd done $(el)"
for r in 1 2; do for v in A D; do
  dir=$S/$v; [ $v = A ] && dir=$A
  timeout 40 $B/bin/tilec-bench --kernels $dir matmul_tma matmul_tma_bias_gelu > $O/x/mm-$v-$r.json 2>> $O/x/bench.err
done; done
fmt $O/x/attn-*.json $O/x/bwd-*.json $O/x/mm-*.json
grep -E "ms|TFLOP" $O/x/peers.txt | head -20
tail -3 $O/x/bench.err
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
