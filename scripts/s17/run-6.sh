#!/usr/bin/env bash
# Session 17, the last GPU call (ten starts refused; ~6 min of device time
# left): after scripts/s17/prep-1.sh, carry [".dev/s17", ".gpu-deps"].
# Everything printed as it comes (the call may end first): (1) the
# per-warpgroup reduce-add kernel against the interpreter; (2) the
# backward's checks and bench (the per-warpgroup dQ-by-TMA-reduce kernel);
# (3) scripts/gpu-torch.sh without the BLOCK_N=128 rebuild: the checks
# (attention backward through autograd among them), then the blocks.
S=.dev/s17; . scripts/s14/call.sh
R=$S/R
echo "== (1) addto_wg $(el)"
$B/bin/tilec-gpu-run $R/k.ptx --kernel addto_wg --grid 1,1,2 \
  --arg in=$R/a.npy,shape=100x88 --arg in=$R/b.npy,shape=88x64 \
  --arg in=$R/yw0.npy,shape=50x128,expect=$R/wantw.npy,rtol=1e-4,atol=1e-4 --arg 88 2>&1 | tail -1
echo "== (2) backward $(el)"
timeout 70 $B/bin/tilec-gpu-tests --kernels $S/K --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-reduce pass=$(grep PASS $O/x/checks.log | grep -c dq-reduce) $(el)"
grep -h FAIL $O/x/checks.log | head -4 | cut -c1-160
timeout 50 $B/bin/tilec-bench --kernels $S/K attention_bwd > $O/x/bwd-1.json 2>> $O/x/bench.err
fmt $O/x/bwd-1.json
echo "== (3) PyTorch $(el)"
rm -rf $S/torch/bn128
MAX_JOBS=16 bash scripts/gpu-torch.sh $S/torch 2>&1 | \
  grep --line-buffered -vE '^PASS (matmul|add|cos|coscos|bias|softmax|layernorm|rmsnorm|refuses|allocating|descriptor|attention B|CPU|meta)'
echo "total $(el)"
