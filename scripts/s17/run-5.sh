#!/usr/bin/env bash
# Session 17, the last GPU call (eight starts refused; ~8 min of device
# time left): after scripts/s17/prep-1.sh, carry [".dev/s17", ".gpu-deps"].
# (1) the per-warpgroup reduce-add kernel against the interpreter and
# under racecheck; (2) the backward's checks and bench (the per-warpgroup
# dQ-by-TMA-reduce kernel); (3) the PyTorch extension's checks (the
# attention backward through autograd among them) and the blocks, printed
# as they come (the call may end first).
S=.dev/s17; . scripts/s14/call.sh
R=$S/R
echo "== (1) addto_wg $(el)"
wg() { $1 $B/bin/tilec-gpu-run $R/k.ptx --kernel addto_wg --grid 1,1,2 $2 \
  --arg in=$R/a.npy,shape=100x88 --arg in=$R/b.npy,shape=88x64 \
  --arg in=$R/yw0.npy,shape=50x128,expect=$R/wantw.npy,rtol=1e-4,atol=1e-4 --arg 88; }
wg "" ""; echo "addto_wg rc=$?"
wg "compute-sanitizer --tool racecheck" --no-guard 2>&1 | grep -E "RACECHECK SUMMARY|differ" | head -2
echo "== (2) backward $(el)"
timeout 70 $B/bin/tilec-gpu-tests --kernels $S/K --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-reduce pass=$(grep PASS $O/x/checks.log | grep -c dq-reduce) $(el)"
grep -h FAIL $O/x/checks.log | head -6 | cut -c1-160
timeout 60 $B/bin/tilec-bench --kernels $S/K attention_bwd > $O/x/bwd-1.json 2>> $O/x/bench.err
fmt $O/x/bwd-1.json
echo "== (3) PyTorch $(el)"
MAX_JOBS=16 timeout 230 bash scripts/gpu-torch.sh $S/torch 2>&1 | tee $O/x/torch.log | \
  grep --line-buffered -vE '^PASS (matmul|add|cos|coscos|bias|softmax|layernorm|rmsnorm|refuses|allocating|descriptor|attention B)'
echo "torch pass=$(grep -c '^PASS' $O/x/torch.log) fail=$(grep -c 'FAIL' $O/x/torch.log) $(el)"
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
