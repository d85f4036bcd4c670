#!/usr/bin/env bash
set -u
D=.dev/s4; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
echo "== torch $(el)"
MAX_JOBS=16 timeout 300 scripts/gpu-torch.sh $D/torch > $O/torch.log 2>&1; echo "rc=$? $(el)"
grep -E "PASS|FAIL|us |ms |error" $O/torch.log | head -70
echo "== matmul again (TMA vs cuBLAS, two repeats) $(el)"
for r in 1 2; do
PEER_WORK="copy matmul" PEERS=$D/peers.py LOGS=$O/bench$r timeout 200 scripts/gpu-bench.sh $D/k90a matmul_tma matmul matmul_tma_ragged > $O/bench$r.log 2>&1; echo "rc=$? $(el)"
grep -E "^\| matmul" $O/bench$r.log
done
echo "total $(el)"
