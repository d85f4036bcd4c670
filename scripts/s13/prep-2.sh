#!/usr/bin/env bash
# Session 13, here: what scripts/s13/run-2.sh runs on the GPU, into .dev/s13
# (carry [".dev/s13", ".gpu-deps"]):
#   torch/  the PyTorch extension's sources (scripts/s9/prep-torch.sh's
#           list): add, cos and coscos now with tile.shape, so their default
#           overloads allocate and the kernel-order form is `.out`;
#   tune/   the GEMM candidates of `tilec-tune compile --builder matmul`
#           for scripts/gpu-tune.sh (the 15 LLM shapes beside cuBLAS and
#           Triton; the last full run was the seventh session's).
set -euo pipefail
D=.dev/s13; B=build/bin
rm -rf $D && mkdir -p $D
bash scripts/s9/prep-torch.sh > /dev/null
mv .dev/s9t/torch $D/torch && rm -rf .dev/s9t
$B/tilec-tune compile --builder matmul --arch sm_90a -o $D/tune --jobs 2 > $D/tune-compile.txt
tail -3 $D/tune-compile.txt
cp /work/shared/bench/peers.py $D/tune/
du -sh $D
