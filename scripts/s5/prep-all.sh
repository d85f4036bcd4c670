#!/usr/bin/env bash
# Here, from the repository root: compiles what scripts/s5/run-all.sh,
# run-attn.sh and run-rest.sh run on the H200 into .dev/s5 (ignored by
# git): every example for sm_90a (PTX and cubin) and sm_90 (cubin), the
# builder's attention kernels (forward and backward), the non-power-of-two
# cases, the PyTorch extensions, the outside AOT header, the tuning space,
# and ptxas's registers and spills. Carry [".dev/s5", ".gpu-deps"].
set -euo pipefail
D=.dev/s5; B=build/bin
rm -rf $D/k90a $D/k90 $D/attn $D/torch $D/cases $D/np2 $D/aot $D/tune
mkdir -p $D/k90a $D/k90 $D/attn $D/torch $D/aot $D/np2/mm128x192 $D/np2/mm128x128
for k in add coscos bias_gelu softmax layernorm rmsnorm matmul matmul_bias_gelu \
    matmul_fp16 matmul_tma matmul_tma_bias_gelu matmul_tma_persistent attention; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=ptx -o $D/k90a/$k.ptx
  $B/tilec examples/$k.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
  case $k in matmul_tma*) ;; *) $B/tilec examples/$k.tile --emit=cubin -o $D/k90/$k.cubin ;; esac
done
for k in attention_d64 attention_d128 attention_bwd_{pre,dkdv,dq,dkdv_ds,dq_ds}_d{64,128}; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
done
cp $D/attn/attention_d128.cubin $D/attn/attention_d128.json $D/k90a/
$B/tilec-examples matmul_tma_fp16 > $D/matmul_tma_fp16.tile
$B/tilec $D/matmul_tma_fp16.tile --arch=sm_90a --emit=cubin -o $D/k90a/matmul_tma_fp16.cubin
$B/tilec $D/attn/attention_d128.tile --emit=cubin -o $D/k90/attention_d128.cubin
for k in softmax5000 layernorm3072; do
  $B/tilec test/GPU/kernels/nonpow2.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
done
$B/tilec test/GPU/kernels/nonpow2.tile --arch=sm_90a -o $D/np2/softmax5000.ptx
$B/tilec test/GPU/kernels/nonpow2.tile --arch=sm_90a -o $D/np2/layernorm3072.ptx
$B/tilec test/GPU/kernels/matmul128x192.tile --arch=sm_90a -o $D/np2/mm128x192/matmul.ptx
$B/tilec examples/matmul.tile --arch=sm_90a -o $D/np2/mm128x128/matmul.ptx
grep -E '^nonpow2_' test/GPU/diff-cases.txt > /tmp/nonpow2.txt
python3 scripts/make-gpu-cases.py --build $PWD/build --cases /tmp/nonpow2.txt -o $D/cases > /dev/null
for k in add cos coscos bias_gelu bias_relu softmax layernorm rmsnorm rmsnorm_bf16 matmul; do
  $B/tilec examples/$k.tile --emit=torch -o $D/torch/${k}_torch.cpp
done
# The descriptor (TMA, wgmma, warp-specialized) GEMM of examples/torch/block.py,
# and its BLOCK_N=128 build beside the block's norm (gpu-torch.sh times the
# block with each).
$B/tilec examples/matmul_tma_bias_gelu.tile --arch=sm_90a --emit=torch \
  -o $D/torch/matmul_tma_bias_gelu_torch.cpp
mkdir -p $D/torch/bn128
$B/tilec examples/matmul_tma_bias_gelu.tile --arch=sm_90a --param BLOCK_N=128 \
  --emit=torch -o $D/torch/bn128/matmul_tma_bias_gelu_torch.cpp
cp $D/torch/rmsnorm_bf16_torch.cpp $D/torch/bn128/
$B/tilec examples/outside/aot/axpy.tile --emit=cpp-header --arch=sm_90 -o $D/aot/axpy_kernels.h
cp /work/shared/bench/peers.py $D/
$B/tilec-tune compile --builder matmul --arch sm_90a -o $D/tune --jobs 2 > $D/tune-compile.txt
tail -2 $D/tune-compile.txt
: > $D/resources.txt
$B/tilec $D/matmul_tma_fp16.tile --arch=sm_90a -v -o $D/res.ptx >> $D/resources.txt 2>&1 || true
for k in matmul matmul_tma matmul_tma_bias_gelu matmul_tma_persistent matmul_bias_gelu matmul_fp16 attention; do
  $B/tilec examples/$k.tile --arch=sm_90a -v -o $D/res.ptx >> $D/resources.txt 2>&1 || true
done
for k in attention_d128 attention_bwd_dkdv_d128 attention_bwd_dq_d128; do
  $B/tilec $D/attn/$k.tile --arch=sm_90a -v -o $D/res.ptx >> $D/resources.txt 2>&1 || true
done
rm -f $D/res.ptx $D/res.json; cat $D/resources.txt; du -sh $D
