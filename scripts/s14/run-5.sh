#!/usr/bin/env bash
# Session 14, fifth GPU call (carry [".dev/s14", ".gpu-deps"]): the
# dQ-by-atomics backward with dS^T staged through one slot between two
# consumer barriers a step (N, run-4.sh's) against two slots used in turn,
# one barrier a step (D: Q's folder with attention_tma_bwd_dkdvq_d128 from
# `tilec-examples --arch sm_90a` of this commit), two interleaved rounds,
# D's checks against the float64 reference and under the sanitizers.
S=.dev/s14; . scripts/s14/call.sh
for r in 1 2; do for v in N D; do
  timeout 90 $B/bin/tilec-bench --kernels $S/$v attention_bwd > $O/x/bwd-$v-$r.json 2>> $O/x/bench.err
  fmt $O/x/bwd-$v-$r.json | grep -E "^--|TMA"; echo "$(el)"
done; done
timeout 100 $B/bin/tilec-gpu-tests --kernels $S/D --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "D checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-atomic pass=$(grep PASS $O/x/checks.log | grep -c dq-atomic) $(el)"
grep -h FAIL $O/x/checks.log | head -3 | cut -c1-160
for t in racecheck memcheck synccheck; do
  timeout 60 compute-sanitizer --tool $t $B/bin/tilec-gpu-tests --kernels $S/D --small \
    --only attention_bwd_d128 > $O/x/san-$t.log 2>&1
  echo "$t rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/x/san-$t.log | head -1) pass=$(grep -c PASS $O/x/san-$t.log) $(el)"
done
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
