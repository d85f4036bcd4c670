#!/usr/bin/env bash
# Session 11, here: what scripts/s11/run-4.sh runs on the GPU, into
# .dev/s11d/k (carry [".dev/s11d", ".dev/s11c", ".dev/s10/k90a",
# ".gpu-deps"]): every sm_90a example and the builder's matmul and
# attention kernels (forward, backward, descriptors) from this compiler
# (exp2Ftz in attention, the wgmma descriptors' low word added to, the
# in-thread tree reductions). The baselines it is timed against are the
# session's call-3 forwards (.dev/s11c/attn) and the tenth session's
# examples (.dev/s10/k90a).
set -euo pipefail
D=.dev/s11d; B=build/bin
rm -rf $D && mkdir -p $D/k
for k in add coscos bias_gelu softmax layernorm rmsnorm matmul matmul_bias_gelu \
    matmul_fp16 matmul_tma matmul_tma_bias_gelu matmul_tma_persistent matmul_tma_swiglu attention; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=cubin -o $D/k/$k.cubin
done
for k in matmul_tf32 matmul_tma_f16out matmul_tma_fp16 attention_d128 attention_bwd_pre_d128 \
    attention_bwd_dkdv_d128 attention_bwd_dq_d128 attention_tma_d128 attention_tma_d128_n128 \
    attention_tma_d128_overlap attention_tma_d128_n128_overlap \
    attention_tma_d128_n128_overlap_pingpong attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128; do
  $B/tilec-examples $k > $D/k/$k.tile
  $B/tilec $D/k/$k.tile --arch=sm_90a --emit=cubin -o $D/k/$k.cubin
done
cp /work/shared/bench/peers.py $D/
ls .dev/s11c/attn/*.cubin .dev/s10/k90a/matmul_tma.cubin .dev/s10/k90a/softmax.cubin > /dev/null
du -sh $D
