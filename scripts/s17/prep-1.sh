#!/usr/bin/env bash
# Session 17, here: what scripts/s17/run.sh runs on the GPU, into
# .dev/s17 (carry [".dev/s17", ".gpu-deps"]).
#   K      the head_dim 128 backward's kernels as the GPU test and the
#          bench load them (scripts/s16/prep-2.sh's list), with this
#          session's dQ-by-TMA-reduce kernel (each consumer warpgroup
#          reduces its own boxes of dQ); cubins by ptxas -O3 -v.
#   R      test/Interpreter/tensordesc-reduce.tile's kernels (PTX) and the
#          inputs and interpreter results they are checked against, the
#          per-warpgroup wgmma kernel (addto_wg) among them.
#   P      the builder's persistent 128x256 GEMM (matmul_tma_persistent_
#          bf16out) for tilec-gpu-tests.
#   torch  the PyTorch extension's sources (scripts/s9/prep-torch.sh).
#   tune   the GEMM tuning candidates (tilec-tune compile) and peers.py.
set -euo pipefail
S=.dev/s17; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/K $S/ptx $S/R $S/P
kernels="attention_d128 attention_bwd_pre_d128 attention_bwd_dkdv_d128
  attention_bwd_dq_d128 attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128
  attention_bwd_pre_dqacc_d128 attention_tma_bwd_dkdvq_d128
  attention_tma_bwd_dkdvqr_d128 attention_bwd_dq_convert_d128"
$B/tilec-examples --arch sm_90a -o $S/ptx $kernels > /dev/null
for k in $kernels; do
  $PTXAS -arch=sm_90a -O3 -v $S/ptx/$k.ptx -o $S/K/$k.cubin 2>&1 |
    grep -E "Used|spill" | tr '\n' ' ' | sed "s|^|$k: |"; echo
  cp $S/ptx/$k.json $S/K/
done
rm -rf $S/ptx
# K2: the backward checks' kernels with only the dQ-by-TMA-reduce variant
# beside the pointer ones (the sanitizers' shorter run).
mkdir -p $S/K2
for k in attention_d128 attention_bwd_pre_d128 attention_bwd_dq_d128 \
  attention_bwd_dkdv_d128 attention_bwd_pre_dqacc_d128 \
  attention_bwd_dq_convert_d128 attention_tma_bwd_dkdvqr_d128; do
  cp $S/K/$k.* $S/K2/
done
$B/tilec-examples --arch sm_90a -o $S/P matmul_tma_persistent_bf16out > /dev/null
T=test/Interpreter/tensordesc-reduce.tile
$B/tilec $T --arch=sm_90a -o $S/R/k.ptx
$B/tilec-run $T --kernel=twice --arg rand=1,n=240,save=$S/R/x.npy \
  --arg rand=2,n=240,save=$S/R/y0.npy --arg n=240,out=$S/R/want.npy
$B/tilec-run $T --kernel=twice_i32 --arg rand=3,n=240,min=-1000,max=1000,save=$S/R/xi.npy \
  --arg rand=4,n=240,min=-1000,max=1000,save=$S/R/yi.npy --arg n=240,out=$S/R/wanti.npy
$B/tilec-run $T --kernel=addto_wg --grid=1,1,2 --arg rand=7,shape=100x88,save=$S/R/a.npy \
  --arg rand=8,shape=88x64,save=$S/R/b.npy \
  --arg rand=9,shape=50x128,save=$S/R/yw0.npy,out=$S/R/wantw.npy --arg 88
bash scripts/s9/prep-torch.sh > /dev/null
mv .dev/s9t/torch $S/torch && rm -rf .dev/s9t
cp /work/shared/bench/peers.py $S/
$B/tilec-tune compile --builder matmul --arch sm_90a -o $S/tune > /dev/null
cp /work/shared/bench/peers.py $S/tune/
du -sh $S
