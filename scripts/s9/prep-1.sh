#!/usr/bin/env bash
# Session 9, here: what scripts/s9/run-1.sh runs on the GPU, into .dev/s9:
# the descriptor attention forwards (plain, n128, overlapped, ping-pong),
# the f32 matmul on tf32 tensor cores, and every example for sm_90a (the
# three sanitizers' pass). Carry [".dev/s9", ".gpu-deps"].
set -euo pipefail
D=.dev/s9; B=build/bin
rm -rf $D && mkdir -p $D/attn $D/k90a $D/tf32
for k in attention_tma_d128 attention_tma_d128_n128 attention_tma_d128_overlap \
    attention_tma_d128_n128_overlap attention_tma_d128_n128_overlap_pingpong; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
done
$B/tilec-examples matmul_tf32 > $D/tf32/matmul_tf32.tile
$B/tilec $D/tf32/matmul_tf32.tile --arch=sm_90a --emit=cubin -o $D/tf32/matmul_tf32.cubin
for k in add coscos bias_gelu softmax layernorm rmsnorm matmul matmul_bias_gelu \
    matmul_fp16 matmul_tma matmul_tma_bias_gelu matmul_tma_persistent matmul_tma_swiglu attention; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
done
cp $D/tf32/matmul_tf32.* $D/k90a/
$B/tilec-examples matmul_tma_f16out > $D/k90a/matmul_tma_f16out.tile
$B/tilec $D/k90a/matmul_tma_f16out.tile --arch=sm_90a --emit=cubin -o $D/k90a/matmul_tma_f16out.cubin
cp /work/shared/bench/peers.py $D/
du -sh $D
