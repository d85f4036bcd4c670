#!/usr/bin/env bash
# Session 14, here, after scripts/s14/prep-1.sh: the second call's kernels
# (carry [".dev/s14", ".gpu-deps"]).
#   B  prep-1's B again with this compiler (the dQ-by-atomics dK/dV kernel
#      now starts each program at its own query block);
#   S  a timing probe, not a kernel to run for results: B with the dK/dV
#      kernel's red.global.add.v4.f32 replaced by st.global.v4.f32 (the
#      atomics' cost: its dQ is wrong, its dK and dV are not);
#   Q  B with the dQ-by-atomics dK/dV kernel at 32 queries a step and 3
#      stages (DQ_BM / DQ_ST, a probe of examples/builder/attention.cpp):
#      at 64, ptxas serializes its wgmma for want of registers (C7512).
set -euo pipefail
S=.dev/s14; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S/B $S/C $S/S $S/Q $S/ptx && mkdir -p $S/B $S/S $S/Q $S/ptx
kernels="attention_d128 attention_bwd_pre_d128 attention_bwd_dkdv_d128
  attention_bwd_dq_d128 attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128
  attention_bwd_pre_dqacc_d128 attention_tma_bwd_dkdvq_d128
  attention_bwd_dq_convert_d128"
$B/tilec-examples --arch sm_90a -o $S/ptx $kernels > /dev/null
for k in $kernels; do
  $PTXAS -arch=sm_90a -O3 $S/ptx/$k.ptx -o $S/B/$k.cubin
  cp $S/ptx/$k.json $S/B/ && cp $S/ptx/$k.json $S/S/ && cp $S/B/$k.cubin $S/S/
done
k=attention_tma_bwd_dkdvq_d128
sed -e 's/red\.global\.relaxed\.gpu\.add\.v4\.f32/st.global.v4.f32/' $S/ptx/$k.ptx > $S/ptx/$k.st.ptx
grep -q "st.global.v4.f32" $S/ptx/$k.st.ptx && ! grep -q "red.global" $S/ptx/$k.st.ptx
$PTXAS -arch=sm_90a -O3 -v $S/ptx/$k.st.ptx -o $S/S/$k.cubin 2>&1 | grep -E "spill"
$PTXAS -arch=sm_90a -O3 -v $S/ptx/$k.ptx -o /dev/null 2>&1 | grep -E "spill"
cp $S/B/* $S/Q/
DQ_BM=32 DQ_ST=3 $B/tilec-examples --arch sm_90a -o $S/ptx $k > /dev/null
$PTXAS -arch=sm_90a -O3 -v $S/ptx/$k.ptx -o $S/Q/$k.cubin 2>&1 | grep -E "spill|C7512"
cp $S/ptx/$k.json $S/Q/
rm -rf $S/ptx
du -sh $S
