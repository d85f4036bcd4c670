#!/usr/bin/env bash
# Session 19, here: the fp8 kernels scripts/s19/run.sh runs on the GPU,
# into .dev/s19 (carry [".dev/s19", ".dev/s18", ".dev/s17", ".gpu-deps"]
# with scripts/s18/prep-1.sh and scripts/s17/prep-1.sh run too).
#   F8     examples/matmul_fp8.tile (e4m3, BLOCK_N 256) by ptxas -O3 -v
#          and the builder's matmul_fp8_bf16out (PTX),
#          and its variants: BLOCK_N 128 (F8N128), B in e5m2 (F8MIX: one
#          operand of each format); peers.py.
#   diff   the fp8 conversions' differential cases (make-gpu-cases.py).
set -euo pipefail
S=.dev/s19; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/F8 $S/F8N128 $S/F8MIX
cubin() { # cubin DIR TILE [tilec options...]
  local d=$1 f=$2; shift 2
  $B/tilec $f --arch=sm_90a "$@" -o $d/matmul_fp8.ptx
  $PTXAS -arch=sm_90a -O3 -v $d/matmul_fp8.ptx -o $d/matmul_fp8.cubin 2>&1 |
    grep -E "Used|spill" | tr '\n' ' ' | sed "s|^|$d: |"; echo
  rm $d/matmul_fp8.ptx
}
cubin $S/F8 examples/matmul_fp8.tile
# The builder's fp8 GEMM (MatmulConfig bTransposed + scales), PTX.
$B/tilec-examples --arch sm_90a -o $S/F8 matmul_fp8_bf16out > /dev/null
rm $S/F8/matmul_fp8_bf16out.tile
cubin $S/F8N128 examples/matmul_fp8.tile --param BLOCK_N=128
sed 's/\(BLOCK_N}x128x\|128x${BLOCK_N}x\)f8E4M3FN/\1f8E5M2/g' \
  examples/matmul_fp8.tile > $S/F8MIX/matmul_fp8.tile
cubin $S/F8MIX $S/F8MIX/matmul_fp8.tile
cp /work/shared/bench/peers.py $S/
# The fp8 conversions' differential cases (test/GPU/diff-cases.txt fp8_*).
grep -E '^fp8_' test/GPU/diff-cases.txt > $S/fp8-cases.txt
python3 scripts/make-gpu-cases.py --build build --cases $S/fp8-cases.txt \
  -o $S/diff > /dev/null
du -sh $S
