#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build, and compile a real
# example kernel (row softmax) to PTX; then show what came out and run it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
bin=$root/build/bin
out=$root/build/demo
mkdir -p "$out"

echo
echo "== tilec examples/softmax.tile -o build/demo/softmax.ptx"
"$bin/tilec" "$root/examples/softmax.tile" -o "$out/softmax.ptx"
ptx=$out/softmax.ptx
printf '   %s lines of PTX for %s: %s 16-byte loads, %s 16-byte stores, %s warp shuffles, %s barriers\n' \
  "$(wc -l < "$ptx")" "$(grep -m1 '^.target' "$ptx")" \
  "$(grep -c 'ld.global.v4' "$ptx" || true)" "$(grep -c 'st.global.v4' "$ptx" || true)" \
  "$(grep -c 'shfl.sync.bfly' "$ptx" || true)" "$(grep -c 'bar.sync' "$ptx" || true)"
echo "== the metadata the runtime reads (build/demo/softmax.json)"
cat "$out/softmax.json"

echo
echo "== the same kernel on the CPU interpreter: 4 rows x 1008 columns"
"$bin/tilec-run" "$root/examples/softmax.tile" --grid=4 \
  --arg n=4032,rand=7,min=-4,max=4 --arg n=4032,out="$out/y.npy" --arg 1008 --run-stats
python3 - "$out/y.npy" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
hlen = struct.unpack('<H', data[8:10])[0]
y = struct.unpack('<4032f', data[10 + hlen:])
for r in range(4):
    row = y[r * 1008:(r + 1) * 1008]
    print(f"   row {r}: sum {sum(row):.6f}  max {max(row):.5f}  min {min(row):.3e}")
PY

echo
echo "== on the GPU: examples/aot (built from tilec --emit=cpp-header)"
if "$bin/tilec-aot-example" 1000 1008; then :; else
  echo "   (no GPU here: the runtime loads libcuda at run time and says so above)"
fi
