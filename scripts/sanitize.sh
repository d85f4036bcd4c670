#!/usr/bin/env bash
# The MLIR-free part of the suite under AddressSanitizer and UBSan (issue
# 17): the runtime, the AOT generator, lib/Support, the perf model and the
# tuner's runtime side, with their GoogleTest programs (the stand-in driver
# included), built by Clang with -fsanitize=address,undefined and
# -fno-sanitize-recover in build-asan (-DTILEC_RUNTIME_ONLY=ON), then every
# test program run once. Any report fails the script.
#
#   scripts/sanitize.sh
#
# The compiler libraries (MLIR) are not instrumented: MLIR's shared
# libraries are not built with ASan, so the compiler's suite runs only in
# the plain build (scripts/test.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TILEC_ASAN_BUILD:-$root/build-asan}
cxx=$(command -v clang++-19 || command -v clang++ || true)
if [ -z "$cxx" ]; then
  echo "sanitize.sh: no clang++ (scripts/setup.sh installs clang-19)" >&2
  exit 1
fi
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="${cxx/clang++/clang}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=ON > /dev/null
fi
cmake --build "$build"
# alloc_dealloc_mismatch=0: the system GoogleTest (built by GCC, not
# instrumented) frees with free() a string its registration allocated with
# operator new, at the static initialization of RuntimeFakeDriverTests;
# the check stays on for everything else's heap through the leak and
# overflow checks.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:alloc_dealloc_mismatch=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
mapfile -t programs < <(find "$build/test/Unit" -maxdepth 2 -type f -name '*Tests' -perm -u+x | sort)
((${#programs[@]})) || { echo "sanitize.sh: no test programs in $build/test/Unit" >&2; exit 1; }
# FakeDriver.ModulesMayOutliveTheDriverSingleton's child process keeps what
# it frees at exit on purpose (the stand-in driver's quarantine, which makes
# a use after free crash): it runs without the leak check.
quarantine=FakeDriver.ModulesMayOutliveTheDriverSingleton
run() { # program, gtest filter, ASAN_OPTIONS
  (cd "$(dirname "$1")" && ASAN_OPTIONS=$3 "$1" --gtest_brief=1 --gtest_filter="$2")
}
for t in "${programs[@]}"; do
  name=${t#"$build"/test/Unit/}
  if run "$t" "-$quarantine" "$ASAN_OPTIONS" > "$t.log" 2>&1 &&
    run "$t" "$quarantine" "$ASAN_OPTIONS:detect_leaks=0" >> "$t.log" 2>&1; then
    echo "PASS $name ($(grep -Eo '[0-9]+ tests? from' "$t.log" | head -1 | grep -Eo '^[0-9]+') tests)"
  else
    echo "FAIL $name (log: $t.log)"
    tail -30 "$t.log"
    status=1
  fi
done
exit $status
