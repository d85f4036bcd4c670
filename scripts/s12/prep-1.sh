#!/usr/bin/env bash
# Session 12, here: the kernels scripts/s12/run-1.sh times on the GPU, into
# .dev/s12 (carry [".dev/s12", ".dev/s11d", ".gpu-deps"]).
#   A  the eleventh session's kernels (.dev/s11d/k, read in place): the
#      overlapped forwards carry P in bf16 and rescale O after the softmax;
#   B  this compiler: the overlapped forwards carry P in f32 (converted
#      before the products) and rescale O before them (FlashAttention-3's
#      order), every other kernel as A;
#   C  B re-assembled with setmaxnreg 24 / 240 (producer / consumers)
#      instead of 40 / 232 in every warp-specialized kernel;
#   D  A's overlapped forwards, backward and TMA GEMMs at 24 / 240;
# and tune-add, the candidates of `tilec-tune measure --arg` on the GPU.
# Variants C and D come from the PTX with only the two setmaxnreg
# operands changed, assembled by the same ptxas with the same -O3 and
# -arch as tilec --emit=cubin.
set -euo pipefail
S=.dev/s12; B=build/bin; PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $S && mkdir -p $S/B $S/C $S/D $S/ptx
fwd="attention_tma_d128 attention_tma_d128_n128 attention_tma_d128_overlap
     attention_tma_d128_n128_overlap attention_tma_d128_n128_overlap_pingpong"
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
# D: the eleventh session's overlapped forwards (their builder text is in
# .dev/s11d/k), the backward and the GEMMs at 24 / 240.
cp .dev/s11d/k/*.cubin .dev/s11d/k/*.json $S/D/
for k in attention_tma_d128_overlap attention_tma_d128_n128_overlap \
    attention_tma_d128_n128_overlap_pingpong; do
  $B/tilec .dev/s11d/k/$k.tile --arch=sm_90a --emit=ptx -o $S/ptx/A_$k.ptx
  asm $S/ptx/A_$k.ptx $S/D/$k.cubin 24
  cp $S/ptx/A_$k.json $S/D/$k.json
done
for k in attention_tma_bwd_dkdv_d128 attention_tma_bwd_dq_d128 matmul_tma matmul_tma_bias_gelu; do
  asm $S/ptx/$k.ptx $S/D/$k.cubin 24
done
# The args problem of tilec-tune on the GPU: test/Tune/Inputs/add-params.tile
# (BLOCK 128 / 256 / 512, num_warps 4 / 8, its grid rule naming BLOCK).
build/bin/tilec-tune compile test/Tune/Inputs/add-params.tile -o $S/tune-add \
  --arch sm_90a --space num_stages=2 > $S/tune-add.txt
cp /work/shared/bench/peers.py $S/
rm -rf $S/ptx/*.ptx
du -sh $S
