#!/usr/bin/env bash
# Call 2 of the final H200 check: attention forward and backward against
# float64 references (memcheck included) and beside SDPA.
set -u
D=.dev/s5; O=${OUT:-/tmp/out}; mkdir -p $O
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
PEERS=$D/peers.py LOGS=$O/attn timeout 560 bash scripts/gpu-attention-bwd.sh $D/attn > $O/attn.log 2>&1
echo "rc=$? $(el)"
grep -E "FAIL|ERROR SUMMARY|^\| attention|^== " $O/attn.log | head -40
echo "pass=$(grep -c PASS $O/attn.log) fail=$(grep -c FAIL $O/attn.log)"
