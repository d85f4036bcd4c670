#!/usr/bin/env bash
# The outside-the-tree AOT program (examples/outside/aot, issue 18) on a real
# GPU, from the repository root of the GPU machine:
#
#   scripts/gpu-outside.sh KERNELS_DIR
#
# KERNELS_DIR holds axpy_kernels.h and axpy_kernels.cpp, made on the CPU
# machine with
#   tilec examples/outside/aot/axpy.tile --emit=cpp-header --arch=sm_90 \
#     -o KERNELS_DIR/axpy_kernels.h
# (a cubin when ptxas is found there, else PTX the driver compiles).
#
# Builds the runtime alone (-DTILEC_RUNTIME_ONLY=ON), installs it into a
# fresh prefix, builds examples/outside/aot against that install with
# find_package(tilec) and runs it: axpy on 16, 256 and 1008 elements checked
# against the CPU, and a refused launch. Exits 1 if anything failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu-outside}
out=${LOGS:-$build/logs}
if (($# != 1)) || [ ! -f "$1/axpy_kernels.h" ]; then
  echo "usage: scripts/gpu-outside.sh KERNELS_DIR (with axpy_kernels.h/.cpp)" >&2
  exit 2
fi
kernels=$(cd "$1" && pwd)
mkdir -p "$out"
fail() { echo "FAIL: $1 (log: $2)"; exit 1; }
cmake -G Ninja -S "$root" -B "$build/tilec" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF -DTILEC_NVCC=OFF \
  >"$out/configure.log" 2>&1 || fail "configure the runtime" "$out/configure.log"
cmake --build "$build/tilec" --target TilecRuntime >"$out/build.log" 2>&1 ||
  fail "build the runtime" "$out/build.log"
rm -rf "$build/prefix"
cmake --install "$build/tilec" --prefix "$build/prefix" --component runtime \
  >"$out/install.log" 2>&1 || fail "install the runtime" "$out/install.log"
cmake -G Ninja -S "$root/examples/outside/aot" -B "$build/aot" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$build/prefix" \
  -DTILEC_KERNELS_DIR="$kernels" >"$out/aot-configure.log" 2>&1 ||
  fail "configure examples/outside/aot" "$out/aot-configure.log"
cmake --build "$build/aot" >"$out/aot-build.log" 2>&1 ||
  fail "build examples/outside/aot" "$out/aot-build.log"
if "$build/aot/outside-aot" | tee "$out/run.log" | tail -1 | grep -qx ok; then
  echo "PASS: examples/outside/aot on the GPU"
else
  cat "$out/run.log"
  fail "examples/outside/aot on the GPU" "$out/run.log"
fi
