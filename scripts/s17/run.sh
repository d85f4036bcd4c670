#!/usr/bin/env bash
# Session 17's GPU call (none started: every start was refused), after
# scripts/s17/prep-1.sh here (and, for `tune`, `tilec-tune compile
# --builder matmul --arch sm_90a -o .dev/s17/tune` with peers.py beside
# the candidates); carry [".dev/s17", ".gpu-deps"].
#
#   PARTS="wg bwd torch" bash scripts/s17/run.sh     (the default PARTS)
#
# Parts, in the order given, each printed as it comes:
#   wg     test/Interpreter/tensordesc-reduce.tile's per-warpgroup
#          reduce-add kernel (addto_wg) against the interpreter's result;
#          with SAN also under racecheck and synccheck
#   bwd    the attention backward's checks (every variant; the
#          per-warpgroup dQ-by-TMA-reduce kernel among them); with SAN
#          memcheck, racecheck, synccheck on K2 (the pointer kernels and
#          that one); the bench beside SDPA's (peers.py attention_bwd)
#   gemm   the builder's persistent GEMM against the host, and memcheck
#   torch  scripts/gpu-torch.sh (the attention backward through autograd,
#          the blocks with the persistent QKV GEMM and ping-pong attention)
#   tune   the 15-shape GEMM tuning sweep beside cuBLAS and Triton
S=.dev/s17; . scripts/s14/call.sh
R=$S/R
wg() {
  echo "== addto_wg $(el)"
  local args=(--kernel addto_wg --grid 1,1,2 --arg in=$R/a.npy,shape=100x88
    --arg in=$R/b.npy,shape=88x64
    --arg in=$R/yw0.npy,shape=50x128,expect=$R/wantw.npy,rtol=1e-4,atol=1e-4 --arg 88)
  $B/bin/tilec-gpu-run $R/k.ptx "${args[@]}" 2>&1 | tail -1
  [ -n "${SAN:-}" ] || return 0
  for t in racecheck synccheck; do
    san $t $O/x/wg-$t.log $B/bin/tilec-gpu-run $R/k.ptx --no-guard "${args[@]}"
  done
}
bwd() {
  echo "== backward $(el)"
  timeout 90 $B/bin/tilec-gpu-tests --kernels $S/K --only attention_bwd_d128 > $O/x/checks.log 2>&1
  echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-reduce pass=$(grep PASS $O/x/checks.log | grep -c dq-reduce) $(el)"
  grep -h FAIL $O/x/checks.log | head -6 | cut -c1-160
  if [ -n "${SAN:-}" ]; then
    for t in memcheck racecheck synccheck; do
      san $t $O/x/bwd-$t.log $B/bin/tilec-gpu-tests --kernels $S/K2 --small --only attention_bwd_d128
    done
  fi
  timeout 60 $B/bin/tilec-bench --kernels $S/K attention_bwd > $O/x/bwd.json 2>> $O/x/bench.err
  fmt $O/x/bwd.json
  timeout 60 python3 $S/peers.py attention_bwd 2>&1 | grep -E 'ms' | head -4
}
gemm() {
  echo "== persistent GEMM $(el)"
  timeout 60 $B/bin/tilec-gpu-tests --kernels $S/P --only matmul_tma_persistent_bf16out > $O/x/gemm.log 2>&1
  echo "gemm rc=$? pass=$(grep -c PASS $O/x/gemm.log) fail=$(grep -c FAIL $O/x/gemm.log)"
  san memcheck $O/x/gemm-memcheck.log $B/bin/tilec-gpu-tests --kernels $S/P --small \
    --only matmul_tma_persistent_bf16out
}
torch() {
  echo "== PyTorch $(el)"
  MAX_JOBS=16 timeout 300 bash scripts/gpu-torch.sh $S/torch 2>&1 | tee $O/x/torch.log | \
    grep --line-buffered -vE '^PASS (matmul|add|cos|coscos|bias|softmax|layernorm|rmsnorm|refuses|allocating|descriptor|attention B|CPU|meta)'
  echo "torch pass=$(grep -c '^PASS' $O/x/torch.log) fail=$(grep -c 'FAIL' $O/x/torch.log) $(el)"
}
tune() {
  echo "== GEMM tuning $(el)"
  PEERS=$S/tune/peers.py LOGS=$O/x/tune timeout 240 bash scripts/gpu-tune.sh $S/tune 2>&1 | tail -40
}
for part in ${PARTS:-wg bwd torch}; do $part; done
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
