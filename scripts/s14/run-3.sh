#!/usr/bin/env bash
# Session 14, third GPU call (after scripts/s14/prep-1.sh and prep-2.sh
# here; carry [".dev/s14", ".gpu-deps"]): (1) ncu on the backward's
# dK/dV kernel with its dQ kernel beside it (attention_tma_bwd_dkdv_d128)
# and on the dQ-by-atomics one (attention_tma_bwd_dkdvq_d128, 32 queries
# a step: prep-2's Q), one launch each from tilec-bench: duration, SM and
# memory throughput, the warps' stall reasons per issued instruction;
# (2) the PyTorch checks again (the allocating add also timed as
# `ops.add.default`, for the record).
S=.dev/s14; . scripts/s14/call.sh
echo "== (1) ncu $(el)"
for k in attention_tma_bwd_dkdv_d128 attention_tma_bwd_dkdvq_d128; do
  timeout 150 ncu --kernel-name $k --launch-count 1 --section SpeedOfLight \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__warps_issue_stalled_barrier_per_warp_active.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
    $B/bin/tilec-bench --kernels $S/Q attention_bwd > $O/x/ncu-$k.txt 2>&1
  echo "-- $k rc=$? $(el)"
  grep -E "Duration|Throughput|tensor_op|stalled" $O/x/ncu-$k.txt | grep -vE " 0(\.0+)?$|  0$" |
    sort -t' ' -k3 | head -40 | sed 's/  */ /g'
done
echo "== (2) PyTorch $(el)"
MAX_JOBS=16 timeout 220 bash scripts/gpu-torch.sh $S/torch 2>&1 | grep -vE "^PASS" | tail -30
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
