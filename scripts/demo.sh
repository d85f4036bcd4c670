#!/usr/bin/env bash
# Quick start, part 1: install, build, and compile a real example kernel.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
example=$root/examples/softmax.tile
echo "== tilec $example --emit=tile"
"$root/build/bin/tilec" "$example" --emit=tile
