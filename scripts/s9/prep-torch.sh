#!/usr/bin/env bash
# Session 9, here: the PyTorch extension's sources for scripts/gpu-torch.sh
# (docs/pytorch.md's list) plus the transformer block's kernels
# (examples/torch/block.py): matmul_tma, matmul_tma_swiglu and the builder's
# matmul_tma_f16out, attention_tma_d128_n128, matmul_tma_persistent_bf16out
# and attention_tma_d128_n128_overlap_pingpong (the two the block takes
# when present), and the attention backward's kernels
# (examples/torch/attention.py), into .dev/s9t/torch. Then,
# there: `MAX_JOBS=16 scripts/gpu-torch.sh .dev/s9t/torch` with carry
# [".dev/s9t", ".gpu-deps"].
set -euo pipefail
D=.dev/s9t/torch; B=build/bin
rm -rf .dev/s9t && mkdir -p $D/bn128
for k in add cos coscos bias_gelu bias_relu softmax layernorm rmsnorm rmsnorm_bf16 matmul; do
  $B/tilec examples/$k.tile --emit=torch -o $D/${k}_torch.cpp
done
for k in matmul_tma_bias_gelu matmul_tma matmul_tma_swiglu; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=torch -o $D/${k}_torch.cpp
done
for k in matmul_tma_f16out attention_tma_d128_n128 matmul_tma_persistent_bf16out \
  attention_tma_d128_n128_overlap_pingpong attention_bwd_pre_d128 \
  attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128; do
  $B/tilec-examples $k > $D/$k.tile
  $B/tilec $D/$k.tile --arch=sm_90a --emit=torch -o $D/${k}_torch.cpp
  rm $D/$k.tile
done
cp $D/rmsnorm_bf16_torch.cpp $D/bn128/
$B/tilec examples/matmul_tma_bias_gelu.tile --arch=sm_90a --param BLOCK_N=128 \
  --emit=torch -o $D/bn128/matmul_tma_bias_gelu_torch.cpp
du -sh .dev/s9t
