#!/usr/bin/env bash
# Here: the 3072-wide layernorm of test/GPU/kernels/nonpow2.tile forced to
# 4, 6, 8, 12, 16 and 24 warps, into .dev/s6/ln<warps>/layernorm3072.cubin.
set -euo pipefail
for nw in 4 6 8 12 16 24; do
  d=.dev/s6/ln$nw; mkdir -p $d
  sed "/func.func @layernorm3072/,/attributes {tile.kernel}/ s/attributes {tile.kernel}/attributes {tile.kernel, tile.num_warps = $nw : i32}/" \
    test/GPU/kernels/nonpow2.tile > $d/k.tile
  build/bin/tilec $d/k.tile --arch=sm_90a --emit=cubin -v -o $d/layernorm3072.cubin 2>&1 | grep layernorm3072
done
# The 5000-wide softmax forced to 8 warps (5 vectors per thread, as many
# padded slots as the pass's 10 warps), into .dev/s6/sm8/softmax5000.cubin.
d=.dev/s6/sm8; mkdir -p $d
sed "/func.func @softmax5000/,/attributes {tile.kernel}/ s/attributes {tile.kernel}/attributes {tile.kernel, tile.num_warps = 8 : i32}/" \
  test/GPU/kernels/nonpow2.tile > $d/k.tile
build/bin/tilec $d/k.tile --arch=sm_90a --emit=cubin -v -o $d/softmax5000.cubin 2>&1 | grep softmax5000
cp .dev/s5/k90a/layernorm3072.cubin .dev/s5/k90a/layernorm3072.json $d/ 2>/dev/null || true
