#!/usr/bin/env bash
# Session 10, here: what scripts/s10/run-1.sh runs on the GPU, into .dev/s10
# (carry [".dev/s10", ".gpu-deps"]): the two generated programs the GPU
# failed in session 9 (gen_600_5066, gen_600_5233) with PTX variants that
# print intermediate reductions; the ping-pong attention forward and its
# race-free sibling (racecheck, SASS); every example for sm_90a (the three
# sanitizers' pass); the PyTorch extension and the transformer block.
set -euo pipefail
D=.dev/s10; B=build/bin
rm -rf $D && mkdir -p $D/attn $D/k90a $D/mm
for k in attention_tma_d128_n128_overlap attention_tma_d128_n128_overlap_pingpong; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
done
for k in add coscos bias_gelu softmax layernorm rmsnorm matmul matmul_bias_gelu \
    matmul_fp16 matmul_tma matmul_tma_bias_gelu matmul_tma_persistent matmul_tma_swiglu attention; do
  $B/tilec examples/$k.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
done
for k in matmul_tf32 matmul_tma_f16out; do
  $B/tilec-examples $k > $D/k90a/$k.tile
  $B/tilec $D/k90a/$k.tile --arch=sm_90a --emit=cubin -o $D/k90a/$k.cubin
done
# The two mismatches: the cases as the batch ran them, then variants whose
# first output is an intermediate value (the PTX edited by sed).
for c in gen_600_5066 gen_600_5233; do
  cp -r .dev/s9res/failed/$c $D/mm/
done
m=$D/mm/gen_600_5233
sed 's/max.s32 \t%r1, %r42, %r69;/mov.b32 \t%r1, %r58;/' $m/gen_600_5233.ptx > $m/v_max.ptx
sed 's/max.s32 \t%r1, %r42, %r69;/mov.b32 \t%r1, %r69;/' $m/gen_600_5233.ptx > $m/v_umax.ptx
m=$D/mm/gen_600_5066
sed 's/add.s32 \t%r1, %r50, %r29;/mov.b32 \t%r1, %r29;/' $m/gen_600_5066.ptx > $m/v_argmax.ptx
sed 's/add.s32 \t%r1, %r50, %r29;/mov.b32 \t%r1, %r50;/' $m/gen_600_5066.ptx > $m/v_max.ptx
sed 's/add.s32 \t%r1, %r50, %r29;/mov.b32 \t%r1, %r33;/' $m/gen_600_5066.ptx > $m/v_if.ptx
for f in $D/mm/*/v_*.ptx; do
  cmp -s $f $(dirname $f)/$(basename $(dirname $f)).ptx && { echo "sed did not change $f"; exit 1; }
  cp $(dirname $f)/$(basename $(dirname $f)).json ${f%.ptx}.json
done
cp /work/shared/bench/peers.py $D/
# PyTorch: the extension's sources and the block's kernels.
bash scripts/s9/prep-torch.sh > /dev/null
rm -rf $D/torch && mv .dev/s9t/torch $D/torch && rm -rf .dev/s9t
du -sh $D
