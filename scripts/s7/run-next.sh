#!/usr/bin/env bash
# On the H200 (after scripts/s5/prep-all.sh and scripts/s7/prep-next.sh
# here; carry [".dev/s5", ".dev/s7/next", ".gpu-deps"]): the checks this
# session could not run there. Every example with the three sanitizers
# (matmul_tma now 128x192 by default), the atomics' differential cases
# (float max/min), examples/attention.tile at head_dim 128, the tuning
# sweep over the 124-candidate space (the 128x192 family, PERSISTENT), and 1000
# generated programs against the interpreter.
. scripts/s7/common.sh
N=.dev/s7/next
examples_sanitized 240
B=build-gpu/bin
echo "== attention.tile, head_dim 128 $(el)"
$B/tilec-gpu-tests --kernels $N/attn128 --only attention --attention-head-dim 128 2>&1 | grep -E "FAIL|passed"
echo "== atomics cases (float max/min) $(el)"
JOBS=8 LOGS=$O/cases timeout 60 scripts/gpu-diff.sh $N/cases 2>&1 | tail -3
echo "== tune $(el)"
PEERS=$D/peers.py LOGS=$O/tune timeout 200 scripts/gpu-tune.sh $D/tune > $O/tune.log 2>&1; echo "rc=$? $(el)"
grep -E "PASS|FAIL|geomean|worst|^\|" $O/tune.log | tail -24
echo "== 1000 generated programs (seed 301) $(el)"
JOBS=16 SANITIZER_TOOLS= LOGS=$O/diff timeout 400 scripts/gpu-diff.sh $N/g301 > $O/diff.log 2>&1; echo "rc=$? $(el)"
tail -1 $O/diff.log; cat $O/diff/*.plain.result 2>/dev/null | awk '{print $1}' | sort | uniq -c
grep -h "^FAIL" $O/diff/*.plain.result 2>/dev/null | head; rm -rf $O/diff
echo "total $(el)"
