#!/usr/bin/env bash
# Session 14, here: the kernels scripts/s14/run-1.sh runs on the GPU, into
# .dev/s14 (carry [".dev/s14", ".gpu-deps"]).
#   B  the backward's kernels as the bench and the GPU test load them
#      (attention_d128 for O and lse, the pointer backward, the descriptor
#      dK/dV and dQ) and the dQ-by-atomics backward
#      (AttentionConfig::dqAtomic: attention_bwd_pre_dqacc_d128,
#      attention_tma_bwd_dkdvq_d128, attention_bwd_dq_convert_d128);
#   C  B with every warp-specialized kernel re-assembled at setmaxnreg
#      24 / 240 instead of 40 / 232 (as scripts/s12/prep-1.sh's C);
#   torch/  the PyTorch extension's sources (scripts/s9/prep-torch.sh's
#      list) with this session's allocating form (at::detail::empty_cuda,
#      no second check of the outputs it made).
set -euo pipefail
S=.dev/s14; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S/B $S/C $S/ptx $S/torch && mkdir -p $S/B $S/C $S/ptx
kernels="attention_d128 attention_bwd_pre_d128 attention_bwd_dkdv_d128
  attention_bwd_dq_d128 attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128
  attention_bwd_pre_dqacc_d128 attention_tma_bwd_dkdvq_d128
  attention_bwd_dq_convert_d128"
$B/tilec-examples --arch sm_90a -o $S/ptx $kernels > /dev/null
asm() { # ptx out.cubin [24]
  local in=$1 out=$2
  if [ "${3:-}" = 24 ]; then
    sed -e 's/setmaxnreg.dec.sync.aligned.u32 \t40;/setmaxnreg.dec.sync.aligned.u32 \t24;/' \
        -e 's/setmaxnreg.inc.sync.aligned.u32 \t232;/setmaxnreg.inc.sync.aligned.u32 \t240;/' \
        $in > $out.ptx
    grep -q "setmaxnreg.inc.sync.aligned.u32 	240;" $out.ptx || { echo "no setmaxnreg in $in"; exit 1; }
    in=$out.ptx
  fi
  $PTXAS -arch=sm_90a -O3 $in -o $out -v 2>&1 | grep -E "spill|Used" | tr '\n' ' ' |
    sed "s|^|$(basename $out) ${3:-232}: |"; echo
  rm -f $out.ptx
}
for k in $kernels; do
  asm $S/ptx/$k.ptx $S/B/$k.cubin
  cp $S/ptx/$k.json $S/B/ && cp $S/ptx/$k.json $S/C/
  if grep -q setmaxnreg $S/ptx/$k.ptx; then asm $S/ptx/$k.ptx $S/C/$k.cubin 24
  else cp $S/B/$k.cubin $S/C/; fi
done
rm -rf $S/ptx
bash scripts/s9/prep-torch.sh > /dev/null
mv .dev/s9t/torch $S/torch && rm -rf .dev/s9t
cp /work/shared/bench/peers.py $S/
du -sh $S
