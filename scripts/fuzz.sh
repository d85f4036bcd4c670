#!/usr/bin/env bash
# The fuzzers of test/Fuzz (issue 17): builds them with Clang (libFuzzer,
# AddressSanitizer, UBSan) in build-fuzz (the MLIR-free readers, a
# runtime-only build) and build-fuzz-mlir (the .tile parser and verifiers,
# with MLIR: only the dialect libraries are built) and runs each on its
# checked-in corpus, test/Fuzz/corpus/NAME. The whole pipeline to PTX
# (`pipeline`) runs on the standalone driver of the regular build (build,
# which scripts/test.sh made: no second build of the compiler), each input
# in a forked child with a time and memory budget.
#
#   scripts/fuzz.sh [--time S] [--runs N] [--instrumented] [NAME...]
#
# Default: 10 s per fuzzer and 15 s for the pipeline (CI's smoke run, about
# a minute in all). --runs N stops each after N executions instead (the
# long run of docs/development.md). --instrumented builds the pipeline
# target with libFuzzer and the sanitizers in build-fuzz-mlir instead (the
# whole compiler instrumented: a long build, for coverage-guided runs).
# New inputs go to a scratch folder, so the corpus does not change; a crash,
# leak, timeout or budget overrun fails the script and leaves the input in
# the build's fuzz-artifacts (build-fuzz/artifacts for the libFuzzer
# targets): add it to the corpus as a regression input once fixed
# (regress-* in test/Fuzz/corpus/pipeline).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TILEC_FUZZ_BUILD:-$root/build-fuzz}
mlirbuild=${TILEC_FUZZ_MLIR_BUILD:-$root/build-fuzz-mlir}
# The regular build, whose tilec-fuzz-pipeline runs on the standalone driver.
mainbuild=${TILEC_BUILD:-$root/build}
limit=() pipelimit=()
instrumented=0
names=()
while (($#)); do
  case "$1" in
    --time) limit=(-max_total_time="$2"); pipelimit=("${limit[@]}"); shift 2 ;;
    --runs) limit=(-runs="$2"); pipelimit=("${limit[@]}"); shift 2 ;;
    --instrumented) instrumented=1; shift ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
((${#limit[@]})) || limit=(-max_total_time=10)
((${#pipelimit[@]})) || pipelimit=(-max_total_time=15)
((${#names[@]})) || names=(metadata npy argspec device-model parser pipeline)
# The folder each fuzzer builds in.
dir_of() {
  case "$1" in
    parser) echo "$mlirbuild" ;;
    pipeline) ((instrumented)) && echo "$mlirbuild" || echo "$mainbuild" ;;
    *) echo "$build" ;;
  esac
}
# Whether a fuzzer runs on the standalone driver (test/Fuzz/FuzzDriver.cpp).
standalone() { [ "$1" = pipeline ] && ((!instrumented)); }

cxx=$(command -v clang++-19 || command -v clang++ || true)
for name in "${names[@]}"; do
  dir=$(dir_of "$name")
  if standalone "$name"; then
    if [ ! -f "$dir/build.ninja" ]; then
      echo "fuzz.sh: no build in $dir (scripts/test.sh makes it)" >&2
      exit 1
    fi
    cmake --build "$dir" --target "tilec-fuzz-$name"
    continue
  fi
  if [ -z "$cxx" ]; then
    echo "fuzz.sh: no clang++ (scripts/setup.sh installs clang-19)" >&2
    exit 1
  fi
  if [ ! -f "$dir/build.ninja" ]; then
    if [ "$dir" = "$mlirbuild" ]; then
      config=(-DTILEC_RUNTIME_ONLY=OFF
              -DMLIR_DIR=${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir})
    else
      config=(-DTILEC_RUNTIME_ONLY=ON)
    fi
    cmake -G Ninja -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER="${cxx/clang++/clang}" -DCMAKE_CXX_COMPILER="$cxx" \
      "${config[@]}" -DTILEC_ENABLE_TESTS=OFF -DTILEC_FUZZ=ON > /dev/null
  fi
  cmake --build "$dir" --target "tilec-fuzz-$name"
done

status=0
for name in "${names[@]}"; do
  bdir=$(dir_of "$name")
  art="$bdir/artifacts"
  seeds="$root/test/Fuzz/corpus/$name"
  scratch=$(mktemp -d)
  if [ "$name" = pipeline ]; then
    # 30 s an input, not 10: a kernel within tilec's budgets can still take
    # LLVM's code generation seconds, tens on a busy machine
    # (docs/development.md, "The pipeline to PTX").
    opts=(-timeout=30 "${pipelimit[@]}")
  else
    opts=(-timeout=10 "${limit[@]}")
  fi
  if standalone "$name"; then
    # The driver keeps its mutants in memory (no scratch folder); two
    # children at a time, on CI's two cores.
    art="$bdir/fuzz-artifacts"
    opts+=(-workers=2)
    run=("${opts[@]}" "$seeds")
  else
    run=("${opts[@]}" "$scratch" "$seeds")
  fi
  mkdir -p "$art"
  echo "== tilec-fuzz-$name (${opts[*]}, seeds: $(ls "$seeds" | wc -l))"
  if ! "$bdir/bin/tilec-fuzz-$name" "${run[@]}" -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$art/$name-" \
      > "$art/$name.log" 2>&1; then
    status=1
    echo "fuzz.sh: tilec-fuzz-$name FAILED (log: $art/$name.log)"
    grep -E "ERROR|SUMMARY|Test unit written|^FINDING|^  |^FAILED" \
      "$art/$name.log" | head -8
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" \
      "$art/$name.log" | tr -s ' ' | paste -sd' '
  fi
  rm -rf "$scratch"
done
exit $status
