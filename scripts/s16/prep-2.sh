#!/usr/bin/env bash
# Session 16, here: what scripts/s16/run-2.sh runs on the GPU, into
# .dev/s16b (carry [".dev/s16b", ".gpu-deps"]).
#   K    the head_dim 128 backward's kernels as the GPU test and the bench
#        load them: attention_d128 (O, lse), the pointer backward, the
#        descriptor dK/dV and dQ, and dQ by atomics (pre_dqacc, the TMA
#        dkdvq with red.global, dq_convert) and by TMA reduce-adds
#        (attention_tma_bwd_dkdvqr_d128, this session's); cubins by ptxas
#        -O3 -v (registers and spills printed here).
#   R    test/Interpreter/tensordesc-reduce.tile's kernels (PTX) and the
#        inputs and interpreter results they are checked against.
set -euo pipefail
S=.dev/s16b; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/K $S/ptx $S/R
kernels="attention_d128 attention_bwd_pre_d128 attention_bwd_dkdv_d128
  attention_bwd_dq_d128 attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128
  attention_bwd_pre_dqacc_d128 attention_tma_bwd_dkdvq_d128
  attention_tma_bwd_dkdvqr_d128 attention_bwd_dq_convert_d128"
$B/tilec-examples --arch sm_90a -o $S/ptx $kernels > /dev/null
for k in $kernels; do
  $PTXAS -arch=sm_90a -O3 -v $S/ptx/$k.ptx -o $S/K/$k.cubin 2>&1 |
    grep -E "Used|spill" | tr '\n' ' ' | sed "s|^|$k: |"; echo
  cp $S/ptx/$k.json $S/K/
done
rm -rf $S/ptx
T=test/Interpreter/tensordesc-reduce.tile
$B/tilec $T --arch=sm_90a -o $S/R/k.ptx
$B/tilec-run $T --kernel=twice --arg rand=1,n=240,save=$S/R/x.npy \
  --arg rand=2,n=240,save=$S/R/y0.npy --arg n=240,out=$S/R/want.npy
$B/tilec-run $T --kernel=twice_i32 --arg rand=3,n=240,min=-1000,max=1000,save=$S/R/xi.npy \
  --arg rand=4,n=240,min=-1000,max=1000,save=$S/R/yi.npy --arg n=240,out=$S/R/wanti.npy
cp /work/shared/bench/peers.py $S/
du -sh $S
