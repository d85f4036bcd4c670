#!/usr/bin/env bash
# The fuzzers of test/Fuzz (issue 17): builds them with Clang (libFuzzer,
# AddressSanitizer, UBSan) in build-fuzz and runs each on its checked-in
# corpus, test/Fuzz/corpus/NAME.
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
((${#names[@]})) || names=(metadata npy argspec device-model)

cxx=$(command -v clang++-19 || command -v clang++ || true)
if [ -z "$cxx" ]; then
  echo "fuzz.sh: no clang++ (scripts/setup.sh installs clang-19)" >&2
  exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="${cxx/clang++/clang}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF -DTILEC_FUZZ=ON > /dev/null
fi
cmake --build "$build" --target "${names[@]/#/tilec-fuzz-}"

mkdir -p "$build/artifacts"
status=0
for name in "${names[@]}"; do
  seeds="$root/test/Fuzz/corpus/$name"
  scratch=$(mktemp -d)
  echo "== tilec-fuzz-$name (${limit[*]}, seeds: $(ls "$seeds" | wc -l))"
  if ! "$build/bin/tilec-fuzz-$name" "${limit[@]}" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$name-" "$scratch" "$seeds" \
      > "$build/artifacts/$name.log" 2>&1; then
    status=1
    echo "fuzz.sh: tilec-fuzz-$name FAILED (log: $build/artifacts/$name.log)"
    grep -E "ERROR|SUMMARY|Test unit written" "$build/artifacts/$name.log" | head -5
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" \
      "$build/artifacts/$name.log" | tr -s ' ' | paste -sd' '
  fi
  rm -rf "$scratch"
done
exit $status
