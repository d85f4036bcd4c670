#!/usr/bin/env bash
# Session 7, H200 call 3 (after scripts/s5/prep-all.sh here): the examples
# with the three sanitizers (the attention forward now issues S = Q K^T and
# P V back to back, tile-async-dots), then attention forward and backward
# against float64 references with memcheck and beside SDPA. Carry
# [".dev/s5", ".gpu-deps"].
set -u
D=.dev/s5; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
echo "== gpu-test.sh sm_90a $(el)"
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test timeout 300 scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
echo "rc=$? $(el)"
grep -E "FAIL|passed|failed|gpu-test|SUMMARY" $O/gpu-test.log | grep -v "^PASS" | head -20
echo "== attention $(el)"
bash scripts/s5/run-attn.sh 2>&1 | tail -14
echo "total $(el)"
