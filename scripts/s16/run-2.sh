#!/usr/bin/env bash
# Session 16, GPU call 2 (after scripts/s16/prep-2.sh here; carry
# [".dev/s16b", ".gpu-deps"]): (1) the descriptor reduce-add kernels of
# test/Interpreter/tensordesc-reduce.tile against the interpreter's
# results (f32 and i32); (2) the backward's checks against the float64
# reference, the dQ-by-TMA-reduce kernel among them, and that kernel under
# memcheck, racecheck, synccheck; SASS counts; (3) the backward bench
# beside SDPA's (peers.py attention_bwd), twice.
S=.dev/s16b; . scripts/s14/call.sh
R=$S/R
echo "== (1) reduce-add kernels $(el)"
$B/bin/tilec-gpu-run $R/k.ptx --kernel addto --grid 3,2,2 --arg in=$R/x.npy,shape=20x12 \
  --arg in=$R/y0.npy,shape=20x12,expect=$R/want.npy,rtol=1e-6; echo "addto f32 rc=$?"
$B/bin/tilec-gpu-run $R/k.ptx --kernel addto_i32 --grid 3,2,2 --arg in=$R/xi.npy,shape=20x12 \
  --arg in=$R/yi.npy,shape=20x12,expect=$R/wanti.npy,atol=0,rtol=0; echo "addto i32 rc=$?"
compute-sanitizer --tool memcheck $B/bin/tilec-gpu-run $R/k.ptx --kernel addto --grid 3,2,2 \
  --no-guard --arg in=$R/x.npy,shape=20x12 --arg in=$R/y0.npy,shape=20x12,expect=$R/want.npy,rtol=1e-6 \
  2>&1 | grep -E "ERROR SUMMARY|differ|FAIL" | head -3
echo "== (2) checks $(el)"
timeout 200 $B/bin/tilec-gpu-tests --kernels $S/K --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-reduce pass=$(grep PASS $O/x/checks.log | grep -c dq-reduce) $(el)"
grep -h FAIL $O/x/checks.log | head -6 | cut -c1-160
grep -h "dq-reduce" $O/x/checks.log | grep "S=1000" | head -6 | cut -c1-120
for t in ${SANITIZERS:-memcheck racecheck synccheck}; do
  timeout 150 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/K --small \
    --only attention_bwd_d128 > $O/x/san-$t.log 2>&1
  echo "$t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-$t.log | head -1) pass=$(grep -c PASS $O/x/san-$t.log) $(el)"
done
cuobjdump -sass $S/K/attention_tma_bwd_dkdvqr_d128.cubin > $O/x/dkdvqr.sass 2>&1
echo "SASS dkdvqr: HGMMA $(grep -c HGMMA $O/x/dkdvqr.sass) UTMAREDG $(grep -c UTMAREDG $O/x/dkdvqr.sass) REDG $(grep -c 'REDG' $O/x/dkdvqr.sass) UTMALDG $(grep -c UTMALDG $O/x/dkdvqr.sass) LDL $(grep -c LDL $O/x/dkdvqr.sass) STL $(grep -c STL $O/x/dkdvqr.sass)"
grep -E "UTMAREDG|UTMASTG" $O/x/dkdvqr.sass | head -2
echo "== (3) backward bench $(el)"
for r in 1 2; do
  timeout 120 $B/bin/tilec-bench --kernels $S/K attention_bwd > $O/x/bwd-$r.json 2>> $O/x/bench.err
  fmt $O/x/bwd-$r.json; echo "$(el)"
done
timeout 90 python3 $S/peers.py attention_bwd > $O/x/peers-bwd.txt 2>&1; grep -E 'ms' $O/x/peers-bwd.txt | head -4
tail -3 $O/x/bench.err
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
