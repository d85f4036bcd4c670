#!/usr/bin/env bash
# Session 14, fourth GPU call (after prep-1.sh, prep-2.sh and the N probe
# here; carry [".dev/s14", ".gpu-deps"]): the dQ-by-atomics backward with
# dQ^T converted to a coalesced layout for 4-wide reds (Q, this session's
# rule then) against it kept in the wgmma accumulator's layout with one red
# per element (N: Q's folder with attention_tma_bwd_dkdvq_d128 compiled by
# a tilec whose tile-assign-layouts skipped the atomic's conversion, a
# temporary environment switch; that is the rule since, so N's kernel is
# what `tilec-examples --arch sm_90a attention_tma_bwd_dkdvq_d128` gives
# now), two interleaved rounds, then ncu on N's dK/dV kernel.
S=.dev/s14; . scripts/s14/call.sh
for r in 1 2; do for v in Q N; do
  timeout 90 $B/bin/tilec-bench --kernels $S/$v attention_bwd > $O/x/bwd-$v-$r.json 2>> $O/x/bench.err
  fmt $O/x/bwd-$v-$r.json | grep -E "^--|TMA"; echo "$(el)"
done; done
timeout 100 $B/bin/tilec-gpu-tests --kernels $S/N --only attention_bwd_d128 > $O/x/checks.log 2>&1
echo "N checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) dq-atomic pass=$(grep PASS $O/x/checks.log | grep -c dq-atomic) $(el)"
k=attention_tma_bwd_dkdvq_d128
timeout 150 ncu --kernel-name $k --launch-count 1 --section SpeedOfLight \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
  $B/bin/tilec-bench --kernels $S/N attention_bwd > $O/x/ncu-N.txt 2>&1
grep -E "Duration|Throughput|tensor_op|stalled" $O/x/ncu-N.txt | grep -vE " 0(\.0+)?$" | sed 's/  */ /g' | head -30
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
