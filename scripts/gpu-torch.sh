#!/usr/bin/env bash
# tilec kernels as PyTorch operators, on the GPU machine, from the repository
# root:
#
#   scripts/gpu-torch.sh DIR
#
# DIR holds <name>_torch.cpp for each example, as `tilec examples/<name>.tile
# --emit=torch -o DIR/<name>_torch.cpp` writes them (--arch=sm_90a for
# matmul_tma_bias_gelu; docs/pytorch.md lists the commands). Builds the
# runtime-only library into $BUILD (default build-gpu-torch) with PyTorch's
# C++ ABI, builds one extension from every DIR/*_torch.cpp with
# torch.utils.cpp_extension (ninja, $MAX_JOBS at a time), then runs
# scripts/gpu-torch.py: every operator against PyTorch on random ragged
# inputs, the refusals of bad arguments (a descriptor's too, on CUDA and
# meta tensors), a CUDA graph replay and torch.compile(fullgraph=True) of
# examples/torch/block.py's block, and host microseconds per call beside
# PyTorch (and Triton when it imports); then examples/torch/block.py end to
# end, and again with the GEMM of DIR/bn128 (matmul_tma_bias_gelu compiled
# with --param BLOCK_N=128, beside rmsnorm_bf16) when that folder exists:
# a second, two-file extension, run in a process of its own (the operator
# names are the same). One PASS/FAIL line per check; exits 1 on any
# failure. Logs in $BUILD/logs.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: scripts/gpu-torch.sh DIR (DIR: the *_torch.cpp of tilec --emit=torch)" >&2
  exit 2
fi
dir=$(cd "$1" && pwd)
build=${BUILD:-$root/build-gpu-torch}
logs=$build/logs
mkdir -p "$logs"
python=${PYTHON:-python3}
# The extension and the runtime's static libraries must agree on
# std::string's ABI, which PyTorch's build fixed.
abi=$("$python" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))') || {
  echo "gpu-torch: FAIL: python3 cannot import torch"
  exit 1
}
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-D_GLIBCXX_USE_CXX11_ABI=$abi" >"$logs/configure.log" 2>&1 &&
  cmake --build "$build" --target TilecRuntime TilecSupport TilecChip >"$logs/build.log" 2>&1 || {
  echo "gpu-torch: FAIL: the runtime did not build; see $logs"
  tail -30 "$logs/configure.log" "$logs/build.log"
  exit 1
}
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$build/cubin-cache}
export MAX_JOBS=${MAX_JOBS:-16}
# Unbuffered, with the fault handler: a crash shows where it happened (the
# last PASS line printed is then the last check that finished).
export PYTHONUNBUFFERED=1
"$python" -X faulthandler "$root/scripts/gpu-torch.py" --sources "$dir" \
  --include "$root/include" --lib "$build/lib" \
  --build "$build/extension" 2>&1 | tee "$logs/gpu-torch.log"
rc=${PIPESTATUS[0]}
# The example block end to end (eager, torch.compile, tilec), on the
# extension just built.
if [ -f "$build/extension/tilec_ops.so" ]; then
  "$python" "$root/examples/torch/block.py" \
    --tilec "$build/extension/tilec_ops.so" --label "BLOCK_N=256" 2>&1 |
    tee "$logs/block.log"
  ((PIPESTATUS[0] == 0)) || rc=1
fi
if [ -d "$dir/bn128" ]; then
  "$python" "$root/scripts/gpu-torch.py" --build-only --sources "$dir/bn128" \
    --include "$root/include" --lib "$build/lib" \
    --build "$build/extension-bn128" 2>&1 | tee "$logs/build-bn128.log"
  ((PIPESTATUS[0] == 0)) || rc=1
  if [ -f "$build/extension-bn128/tilec_ops.so" ]; then
    "$python" "$root/examples/torch/block.py" \
      --tilec "$build/extension-bn128/tilec_ops.so" --label "BLOCK_N=128" 2>&1 |
      tee "$logs/block-bn128.log"
    ((PIPESTATUS[0] == 0)) || rc=1
  fi
fi
echo "gpu-torch: $( ((rc == 0)) && echo PASS || echo FAIL) (logs in $logs)"
exit "$rc"
