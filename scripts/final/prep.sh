#!/usr/bin/env bash
# The last full H200 check (docs/performance.md, "Current results"): run
# scripts/final/prep.sh here (it writes .dev/s4, ignored by git), then
# `run` each of runA.sh, runB.sh, runC.sh with carry [".dev/s4", ".gpu-deps"]
# (scripts/gpu-deps.sh first), as `bash scripts/final/runA.sh`.
# Compiles everything the final H200 calls run (from the repo root, here).
set -euo pipefail
D=.dev/s4; B=build/bin
rm -rf $D/k90a $D/k90 $D/k256 $D/kpersist $D/torch $D/cases $D/np2
mkdir -p $D/k90a $D/k90 $D/k256 $D/kpersist $D/torch $D/np2/mm128x192 $D/np2/mm128x128
for k in add coscos bias_gelu softmax layernorm rmsnorm matmul matmul_bias_gelu matmul_fp16 matmul_tma attention; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=ptx -o $D/k90a/$k.ptx
  $B/tilec examples/$k.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
  $B/tilec examples/$k.tile --emit=cubin -o $D/k90/$k.cubin
done
$B/tilec-examples attention_d128 > $D/attention_d128.tile
$B/tilec $D/attention_d128.tile --arch=sm_90a --emit=cubin -o $D/k90a/attention_d128.cubin
$B/tilec $D/attention_d128.tile --emit=cubin -o $D/k90/attention_d128.cubin
# non-power-of-two tiles (issue 16): bench kernels beside the others
for k in softmax5000 layernorm3072; do
  $B/tilec test/GPU/kernels/nonpow2.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
done
$B/tilec test/GPU/kernels/nonpow2.tile --arch=sm_90a -o $D/np2/softmax5000.ptx
$B/tilec test/GPU/kernels/nonpow2.tile --arch=sm_90a -o $D/np2/layernorm3072.ptx
$B/tilec test/GPU/kernels/matmul128x192.tile --arch=sm_90a -o $D/np2/mm128x192/matmul.ptx
$B/tilec examples/matmul.tile --arch=sm_90a -o $D/np2/mm128x128/matmul.ptx
grep -E '^nonpow2_' test/GPU/diff-cases.txt > /tmp/nonpow2.txt
python3 scripts/make-gpu-cases.py --build $PWD/build --cases /tmp/nonpow2.txt -o $D/cases > /dev/null
cp -r $D/cases/nonpow2_matmul128x192-200x250x77 $D/cases/nonpow2_matmul128x192-wgmma
$B/tilec test/GPU/kernels/matmul128x192.tile --arch=sm_90a -o $D/cases/nonpow2_matmul128x192-wgmma/matmul.ptx
# builder GEMM tiles (gemm2)
$B/tilec-examples --arch sm_90a -o $D/k256 matmul > /dev/null
$B/tilec $D/k256/matmul.tile --arch=sm_90a --emit=cubin -o $D/k256/matmul.cubin
$B/tilec-examples --arch sm_90a --persistent -o $D/kpersist matmul > /dev/null
$B/tilec $D/kpersist/matmul.tile --arch=sm_90a --emit=cubin -o $D/kpersist/matmul.cubin
# PyTorch extensions (torch)
for k in add cos coscos bias_gelu bias_relu softmax layernorm rmsnorm matmul; do
  $B/tilec examples/$k.tile --emit=torch -o $D/torch/${k}_torch.cpp
done
cp /work/shared/bench/peers.py $D/
# the tuning space of the builder GEMM (about 4 minutes on 2 cores)
$B/tilec-tune compile --builder matmul --arch sm_90a -o $D/tune > $D/tune-compile.txt
ls $D/k90a | wc -l; du -sh $D
# registers and spills (ptxas -v through tilec -v)
: > $D/resources.txt
for k in matmul matmul_tma matmul_bias_gelu matmul_fp16 attention; do
  $B/tilec examples/$k.tile --arch=sm_90a -v -o $D/res.ptx >> $D/resources.txt 2>&1 || true
done
$B/tilec $D/attention_d128.tile --arch=sm_90a -v -o $D/res.ptx >> $D/resources.txt 2>&1 || true
$B/tilec $D/k256/matmul.tile --arch=sm_90a -v -o $D/res.ptx >> $D/resources.txt 2>&1 || true
rm -f $D/res.ptx $D/res.json; cat $D/resources.txt
