#!/usr/bin/env bash
# Session 11, GPU call 4 (after scripts/s11/prep-4.sh here; carry
# [".dev/s11d", ".dev/s11c", ".dev/s10/k90a", ".gpu-deps"]): (1) every
# kernel of .dev/s11d/k against its host reference, then scripts/gpu-test.sh
# on it (runtime tests, AOT example, memcheck, racecheck, synccheck);
# (2) timing beside the baselines and the peers: the attention forwards
# (this compiler vs call 3's), SDPA; the backward and SDPA's; the bf16
# GEMM (vs the tenth session's), cuBLAS and Triton; softmax and layernorm
# (vs the tenth session's, for the tree reductions).
set -u
D=.dev/s11d; O=${OUT:-/tmp/out}; mkdir -p $O/x
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
echo "== (1) checks $(el)"
timeout 150 $B/bin/tilec-gpu-tests --kernels $D/k > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) $(el)"
grep FAIL $O/x/checks.log | head -8 | cut -c1-150
fmt() { for f in "$@"; do echo "-- $(basename $f)"; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][:50]:50} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF {r.get('GBps') or 0:7.1f} GB/s {r['system'][:14]} {r['note'][:44]}\")" $f; done; }
echo "== (2) timing $(el)"
for r in 1 2; do
  timeout 60 $B/bin/tilec-bench --kernels $D/k attention_tma > $O/x/attn-new-$r.json 2>> $O/x/bench.err
  timeout 60 $B/bin/tilec-bench --kernels .dev/s11c/attn attention_tma > $O/x/attn-old-$r.json 2>> $O/x/bench.err
done
timeout 60 python3 $D/peers.py attention attention_bwd matmul > $O/x/peers.txt 2>&1
timeout 90 $B/bin/tilec-bench --kernels $D/k attention_bwd > $O/x/bwd-new.json 2>> $O/x/bench.err
for r in 1 2; do
  for s in new old; do
    dir=$D/k; [ $s = old ] && dir=.dev/s10/k90a
    timeout 40 $B/bin/tilec-bench --kernels $dir matmul_tma softmax layernorm > $O/x/mm-$s-$r.json 2>> $O/x/bench.err
  done
done
fmt $O/x/attn-*.json $O/x/bwd-new.json $O/x/mm-*.json $O/x/peers.txt
echo "== (3) gpu-test.sh with sanitizers $(el)"
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/x/test timeout $(( $(left) - 5 )) \
  scripts/gpu-test.sh $D/k > $O/x/gpu-test.log 2>&1
echo "gpu-test rc=$? $(el)"; tail -3 $O/x/gpu-test.log
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $O/x/test/*.log | sort | uniq -c | head
grep -h "FAIL" $O/x/test/*.log | head -5 | cut -c1-150
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
