#!/usr/bin/env bash
# Session 12, here: the kernels scripts/s12/run-1.sh times on the GPU, into
# .dev/s12 (carry [".dev/s12", ".gpu-deps"]).
#   B  this compiler: the five forwards as in the eleventh session, and
#      attention_tma_d128_n128_overlap_pingpong_rf (AttentionConfig::
#      rescaleFirst: P carried in f32, O rescaled before the products,
#      FlashAttention-3's order), the backward, the TMA GEMMs;
#   C  B re-assembled with setmaxnreg 24 / 240 (producer / consumers)
#      instead of 40 / 232 in every warp-specialized kernel;
# and tune-add, the candidates of `tilec-tune measure --arg` on the GPU.
# Variant C comes from the PTX with only the two setmaxnreg
# operands changed, assembled by the same ptxas with the same -O3 and
# -arch as tilec --emit=cubin.
set -euo pipefail
S=.dev/s12; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/B $S/C $S/ptx
fwd="attention_tma_d128 attention_tma_d128_n128 attention_tma_d128_overlap
     attention_tma_d128_n128_overlap attention_tma_d128_n128_overlap_pingpong
     attention_tma_d128_n128_overlap_pingpong_rf"
bwd="attention_d128 attention_bwd_pre_d128 attention_bwd_dkdv_d128 attention_bwd_dq_d128
     attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128"
# B: this compiler (builder kernels from tilec-examples, TMA GEMM examples).
for k in $fwd $bwd matmul_tma_fp16; do
  $B/tilec-examples $k > $S/ptx/$k.tile
  $B/tilec $S/ptx/$k.tile --arch=sm_90a --emit=ptx -o $S/ptx/$k.ptx
done
for k in matmul_tma matmul_tma_bias_gelu; do
  cp examples/$k.tile $S/ptx/$k.tile
  $B/tilec $S/ptx/$k.tile --arch=sm_90a --emit=ptx -o $S/ptx/$k.ptx
done
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
for k in $fwd $bwd matmul_tma matmul_tma_bias_gelu matmul_tma_fp16; do
  asm $S/ptx/$k.ptx $S/B/$k.cubin
  cp $S/ptx/$k.json $S/B/ && cp $S/ptx/$k.json $S/C/
  if grep -q setmaxnreg $S/ptx/$k.ptx; then asm $S/ptx/$k.ptx $S/C/$k.cubin 24
  else cp $S/B/$k.cubin $S/C/; fi
done
# The args problem of tilec-tune on the GPU: test/Tune/Inputs/add-params.tile
# (BLOCK 128 / 256 / 512, num_warps 4 / 8, its grid rule naming BLOCK).
build/bin/tilec-tune compile test/Tune/Inputs/add-params.tile -o $S/tune-add \
  --arch sm_90a --space num_stages=2 > $S/tune-add.txt
cp /work/shared/bench/peers.py $S/
rm -rf $S/ptx/*.ptx
du -sh $S
