#!/usr/bin/env bash
# Session 10, here: what scripts/s10/run-2.sh runs on the GPU, into
# .dev/s10b (carry [".dev/s10b", ".gpu-deps"], and .dev/diff601 when
# scripts/prep-diff-batch.sh 601 N .dev/diff601/seed601.tar.xz made it):
# the two session-9 mismatches recompiled with the ptxas workaround
# (tilec::avoidPtxasNegBug), the difftest cases of test/GPU/diff-cases.txt,
# the ping-pong attention forward with immediate barrier ids beside the
# session's first build of it (register ids) and the plain n128 forward,
# and a CUDA microtest of racecheck and register barrier ids.
set -euo pipefail
D=.dev/s10b; B=build/bin
rm -rf $D && mkdir -p $D/mm $D/attn $D/attn_old $D/race
for c in gen_600_5066 gen_600_5233; do
  cp -r .dev/s9res/failed/$c $D/mm/
  $B/tilec $D/mm/$c/source.tile -o $D/mm/$c/$c.ptx
  ! grep -q "neg\.s" $D/mm/$c/$c.ptx
done
grep -E '^difftest_' test/GPU/diff-cases.txt > $D/cases.txt
python3 scripts/make-gpu-cases.py --build build --cases $D/cases.txt -o $D/cases > /dev/null
for k in attention_tma_d128 attention_tma_d128_n128 attention_tma_d128_overlap \
    attention_tma_d128_n128_overlap attention_tma_d128_n128_overlap_pingpong; do
  $B/tilec-examples $k > $D/attn/$k.tile
  $B/tilec $D/attn/$k.tile --arch=sm_90a --emit=cubin -o $D/attn/$k.cubin
done
cp $D/attn/attention_tma_d128*.* $D/attn_old/  # tilec-bench wants all five
cp .dev/s10/attn/attention_tma_d128_n128_overlap_pingpong.* $D/attn_old/
cp scripts/s10/pingpong-race.cu $D/race/
cp /work/shared/bench/peers.py $D/
du -sh $D
