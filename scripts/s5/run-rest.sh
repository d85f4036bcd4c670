#!/usr/bin/env bash
# Call 3 of the final H200 check: the GEMM tuning sweep beside cuBLAS, the
# non-power-of-two differential cases, the PyTorch extensions.
set -u
D=.dev/s5; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
echo "== tune $(el)"
PEERS=$D/peers.py LOGS=$O/tune timeout 330 scripts/gpu-tune.sh $D/tune > $O/tune.log 2>&1; echo "rc=$? $(el)"
grep -E "PASS|FAIL|geomean|worst|^\|" $O/tune.log | tail -40
echo "== nonpow2 $(el)"
LOGS=$O/np2 timeout 120 scripts/gpu-nonpow2.sh $D/cases $D/np2 > $O/np2.log 2>&1; echo "rc=$? $(el)"
grep -E "FAIL|ERROR SUMMARY|softmax|layernorm" $O/np2.log | grep -v "^PASS" | head -20; echo "pass lines: $(grep -c PASS $O/np2.log)"
echo "== torch $(el)"
MAX_JOBS=16 timeout 130 scripts/gpu-torch.sh $D/torch > $O/torch.log 2>&1; echo "rc=$? $(el)"
grep -E "PASS|FAIL" $O/torch.log | grep -c PASS; grep -E "FAIL" $O/torch.log | head
echo "total $(el)"
