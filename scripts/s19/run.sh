#!/usr/bin/env bash
# Session 19's GPU call, after scripts/s19/prep-1.sh (and, for PARTS18 /
# PARTS17, scripts/s18/prep-1.sh / scripts/s17/prep-1.sh) here; carry
# [".dev/s19", ".dev/s18", ".dev/s17", ".gpu-deps"].
#
#   SAN=1 PARTS="fp8 fp8diff" PARTS18="cluster" PARTS17="wg bwd" bash scripts/s19/run.sh
#
# PARTS17 and PARTS18: scripts/s17/run.sh's and scripts/s18/run.sh's parts
# (their results under $OUT/s17 and $OUT/s18; their sanitizers with SAN17=1
# and SAN18=1), run first; PARTS:
#   fp8  examples/matmul_fp8.tile (e4m3, BLOCK_N 256 and 128; e4m3 x e5m2)
#        against the host (tilec-gpu-tests), with SAN memcheck, racecheck
#        and synccheck at --small; timed on 8192^3 twice, around
#        torch._scaled_mm (peers.py matmul_fp8) and cuBLAS bf16 (peers.py
#        matmul)
#   fp8diff the fp8 conversions' differential cases (.dev/s19/diff) through
#        scripts/gpu-diff.sh, with memcheck
set -u
if [ -n "${PARTS17:-}" ]; then
  SAN=${SAN17:-} OUT=${OUT:-/tmp/out}/s17 PARTS="$PARTS17" bash scripts/s17/run.sh
fi
if [ -n "${PARTS18:-}" ]; then
  SAN=${SAN18:-} OUT=${OUT:-/tmp/out}/s18 PARTS="$PARTS18" bash scripts/s18/run.sh
fi
S=.dev/s19; . scripts/s14/call.sh
fp8() {
  echo "== fp8 GEMM $(el)"
  local d
  for d in F8 F8N128 F8MIX; do
    timeout 120 $B/bin/tilec-gpu-tests --kernels $S/$d \
      --only matmul_fp8,matmul_fp8_bf16out --matmul-shape 300x520x4100 \
      > $O/x/fp8-$d.log 2>&1
    echo "$d checks rc=$? pass=$(grep -c PASS $O/x/fp8-$d.log) fail=$(grep -c FAIL $O/x/fp8-$d.log) $(el)"
    grep -hE "FAIL|rror" $O/x/fp8-$d.log | head -4 | cut -c1-200
  done
  if [ -n "${SAN:-}" ]; then
    for t in ${SANS:-memcheck racecheck synccheck}; do
      san $t $O/x/fp8-$t.log $B/bin/tilec-gpu-tests --kernels $S/F8 --small \
        --only matmul_fp8,matmul_fp8_bf16out
    done
  fi
  timeout 60 $B/bin/tilec-bench --kernels $S/F8 matmul_fp8 > $O/x/f1.json 2>> $O/x/bench.err
  fmt $O/x/f1.json
  OUT=$O/x timeout 120 python3 $S/peers.py matmul_fp8 matmul 2>&1 |
    grep -E '^\{' | cut -c1-160
  timeout 60 $B/bin/tilec-bench --kernels $S/F8 matmul_fp8 > $O/x/f2.json 2>> $O/x/bench.err
  fmt $O/x/f2.json
  timeout 60 $B/bin/tilec-bench --kernels $S/F8N128 matmul_fp8 > $O/x/f128.json 2>> $O/x/bench.err
  fmt $O/x/f128.json
  tail -3 $O/x/bench.err
}
fp8diff() {
  echo "== fp8 conversions $(el)"
  GPU_RUN=$B/bin/tilec-gpu-run LOGS=$O/x/diff timeout 120 \
    bash scripts/gpu-diff.sh $S/diff 2>&1 | tail -6
}
for part in ${PARTS:-fp8 fp8diff}; do $part; done
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
