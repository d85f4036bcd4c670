#!/usr/bin/env bash
# The GPU tests, on the GPU machine, from the repository root:
#
#   scripts/gpu-test.sh [KERNELS_DIR]
#
# KERNELS_DIR holds <name>.ptx (or .cubin) and <name>.json for each kernel of
# examples/*.tile (add coscos bias_gelu softmax layernorm rmsnorm matmul), as
# `tilec examples/<name>.tile --emit=ptx -o DIR/<name>.ptx` writes them.
# Without it, the nvcc fixture kernels of test/GPU/fixtures stand in.
#
# Builds with -DTILEC_RUNTIME_ONLY=ON (no MLIR there) into $BUILD (default
# build-gpu), then runs, continuing past failures:
#   1. tilec-runtime-gpu-tests: the runtime's own checks and measurements;
#   2. tilec-gpu-tests: every example kernel against host references;
#   3. tilec-aot-example: a program built on an AOT header of KERNELS_DIR's
#      softmax;
#   4. tilec-gpu-tests --small --exact under compute-sanitizer, once per tool
#      in $SANITIZER_TOOLS (default: memcheck racecheck synccheck initcheck).
# Logs go to $LOGS (default $BUILD/logs). Exits 1 if any step failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
logs=${LOGS:-$build/logs}
tools=${SANITIZER_TOOLS:-memcheck racecheck synccheck initcheck}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p "$logs"
kernels_arg=${1:-}
if [ -n "$kernels_arg" ]; then
  kernels_arg=$(cd "$kernels_arg" && pwd) || exit 1
fi

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF \
  -DTILEC_AOT_EXAMPLE_KERNELS="$kernels_arg" >"$logs/configure.log" 2>&1 &&
  cmake --build "$build" >"$logs/build.log" 2>&1 || {
  echo "gpu-test: the build failed; see $logs"
  tail -30 "$logs/configure.log" "$logs/build.log"
  exit 1
}
fixtures=$build/test/GPU/fixtures
kernels=${kernels_arg:-$fixtures}
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$build/cubin-cache}

failed=()
step() { # step NAME COMMAND...: runs, logs, records a failure
  local name=$1
  shift
  echo "== $name: $*"
  "$@" 2>&1 | tee "$logs/$name.log"
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || failed+=("$name (exit $rc)")
}

step runtime "$build/bin/tilec-runtime-gpu-tests" --fixtures "$fixtures" \
  --json "$logs/runtime-measurements.json"
step examples "$build/bin/tilec-gpu-tests" --kernels "$kernels"
step aot-example "$build/bin/tilec-aot-example"
for tool in $tools; do
  step "sanitizer-$tool" "$sanitizer" --tool "$tool" --error-exitcode 3 \
    "$build/bin/tilec-gpu-tests" --kernels "$kernels" --small --exact
done

if ((${#failed[@]})); then
  echo "gpu-test: FAILED: ${failed[*]}"
  exit 1
fi
echo "gpu-test: all passed"
