#!/usr/bin/env bash
# Session 6, H200 call 1 (after scripts/s5/prep-all.sh and
# scripts/s6/prep-ln.sh here): every example with the sanitizers, attention
# forward and backward (wgmma with A from registers) against references and
# beside SDPA, the 3072-wide layernorm at several warp counts, and the
# outside AOT program (the driver-signature fix). Carry [".dev/s5",
# ".dev/s6", ".gpu-deps"].
set -u
D=.dev/s5; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
echo "== gpu-test.sh sm_90a $(el)"
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test timeout 300 scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
echo "rc=$? $(el)"
grep -E "^== |FAIL|passed|failed|ERROR SUMMARY|RACECHECK SUMMARY|gpu-test" $O/gpu-test.log | grep -vE "^PASS|^== (sanitizer|runtime|examples|aot)" | head -30
echo "== attention $(el)"
bash scripts/s5/run-attn.sh 2>&1 | tail -16
echo "== layernorm3072 warps $(el)"
for d in .dev/s6/ln*; do
  build-gpu/bin/tilec-bench --kernels $d layernorm3072 2>/dev/null | grep -o '"ms": [0-9.]*, "GBps": [0-9.]*' | sed "s#^#$(basename $d) #"
done
echo "== outside aot $(el)"
timeout 120 scripts/gpu-outside.sh $D/aot 2>&1 | tail -8
echo "total $(el)"
