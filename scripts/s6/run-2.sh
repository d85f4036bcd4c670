#!/usr/bin/env bash
# Session 6, H200 call 2 (after scripts/s5/prep-all.sh and
# scripts/s6/prep-ln.sh here): examples and runtime tests with the
# sanitizers (shared memory placement changed: buffers of sequential loops
# share addresses), attention forward and backward again, the head_dim 128
# forward with 128-key blocks (.dev/s6/attn128),
# the non-power-of-two cases with the pass's new warp counts (3072 bf16 on
# 4 warps) against the interpreter and timed, the 5000-wide softmax forced
# to 8 warps beside the pass's 10, the peers of those two rows
# (bench/peers_nonpow2.py), and the PyTorch extension. Carry [".dev/s5",
# ".dev/s6", ".gpu-deps"].
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
echo "== attention_d128 with 128-key blocks $(el)"
B=build-gpu/bin; S=/usr/local/cuda/bin/compute-sanitizer
$B/tilec-gpu-tests --kernels .dev/s6/attn128 --only attention_d128 2>&1 | tail -2
$S --tool racecheck $B/tilec-gpu-tests --kernels .dev/s6/attn128 --only attention_d128 --small --exact 2>&1 | tail -2
$B/tilec-bench --kernels .dev/s6/attn128 attention 2>/dev/null | grep -o '"work": "[^"]*", "system": "[^"]*", "ms": [0-9.]*' 
echo "== nonpow2 $(el)"
LOGS=$O/np2 timeout 150 scripts/gpu-nonpow2.sh $D/cases $D/np2 > $O/np2.log 2>&1; echo "rc=$? $(el)"
grep -E "FAIL|ERROR SUMMARY|softmax|layernorm|matmul" $O/np2.log | grep -v "^PASS" | head -20; echo "pass lines: $(grep -c PASS $O/np2.log)"
echo "== softmax5000 on 8 warps, the pass's choice (10), layernorm3072 (4) $(el)"
for d in .dev/s6/sm8 $D/k90a; do
  build-gpu/bin/tilec-bench --kernels $d softmax5000 layernorm3072 2>/dev/null | grep -o '"work": "[^"]*", "system": "[^"]*", "ms": [0-9.]*, "GBps": [0-9.]*' | sed "s#^#$d #"
done
echo "== peers of the non-power-of-two rows $(el)"
OUT=$O timeout 200 python3 bench/peers_nonpow2.py $D/peers.py 2>&1 | grep '"work"'
echo "== torch $(el)"
MAX_JOBS=16 timeout 200 scripts/gpu-torch.sh $D/torch > $O/torch.log 2>&1; echo "rc=$? $(el)"
grep -E "PASS|FAIL|host us|block end" $O/torch.log | grep -v "^PASS" | head -20; echo "PASS lines: $(grep -c PASS $O/torch.log)"
echo "total $(el)"
