#!/usr/bin/env bash
# Session 8, here: what scripts/s8/run-2.sh runs on the GPU, into .dev/s8b:
# the descriptor attention forward with the softmax beside the previous
# block's P V (attention_tma_d128[_n128]_overlap) beside the plain
# descriptor kernels, and every example for sm_90a (the three sanitizers'
# pass pending since session 7). Carry [".dev/s8b", ".gpu-deps"].
set -euo pipefail
D=.dev/s8b; B=build/bin
rm -rf $D && mkdir -p $D/attn $D/k90a
for k in attention_tma_d128 attention_tma_d128_n128 attention_tma_d128_overlap attention_tma_d128_n128_overlap_pingpong \
    attention_tma_d128_n128_overlap; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
done
for k in add coscos bias_gelu softmax layernorm rmsnorm matmul matmul_bias_gelu \
    matmul_fp16 matmul_tma matmul_tma_bias_gelu matmul_tma_persistent attention; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
done
cp /work/shared/bench/peers.py $D/
du -sh $D
