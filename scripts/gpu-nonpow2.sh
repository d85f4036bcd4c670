#!/usr/bin/env bash
# Tiles that are not powers of two (issue 16), on the GPU machine, from the
# repository root:
#
#   scripts/gpu-nonpow2.sh CASES_DIR KERNELS_DIR
#
# CASES_DIR: the differential cases of test/GPU/kernels/nonpow2.tile and
# matmul128x192.tile, made on the CPU machine with
#   grep -E '^nonpow2_' test/GPU/diff-cases.txt > /tmp/nonpow2.txt
#   python3 scripts/make-gpu-cases.py --build build --cases /tmp/nonpow2.txt \
#     -o CASES_DIR
# (plus, for the wgmma path, a copy of the matmul case whose matmul.ptx and
# matmul.json come from `tilec test/GPU/kernels/matmul128x192.tile
# --arch=sm_90a`). KERNELS_DIR: softmax5000.ptx|json and layernorm3072.ptx|json
# (`tilec test/GPU/kernels/nonpow2.tile --arch=sm_90a -o KERNELS_DIR/NAME.ptx`,
# once per name), and mm128x192/matmul.ptx|json, mm128x128/matmul.ptx|json
# (matmul128x192.tile and examples/matmul.tile, --arch=sm_90a).
#
# Runs scripts/gpu-diff.sh on CASES_DIR (GPU against the interpreter on
# random ragged inputs, then compute-sanitizer), then tilec-bench's rows
# softmax fp32 16384x5000, layernorm bf16 32768x3072 and the bf16 matmul with
# 128x192 and 128x128 tiles of C on 8192^3 and on 1408x2304x8192 (where
# 128x192 fills one wave; the copy ceiling and the peers' rows come from
# scripts/gpu-bench.sh and bench/peers_gemm.py matmul_wave). Exits 1 if anything failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
out=${LOGS:-$build/logs/nonpow2}
if (($# != 2)) || [ ! -d "$1" ] || [ ! -d "$2" ]; then
  echo "usage: scripts/gpu-nonpow2.sh CASES_DIR KERNELS_DIR" >&2
  exit 2
fi
cases=$1 kernels=$2
mkdir -p "$out"
status=0
echo "== differential cases ($cases)"
BUILD=$build "$root/scripts/gpu-diff.sh" "$cases" || status=1
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build "$build" >"$out/build.log" 2>&1 || {
  echo "gpu-nonpow2: FAIL: the build failed; see $out"
  tail -30 "$out/build.log"
  exit 1
}
bench=$build/bin/tilec-bench
echo "== tilec-bench: 5000-wide softmax, 3072-wide layernorm"
"$bench" --kernels "$kernels" --out "$out/rows.json" softmax5000 layernorm3072 ||
  { echo "gpu-nonpow2: FAIL: tilec-bench softmax5000 layernorm3072"; status=1; }
for tile in 128x192 128x128; do
  if [ -f "$kernels/mm$tile/matmul.ptx" ] || [ -f "$kernels/mm$tile/matmul.cubin" ]; then
    echo "== tilec-bench: matmul with $tile tiles of C"
    "$bench" --kernels "$kernels/mm$tile" --matmul-tile "${tile/x/,}" \
      --out "$out/matmul-$tile.json" matmul matmul_wave ||
      { echo "gpu-nonpow2: FAIL: tilec-bench matmul $tile"; status=1; }
  fi
done
if ((status == 0)); then
  echo "gpu-nonpow2: PASS"
fi
exit $status
