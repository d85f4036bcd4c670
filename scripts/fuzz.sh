#!/usr/bin/env bash
# The fuzzers of test/Fuzz (issue 17): builds them with Clang (libFuzzer,
# AddressSanitizer, UBSan) in build-fuzz (the MLIR-free readers, a
# runtime-only build) and build-fuzz-mlir (the .tile parser and verifiers,
# with MLIR: only the dialect libraries are built) and runs each on its
# checked-in corpus, test/Fuzz/corpus/NAME.
#
#   scripts/fuzz.sh [--time S] [--runs N] [NAME...]
#
# Default: 15 s per fuzzer (CI's smoke run, about a minute in all). --runs N
# stops each after N executions instead (the long run of docs/development.md).
# New inputs go to a scratch folder, so the corpus does not change; a crash,
# leak or timeout fails the script and leaves the input in
# build-fuzz/artifacts: add it to the corpus as a regression input once fixed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TILEC_FUZZ_BUILD:-$root/build-fuzz}
mlirbuild=${TILEC_FUZZ_MLIR_BUILD:-$root/build-fuzz-mlir}
limit=(-max_total_time=15)
names=()
while (($#)); do
  case "$1" in
    --time) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
((${#names[@]})) || names=(metadata npy argspec device-model parser)
# The folder each fuzzer builds in.
dir_of() { [ "$1" = parser ] && echo "$mlirbuild" || echo "$build"; }

cxx=$(command -v clang++-19 || command -v clang++ || true)
if [ -z "$cxx" ]; then
  echo "fuzz.sh: no clang++ (scripts/setup.sh installs clang-19)" >&2
  exit 1
fi
for name in "${names[@]}"; do
  dir=$(dir_of "$name")
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
  mkdir -p "$bdir/artifacts"
  seeds="$root/test/Fuzz/corpus/$name"
  scratch=$(mktemp -d)
  echo "== tilec-fuzz-$name (${limit[*]}, seeds: $(ls "$seeds" | wc -l))"
  if ! "$bdir/bin/tilec-fuzz-$name" "${limit[@]}" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$bdir/artifacts/$name-" "$scratch" "$seeds" \
      > "$bdir/artifacts/$name.log" 2>&1; then
    status=1
    echo "fuzz.sh: tilec-fuzz-$name FAILED (log: $bdir/artifacts/$name.log)"
    grep -E "ERROR|SUMMARY|Test unit written" "$bdir/artifacts/$name.log" | head -5
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" \
      "$bdir/artifacts/$name.log" | tr -s ' ' | paste -sd' '
  fi
  rm -rf "$scratch"
done
exit $status
