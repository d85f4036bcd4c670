#!/usr/bin/env bash
# Session 8, here: what scripts/s8/run-1.sh runs on the H200, into .dev/s8
# (ignored by git): the attention forward through tensor descriptors (the
# builder's attention_tma_d128 and _n128, TMA + warp-specialized wgmma)
# beside the pointer one (attention_d128), ptxas's report and SASS counts,
# and every example for sm_90a (the sanitizers' pass). Carry
# [".dev/s8", ".gpu-deps"].
set -euo pipefail
D=.dev/s8; B=build/bin
rm -rf $D && mkdir -p $D/attn $D/k90a
for k in attention_d128 attention_tma_d128 attention_tma_d128_n128; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
  $B/tilec $D/attn/$k.tile --arch=sm_90a -v -o $D/attn/$k.ptx 2>> $D/resources.txt
  /usr/local/cuda/bin/ptxas -arch=sm_90a -v $D/attn/$k.ptx -o /tmp/$k.cubin 2>&1 \
    | grep -E "Used|spill|C75" >> $D/resources.txt || true
  rm $D/attn/$k.ptx
done
for k in add coscos bias_gelu softmax layernorm rmsnorm matmul matmul_bias_gelu \
    matmul_fp16 matmul_tma matmul_tma_bias_gelu matmul_tma_persistent attention; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
done
cp /work/shared/bench/peers.py $D/
cat $D/resources.txt; du -sh $D
