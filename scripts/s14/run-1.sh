#!/usr/bin/env bash
# Session 14, GPU call (after scripts/s14/prep-1.sh here; carry
# [".dev/s14", ".gpu-deps"]). Prints each result as it comes, the most
# wanted first: (1) the backward beside SDPA's, B and C interleaved twice
# (the descriptor backward with its dQ kernel and the dQ-by-atomics one);
# (2) the backward's checks against the float64 reference (pointer,
# descriptor and dQ-by-atomics kernels; seq 1, 100, 129, 1000) and the
# dQ-by-atomics kernels under racecheck, memcheck, synccheck; SASS counts;
# (3) the PyTorch extension's checks (scripts/gpu-torch.sh: the allocating
# form's host time).
S=.dev/s14; . scripts/s14/call.sh
echo "== (1) backward $(el)"
for r in 1 2; do for v in B C; do
  timeout 90 $B/bin/tilec-bench --kernels $S/$v attention_bwd > $O/x/bwd-$v-$r.json 2>> $O/x/bench.err
  fmt $O/x/bwd-$v-$r.json; echo "$(el)"
done; done
timeout 90 python3 $S/peers.py attention_bwd > $O/x/peers-bwd.txt 2>&1; grep -E 'ms' $O/x/peers-bwd.txt | head -4
echo "== (2) checks $(el)"
timeout 150 $B/bin/tilec-gpu-tests --kernels $S/B --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-atomic pass=$(grep PASS $O/x/checks.log | grep -c dq-atomic) $(el)"
grep -h FAIL $O/x/checks.log | head -4 | cut -c1-160
grep -h "tma dq-atomic" $O/x/checks.log | grep "S=1000" | head -6 | cut -c1-120
for t in ${SANITIZERS:-racecheck memcheck synccheck}; do
  timeout 100 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/B --small \
    --only attention_bwd_d128 > $O/x/san-$t.log 2>&1
  echo "$t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-$t.log | head -1) pass=$(grep -c PASS $O/x/san-$t.log) $(el)"
done
cuobjdump -sass $S/B/attention_tma_bwd_dkdvq_d128.cubin > $O/x/dkdvq.sass 2>&1
echo "SASS dkdvq: HGMMA $(grep -c HGMMA $O/x/dkdvq.sass) REDG $(grep -c 'REDG' $O/x/dkdvq.sass) UTMALDG $(grep -c UTMALDG $O/x/dkdvq.sass) LDL $(grep -c LDL $O/x/dkdvq.sass) STL $(grep -c STL $O/x/dkdvq.sass)"
grep -E "REDG" $O/x/dkdvq.sass | head -2
echo "== (3) PyTorch $(el)"
MAX_JOBS=16 timeout 200 bash scripts/gpu-torch.sh $S/torch 2>&1 | grep -vE "^PASS" | tail -30
tail -3 $O/x/bench.err
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
