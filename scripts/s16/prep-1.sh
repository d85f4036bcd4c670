#!/usr/bin/env bash
# Session 16, here: what scripts/s16/run-1.sh runs on the GPU, into
# .dev/s16 (carry [".dev/s16", ".gpu-deps"]).
#   K      the attention forwards with this session's parameters (batch
#          added; shapes, outputs and tile.from declared): attention.tile
#          (head_dim 64), the builder's attention_d128, attention_tma_d128,
#          attention_tma_d128_n128_overlap_pingpong, and the backward the
#          GPU test runs after attention_d128; cubins by ptxas -O3.
#   torch/ the PyTorch extension's sources (scripts/s9/prep-torch.sh's
#          list): the GEMMs' tile.from, the attention forward allocating
#          (o, lse) with group = q.size(1) / k.size(1).
set -euo pipefail
S=.dev/s16; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/K $S/ptx
$B/tilec examples/attention.tile --arch=sm_90a -o $S/ptx/attention.ptx
$B/tilec-examples --arch sm_90a -o $S/ptx attention_d128 attention_tma_d128 \
  attention_tma_d128_n128_overlap_pingpong attention_bwd_pre_d128 \
  attention_bwd_dkdv_d128 attention_bwd_dq_d128 > /dev/null
for f in $S/ptx/*.ptx; do
  k=$(basename $f .ptx)
  $PTXAS -arch=sm_90a -O3 $f -o $S/K/$k.cubin
  cp $S/ptx/$k.json $S/K/
done
rm -rf $S/ptx
bash scripts/s9/prep-torch.sh > /dev/null
mv .dev/s9t/torch $S/torch && rm -rf .dev/s9t
cp /work/shared/bench/peers.py $S/
du -sh $S
