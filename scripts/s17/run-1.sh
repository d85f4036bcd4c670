#!/usr/bin/env bash
# Session 17, GPU call 1 (after scripts/s17/prep-1.sh here; carry
# [".dev/s17", ".gpu-deps"]): (1) the reduce-add kernels of
# test/Interpreter/tensordesc-reduce.tile against the interpreter's
# results, the per-warpgroup one (addto_wg) under memcheck and racecheck
# too; (2) the backward's checks against the float64 reference, the
# per-warpgroup dQ-by-TMA-reduce kernel among them, under memcheck,
# racecheck and synccheck; SASS counts; (3) the backward bench beside
# SDPA's (peers.py attention_bwd), twice; (4) the builder's persistent
# GEMM against the host reference and under memcheck.
S=.dev/s17; . scripts/s14/call.sh
R=$S/R
echo "== (1) reduce-add kernels $(el)"
$B/bin/tilec-gpu-run $R/k.ptx --kernel addto --grid 3,2,2 --arg in=$R/x.npy,shape=20x12 \
  --arg in=$R/y0.npy,shape=20x12,expect=$R/want.npy,rtol=1e-6; echo "addto f32 rc=$?"
wg() { $1 $B/bin/tilec-gpu-run $R/k.ptx --kernel addto_wg --grid 1,1,2 $2 \
  --arg in=$R/a.npy,shape=100x88 --arg in=$R/b.npy,shape=88x64 \
  --arg in=$R/yw0.npy,shape=50x128,expect=$R/wantw.npy,rtol=1e-4,atol=1e-4 --arg 88; }
wg "" ""; echo "addto_wg rc=$?"
for t in memcheck racecheck synccheck; do
  wg "compute-sanitizer --tool $t" --no-guard 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|differ" | head -2
done
echo "== (2) checks $(el)"
timeout 200 $B/bin/tilec-gpu-tests --kernels $S/K --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-reduce pass=$(grep PASS $O/x/checks.log | grep -c dq-reduce) $(el)"
grep -h FAIL $O/x/checks.log | head -6 | cut -c1-160
for t in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/K --small \
    --only attention_bwd_d128 > $O/x/san-$t.log 2>&1
  echo "$t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-$t.log | head -1) pass=$(grep -c PASS $O/x/san-$t.log) $(el)"
done
cuobjdump -sass $S/K/attention_tma_bwd_dkdvqr_d128.cubin > $O/x/dkdvqr.sass 2>&1
echo "SASS dkdvqr: HGMMA $(grep -c HGMMA $O/x/dkdvqr.sass) UTMAREDG $(grep -c UTMAREDG $O/x/dkdvqr.sass) BAR $(grep -c 'BAR.SYNC' $O/x/dkdvqr.sass) LDL $(grep -c LDL $O/x/dkdvqr.sass) STL $(grep -c STL $O/x/dkdvqr.sass)"
echo "== (3) backward bench $(el)"
for r in 1 2; do
  timeout 120 $B/bin/tilec-bench --kernels $S/K attention_bwd > $O/x/bwd-$r.json 2>> $O/x/bench.err
  fmt $O/x/bwd-$r.json; echo "$(el)"
done
timeout 90 python3 $S/peers.py attention_bwd > $O/x/peers-bwd.txt 2>&1; grep -E 'ms' $O/x/peers-bwd.txt | head -4
tail -3 $O/x/bench.err
echo "== (4) persistent GEMM $(el)"
timeout 60 $B/bin/tilec-gpu-tests --kernels $S/P --only matmul_tma_persistent_bf16out > $O/x/gemm.log 2>&1
echo "gemm rc=$? pass=$(grep -c PASS $O/x/gemm.log) fail=$(grep -c FAIL $O/x/gemm.log)"; grep FAIL $O/x/gemm.log | head -3
timeout 60 compute-sanitizer --tool memcheck $B/bin/tilec-gpu-tests --kernels $S/P --small \
  --only matmul_tma_persistent_bf16out 2>&1 | grep -E "ERROR SUMMARY|passed"
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
