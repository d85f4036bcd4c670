#!/usr/bin/env bash
# Session 18's GPU call, after scripts/s18/prep-1.sh (and, for PARTS17,
# scripts/s17/prep-1.sh) here; carry [".dev/s18", ".dev/s17", ".gpu-deps"].
#
#   PARTS="cluster" PARTS17="wg bwd" bash scripts/s18/run.sh
#
# PARTS17: scripts/s17/run.sh's parts (its results under $OUT/s17, its
# sanitizers with SAN17=1), run first; PARTS, in order:
#   cluster  examples/matmul_tma_cluster.tile (programs in clusters of two,
#            B's blocks multicast) and matmul_tma_persistent.tile against
#            the host (tilec-gpu-tests), with SAN memcheck, racecheck and
#            synccheck at --small; both timed on 8192^3 and 4000x4096x4096
#            twice, around cuBLAS and Triton (bench/peers_gemm.py)
#   tune     scripts/gpu-tune.sh on .dev/s18/tune (tilec-tune compile
#            --builder matmul --arch sm_90a, peers.py beside it): the
#            15-shape sweep beside cuBLAS and Triton
set -u
if [ -n "${PARTS17:-}" ]; then
  SAN=${SAN17:-} OUT=${OUT:-/tmp/out}/s17 PARTS="$PARTS17" bash scripts/s17/run.sh
fi
S=.dev/s18; . scripts/s14/call.sh
C=$S/C
cluster() {
  echo "== cluster GEMM $(el)"
  timeout 120 $B/bin/tilec-gpu-tests --kernels $C \
    --only matmul_tma_cluster,matmul_tma_persistent,matmul_tma_cluster_bf16out \
    --matmul-shape 300x520x4100 \
    > $O/x/cluster.log 2>&1
  local rc=$?
  echo "checks rc=$rc pass=$(grep -c PASS $O/x/cluster.log) fail=$(grep -c FAIL $O/x/cluster.log) $(el)"
  grep -hE "FAIL|rror" $O/x/cluster.log | head -6 | cut -c1-200
  # A hang (a deadlock across the cluster) ends the part.
  [ $rc = 124 ] && { tail -3 $O/x/cluster.log; return; }
  if [ -n "${SAN:-}" ]; then
    for t in ${SANS:-memcheck racecheck synccheck}; do
      san $t $O/x/cluster-$t.log $B/bin/tilec-gpu-tests --kernels $C --small \
        --only matmul_tma_cluster
    done
  fi
  local work="matmul_tma_cluster matmul_tma_persistent matmul_tma_cluster_ragged matmul_tma_persistent_ragged"
  timeout 90 $B/bin/tilec-bench --kernels $C $work > $O/x/c1.json 2>> $O/x/bench.err
  fmt $O/x/c1.json
  OUT=$O/x PEERS=$S/peers.py timeout 120 python3 bench/peers_gemm.py matmul_cube matmul_ragged 2>&1 |
    grep -vE "^\s*$" | tail -4
  python3 -c "
import json,sys
for r in json.load(open('$O/x/peers.json')): print(f\"{r['work'][-26:]:26} {r['system'][:22]:22} {r['ms']:8.4f} ms {r.get('TFLOPs') or 0:6.1f} TF\")"
  timeout 90 $B/bin/tilec-bench --kernels $C $work > $O/x/c2.json 2>> $O/x/bench.err
  fmt $O/x/c2.json
  echo "-- BLOCK_N 192"
  timeout 60 $B/bin/tilec-bench --kernels $S/C192 matmul_tma_cluster \
    matmul_tma_cluster_ragged > $O/x/c192.json 2>> $O/x/bench.err
  fmt $O/x/c192.json
  tail -3 $O/x/bench.err
}
tune() { # the GEMM tuning sweep (the CLUSTER family among the candidates)
  echo "== GEMM tuning $(el)"
  PEERS=$S/tune/peers.py LOGS=$O/x/tune timeout 300 bash scripts/gpu-tune.sh $S/tune 2>&1 | tail -40
}
for part in ${PARTS:-cluster}; do $part; done
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
