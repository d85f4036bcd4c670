#!/usr/bin/env bash
# Session 20's GPU call, after scripts/s20/prep-1.sh (and the s19, s18 and
# s17 prep scripts for PARTS19 / PARTS18 / PARTS17) here; carry
# [".dev/s20", ".dev/s19", ".dev/s18", ".dev/s17", ".gpu-deps"].
#
#   SAN=1 PARTS="tf32 tf32diff" PARTS19="fp8 fp8diff" PARTS18="cluster" PARTS17="wg bwd" bash scripts/s20/run.sh
#
# PARTS19 (with PARTS18 and PARTS17 passed on): scripts/s19/run.sh's parts,
# run first (results under $OUT/s19...; SAN19=1 for their sanitizers).
# PARTS:
#   tf32  the builder's matmul_tf32_nt (wgmma .tf32) and matmul_tf32
#         (mma.sync) against the host (tilec-gpu-tests, K = 4100), with SAN
#         memcheck, racecheck and synccheck at --small; both timed on
#         8192^3 twice around cuBLAS at allow_tf32 (bench/peers_gemm.py
#         matmul_tf32)
#   tf32diff the tf32 differential cases (.dev/s20/diff) through
#         scripts/gpu-diff.sh, with memcheck
set -u
if [ -n "${PARTS19:-}${PARTS18:-}${PARTS17:-}" ]; then
  SAN=${SAN19:-} OUT=${OUT:-/tmp/out}/s19 PARTS="${PARTS19:-}" \
    PARTS18="${PARTS18:-}" PARTS17="${PARTS17:-}" bash scripts/s19/run.sh
fi
S=.dev/s20; . scripts/s14/call.sh
tf32() {
  echo "== tf32 GEMM $(el)"
  timeout 180 $B/bin/tilec-gpu-tests --kernels $S/TF \
    --only matmul_tf32_nt,matmul_tf32 --matmul-shape 300x520x4100 \
    > $O/x/tf32.log 2>&1
  echo "checks rc=$? pass=$(grep -c PASS $O/x/tf32.log) fail=$(grep -c FAIL $O/x/tf32.log) $(el)"
  grep -hE "FAIL|rror" $O/x/tf32.log | head -4 | cut -c1-200
  if [ -n "${SAN:-}" ]; then
    for t in ${SANS:-memcheck racecheck synccheck}; do
      san $t $O/x/tf32-$t.log $B/bin/tilec-gpu-tests --kernels $S/TF --small \
        --only matmul_tf32_nt
    done
  fi
  timeout 90 $B/bin/tilec-bench --kernels $S/TF matmul_tf32_nt matmul_tf32 \
    > $O/x/t1.json 2>> $O/x/bench.err
  fmt $O/x/t1.json
  OUT=$O/x PEERS=$S/peers.py timeout 120 python3 bench/peers_gemm.py \
    matmul_tf32 2>&1 | grep -E '^\{' | cut -c1-160
  timeout 90 $B/bin/tilec-bench --kernels $S/TF matmul_tf32_nt \
    > $O/x/t2.json 2>> $O/x/bench.err
  fmt $O/x/t2.json
  tail -3 $O/x/bench.err
}
tf32diff() {
  echo "== tf32 differential cases $(el)"
  GPU_RUN=$B/bin/tilec-gpu-run LOGS=$O/x/diff timeout 120 \
    bash scripts/gpu-diff.sh $S/diff 2>&1 | tail -6
}
for part in ${PARTS:-tf32 tf32diff}; do $part; done
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
