#!/usr/bin/env bash
# Session 20, here: the tf32 kernels scripts/s20/run.sh runs on the GPU,
# into .dev/s20 (carry [".dev/s20", ".dev/s19", ".dev/s18", ".dev/s17",
# ".gpu-deps"] with the s19, s18 and s17 prep scripts run too).
#   TF     the builder's matmul_tf32_nt (wgmma .tf32, B as N x K) and
#          matmul_tf32 (mma.sync m16n8k8, B as K x N), PTX for sm_90a;
#          peers.py (bench/peers_gemm.py imports it).
#   diff   the tf32 differential cases (test/GPU/diff-cases.txt tf32_*:
#          wgmma from the ring, and mma.sync on wgmma's layout).
set -euo pipefail
S=.dev/s20; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/TF
$B/tilec-examples --arch sm_90a -o $S/TF matmul_tf32_nt matmul_tf32 > /dev/null
rm -f $S/TF/*.tile
for k in matmul_tf32_nt matmul_tf32; do
  $PTXAS -arch=sm_90a -O3 -v $S/TF/$k.ptx -o /dev/null 2>&1 |
    grep -E "Used|spill" | tr '\n' ' ' | sed "s|^|$k: |"; echo
done
cp /work/shared/bench/peers.py $S/
grep -E '^tf32_' test/GPU/diff-cases.txt > $S/tf32-cases.txt
python3 scripts/make-gpu-cases.py --build build --cases $S/tf32-cases.txt \
  -o $S/diff > /dev/null
du -sh $S
