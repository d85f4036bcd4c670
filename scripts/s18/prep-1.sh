#!/usr/bin/env bash
# Session 18, here: the kernels scripts/s18/run.sh runs on the GPU, into
# .dev/s18 (carry [".dev/s18", ".gpu-deps"]).
#   C      examples/matmul_tma_cluster.tile (clusters of two sharing B's
#          blocks by TMA multicast) and examples/matmul_tma_persistent.tile
#          (the same schedule without clusters), BLOCK_N 256, cubins by
#          ptxas -O3 -v; the builder's matmul_tma_cluster_bf16out (PTX);
#          peers.py.
#   tune   tilec-tune compile --builder matmul --arch sm_90a (132
#          candidates) and peers.py, for run.sh's tune part.
set -euo pipefail
S=.dev/s18; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/C
for k in matmul_tma_cluster matmul_tma_persistent; do
  $B/tilec examples/$k.tile --arch=sm_90a --param BLOCK_N=256 -o $S/C/$k.ptx
  $PTXAS -arch=sm_90a -O3 -v $S/C/$k.ptx -o $S/C/$k.cubin 2>&1 |
    grep -E "Used|spill" | tr '\n' ' ' | sed "s|^|$k: |"; echo
  rm $S/C/$k.ptx
done
# The same at BLOCK_N 192 (three boxes of B: two copied by rank 0).
mkdir -p $S/C192
$B/tilec examples/matmul_tma_cluster.tile --arch=sm_90a --param BLOCK_N=192 -o $S/C192/matmul_tma_cluster.ptx
$PTXAS -arch=sm_90a -O3 $S/C192/matmul_tma_cluster.ptx -o $S/C192/matmul_tma_cluster.cubin
rm $S/C192/matmul_tma_cluster.ptx
# The builder's persistent GEMM in clusters of two (MatmulConfig::numCtas).
$B/tilec-examples --arch sm_90a -o $S/C matmul_tma_cluster_bf16out > /dev/null
cp /work/shared/bench/peers.py $S/
# tune: the GEMM tuning candidates (the tma-cluster family among them).
$B/tilec-tune compile --builder matmul --arch sm_90a -o $S/tune > /dev/null
cp /work/shared/bench/peers.py $S/tune/
du -sh $S
