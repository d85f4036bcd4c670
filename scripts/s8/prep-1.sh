#!/usr/bin/env bash
# Session 8, here: what scripts/s8/run-1.sh runs on the H200, into .dev/s8
# (ignored by git): the attention forward and backward through tensor
# descriptors (the builder's attention_tma_d128 and _n128, and
# attention_tma_bwd_{dkdv,dq}_d128: TMA + warp-specialized wgmma) beside
# the pointer kernels (attention_d128, attention_bwd_{pre,dkdv,dq}_d128),
# with ptxas's report. Carry [".dev/s8", ".gpu-deps"].
set -euo pipefail
D=.dev/s8; B=build/bin
rm -rf $D && mkdir -p $D/attn
for k in attention_d128 attention_tma_d128 attention_tma_d128_n128 \
    attention_bwd_pre_d128 attention_bwd_dkdv_d128 attention_bwd_dq_d128 \
    attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
  $B/tilec $D/attn/$k.tile --arch=sm_90a -v -o $D/attn/$k.ptx 2>> $D/resources.txt
  rm $D/attn/$k.ptx
done
cp /work/shared/bench/peers.py $D/
cat $D/resources.txt; du -sh $D
