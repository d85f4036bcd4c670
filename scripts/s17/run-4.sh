#!/usr/bin/env bash
# Session 17, one GPU call for all (after scripts/s17/prep-1.sh and K2;
# carry [".dev/s17", ".gpu-deps"]; six starts were refused and ~16 min of
# device time was left): (1) the per-warpgroup reduce-add kernel
# (addto_wg) against the interpreter, under racecheck and synccheck; (2)
# the backward's checks (every variant), memcheck and racecheck on K2 (the
# pointer kernels and the per-warpgroup dQ-by-TMA-reduce one); (3) the
# backward bench beside SDPA's; (4) the PyTorch extension's checks (the
# attention backward through autograd among them) and the blocks.
S=.dev/s17; . scripts/s14/call.sh
R=$S/R
echo "== (1) addto_wg $(el)"
wg() { $1 $B/bin/tilec-gpu-run $R/k.ptx --kernel addto_wg --grid 1,1,2 $2 \
  --arg in=$R/a.npy,shape=100x88 --arg in=$R/b.npy,shape=88x64 \
  --arg in=$R/yw0.npy,shape=50x128,expect=$R/wantw.npy,rtol=1e-4,atol=1e-4 --arg 88; }
wg "" ""; echo "addto_wg rc=$?"
for t in racecheck synccheck; do
  wg "compute-sanitizer --tool $t" --no-guard 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|differ" | head -2
done
echo "== (2) checks $(el)"
timeout 90 $B/bin/tilec-gpu-tests --kernels $S/K --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-reduce pass=$(grep PASS $O/x/checks.log | grep -c dq-reduce) $(el)"
grep -h FAIL $O/x/checks.log | head -6 | cut -c1-160
for t in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/K2 --small \
    --only attention_bwd_d128 > $O/x/san-$t.log 2>&1
  echo "$t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-$t.log | head -1) pass=$(grep -c PASS $O/x/san-$t.log) dq-reduce=$(grep PASS $O/x/san-$t.log | grep -c dq-reduce) $(el)"
done
echo "== (3) backward bench $(el)"
timeout 70 $B/bin/tilec-bench --kernels $S/K attention_bwd > $O/x/bwd-1.json 2>> $O/x/bench.err
fmt $O/x/bwd-1.json
timeout 45 python3 $S/peers.py attention_bwd > $O/x/peers-bwd.txt 2>&1; grep -E 'ms' $O/x/peers-bwd.txt | head -4
echo "== (4) PyTorch $(el)"
MAX_JOBS=16 timeout 230 bash scripts/gpu-torch.sh $S/torch > $O/x/torch.log 2>&1
echo "torch rc=$? pass=$(grep -c '^PASS' $O/x/torch.log) fail=$(grep -c 'FAIL' $O/x/torch.log)"
grep -v '^PASS' $O/x/torch.log | tail -40
grep -E '^PASS (attention backward|attention under)' $O/x/torch.log | head -4
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
