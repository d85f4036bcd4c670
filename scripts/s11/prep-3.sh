#!/usr/bin/env bash
# Session 11, here: what scripts/s11/run-3.sh runs on the GPU, into
# .dev/s11c (carry [".dev/s11c", ".gpu-deps"]): the five descriptor
# attention forwards of this compiler (the ping-pong one with warpgroup 1's
# balancing barrier, WarpgroupTurnOpLowering), and in ftz/ the same five
# with the ping-pong forward's ex2.approx.f32 made ex2.approx.ftz.f32 (by
# sed on its PTX, assembled here): what the flush-to-zero exp2 would gain.
set -euo pipefail
D=.dev/s11c; B=build/bin; ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $D && mkdir -p $D/attn $D/ftz
for k in attention_tma_d128 attention_tma_d128_n128 attention_tma_d128_overlap \
    attention_tma_d128_n128_overlap attention_tma_d128_n128_overlap_pingpong; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
done
cp $D/attn/* $D/ftz/
k=attention_tma_d128_n128_overlap_pingpong
$B/tilec $D/attn/$k.tile --arch=sm_90a --emit=ptx -o $D/ftz/$k.ptx
sed -i 's/ex2\.approx\.f32/ex2.approx.ftz.f32/' $D/ftz/$k.ptx
grep -q "ex2.approx.ftz.f32" $D/ftz/$k.ptx && ! grep -q "ex2.approx.f32" $D/ftz/$k.ptx
$ptxas -arch=sm_90a $D/ftz/$k.ptx -o $D/ftz/$k.cubin && rm $D/ftz/$k.ptx
cp /work/shared/bench/peers.py $D/
du -sh $D
