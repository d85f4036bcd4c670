#!/usr/bin/env bash
# One GPU call: build the runtime from the memperf branch (src/), check the
# new kernels, time them beside the peers, time the baseline and ablations,
# then the sanitizers; everything that matters lands in $OUT.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
cd "$G/src"
export PYTHONUNBUFFERED=1 BUILD=$G/src/build-gpu TILEC_CACHE_DIR=$G/src/build-gpu/cubin-cache
L=$BUILD/logs; mkdir -p $L
S=$OUT/summary.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a $S
# 1. correctness (no sanitizers yet: they go last)
SANITIZER_TOOLS="" LOGS=$L scripts/gpu-test.sh $G/new 2>&1 | tail -15 | tee -a $S
# 2. new kernels beside the peers
PEERS=$G/peers_nocomp.py PEER_WORK="copy add coscos bias_gelu softmax layernorm" LOGS=$L \
  scripts/gpu-bench.sh $G/new add coscos bias_gelu softmax layernorm rmsnorm 2>&1 | grep -v '^{' | tee -a $S
B=$BUILD/bin/tilec-bench
# 3. baseline (main's compiler), ablations, a repeat of the new kernels
$B --kernels $G/base --system base --out $L/base.json add coscos bias_gelu softmax layernorm rmsnorm >>$L/variants.log 2>&1
$B --kernels $G/sinkon --system "tilec machine-sink on" --out $L/sinkon.json coscos >>$L/variants.log 2>&1
$B --kernels $G/allread --system "tilec all-read reduce" --out $L/allread.json softmax layernorm rmsnorm >>$L/variants.log 2>&1
$B --kernels $G/new --system "tilec repeat" --out $L/repeat.json coscos bias_gelu softmax layernorm rmsnorm >>$L/variants.log 2>&1
python3 - $L <<'PY' | tee -a $S
import json, sys, os
L = sys.argv[1]
rows = []
for f in ["tilec.json", "base.json", "sinkon.json", "allread.json", "repeat.json", "peers.json"]:
    p = os.path.join(L, f)
    if os.path.exists(p):
        rows += json.load(open(p))
json.dump(rows, open(os.path.join(os.environ["OUT"], "rows.json"), "w"), indent=1)
for r in rows:
    print(f'{r["work"]:28s} {r["system"]:28s} {r["ms"]:9.4f} ms {r.get("GBps") or "":>8} GB/s')
PY
cp $L/table.md $OUT/ 2>/dev/null
# 4. SASS of what the driver compiled
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for f in $TILEC_CACHE_DIR/*; do echo "== $f"; $CO -res-usage "$f" 2>&1 | grep -E "Function|REG"; $CO -sass "$f"; done > $L/sass.txt 2>&1
grep -A1 "Function" $L/sass.txt | grep -o "Function [a-z_]*\|REG:[0-9]*" | paste - - | sort | uniq -c | tee -a $S
tar czf $OUT/logs.tgz -C $BUILD logs
# 5. sanitizers on the new kernels (small, exact)
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in memcheck racecheck synccheck initcheck; do
  timeout 60 $san --tool $t --error-exitcode 3 $BUILD/bin/tilec-gpu-tests --kernels $G/new --small --exact >$L/san-$t.log 2>&1
  say "sanitizer $t: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $L/san-$t.log | tail -2 | tr '\n' ' ')"
done
tar czf $OUT/logs.tgz -C $BUILD logs
