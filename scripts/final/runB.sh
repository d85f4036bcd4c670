#!/usr/bin/env bash
# Call B on the H200: non-power-of-two differential cases, PyTorch
# extensions, the tuning sweep.
set -u
D=.dev/s4; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
echo "== nonpow2 $(el)"
LOGS=$O/np2 timeout 150 scripts/gpu-nonpow2.sh $D/cases $D/np2 > $O/np2.log 2>&1; echo "rc=$? $(el)"
grep -E "PASS|FAIL|ERROR SUMMARY|softmax|layernorm|matmul" $O/np2.log | grep -v "^PASS" | head -30; echo "pass lines: $(grep -c PASS $O/np2.log)"
echo "== torch $(el)"
MAX_JOBS=16 timeout 240 scripts/gpu-torch.sh $D/torch > $O/torch.log 2>&1; echo "rc=$? $(el)"
grep -E "PASS|FAIL|us|ms|error" $O/torch.log | head -60
echo "== tune $(el)"
if [ -d $D/tune ]; then PEERS=$D/peers.py LOGS=$O/tune timeout 220 scripts/gpu-tune.sh $D/tune > $O/tune.log 2>&1; echo "rc=$? $(el)"; tail -40 $O/tune.log; fi
echo "total $(el)"
