#!/usr/bin/env bash
# Compiles the TMA GEMM schedule variants for scripts/s5/run-gemm.sh (here,
# from the repository root): examples/matmul_tma.tile as
#   ws256  warp-specialized, 128x256 (the default)
#   ws128  warp-specialized, 128x128 (--param BLOCK_N=128)
#   own256 thread 0 refills between the dots, 128x256 (--warp-specialize=false)
#   own128 the same at 128x128 (the schedule of the previous session)
# into .dev/s5/gemm/<variant>/matmul_tma.{ptx,cubin}, with ptxas -v lines,
# and examples/matmul_tma_bias_gelu.tile and matmul_tma_persistent.tile
# beside it in ws256 and ws128 (own256 gets the persistent one too).
set -euo pipefail
D=.dev/s5/gemm; B=build/bin
rm -rf $D; mkdir -p $D
declare -A flags=([ws256]="" [ws128]="--param=BLOCK_N=128"
                  [own256]="--warp-specialize=false"
                  [own128]="--param=BLOCK_N=128 --warp-specialize=false")
for v in ws256 ws128 own256 own128; do
  mkdir -p $D/$v
  $B/tilec examples/matmul_tma.tile --arch=sm_90a ${flags[$v]} -o $D/$v/matmul_tma.ptx
  $B/tilec examples/matmul_tma.tile --arch=sm_90a ${flags[$v]} --emit=cubin -v \
    -o $D/$v/matmul_tma.cubin 2>&1 | sed "s/^/$v: /" | tee -a $D/resources.txt
done
for v in ws256 ws128 own256; do
  $B/tilec examples/matmul_tma_persistent.tile --arch=sm_90a ${flags[$v]} -o $D/$v/matmul_tma_persistent.ptx
  $B/tilec examples/matmul_tma_persistent.tile --arch=sm_90a ${flags[$v]} --emit=cubin -v \
    -o $D/$v/matmul_tma_persistent.cubin 2>&1 | sed "s/^/$v: /" | tee -a $D/resources.txt
done
for v in ws256 ws128; do
  $B/tilec examples/matmul_tma_bias_gelu.tile --arch=sm_90a ${flags[$v]} -o $D/$v/matmul_tma_bias_gelu.ptx
  $B/tilec examples/matmul_tma_bias_gelu.tile --arch=sm_90a ${flags[$v]} --emit=cubin -v \
    -o $D/$v/matmul_tma_bias_gelu.cubin 2>&1 | sed "s/^/$v: /" | tee -a $D/resources.txt
done
cp /work/shared/bench/peers.py $D/
