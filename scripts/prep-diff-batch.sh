#!/usr/bin/env bash
# Here (MLIR, the interpreter): the archive of a differential campaign on the
# GPU machine, from the repository root:
#
#   scripts/prep-diff-batch.sh SEED COUNT ARCHIVE [FIRST]
#
# Generates programs FIRST.. FIRST+COUNT-1 (default FIRST 0) of SEED with
# scripts/gen-tile-programs.py, compiles and runs each in the interpreter with
# scripts/make-gpu-cases.py ($JOBS at a time, default all cores; tools of
# $BUILD, default build), and packs the cases with scripts/diff-batch.py into
# ARCHIVE (.tar.xz; the inputs are left out, the GPU machine makes them
# again). Prints the archive's size and the time each step took. A program
# that could not be made (a compiler or interpreter failure is a finding) is
# named, its message kept in ARCHIVE.errors, the archive holds the others,
# and the exit status is 1. Then, on the GPU machine:
# scripts/gpu-diff-batch.sh ARCHIVE (carry the archive's folder and
# .gpu-deps; docs/development.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if (($# < 3 || $# > 4)) || ! [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ && ${4:-0} =~ ^[0-9]+$ ]] ||
  (($2 == 0)); then
  echo "usage: scripts/prep-diff-batch.sh SEED COUNT ARCHIVE [FIRST] (COUNT > 0)" >&2
  exit 2
fi
seed=$1 count=$2 first=${4:-0}
archive=$(mkdir -p "$(dirname "$3")" && cd "$(dirname "$3")" && pwd)/$(basename "$3")
build=$(cd "${BUILD:-$root/build}" 2>/dev/null && pwd) || {
  echo "prep-diff-batch: error: no build folder ${BUILD:-$root/build} (scripts/setup.sh makes it)" >&2
  exit 1
}
jobs=${JOBS:-$(nproc)}
rm -f "$archive.errors"
work=$(mktemp -d "${TMPDIR:-/tmp}/prep-diff-batch.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$SECONDS

python3 "$root/scripts/gen-tile-programs.py" gen --seed "$seed" --first "$first" \
  --count "$count" -o "$work" >/dev/null
generated=$SECONDS
status=0
python3 "$root/scripts/make-gpu-cases.py" --build "$build" --jobs "$jobs" \
  --cases "$work/cases.txt" -o "$work/cases" >"$work/make.log" 2>"$work/make.err" || status=$?
made=$SECONDS
unmade=$(grep -c '^make-gpu-cases: error: .*: case ' "$work/make.err" || true)
if ((status != 0)); then
  if ((unmade == 0)); then
    echo "prep-diff-batch: error: make-gpu-cases.py failed:" >&2
    cat "$work/make.err" >&2
    exit 1
  fi
  cp "$work/make.err" "$archive.errors"
  echo "prep-diff-batch: $unmade programs could not be made here (a compiler or interpreter" \
    "failure is a finding); their messages are in $archive.errors:"
  grep '^make-gpu-cases: error: .*: case ' "$work/make.err" | head -10 | sed 's/^/    /'
fi
python3 "$root/scripts/diff-batch.py" pack --cases "$work/cases" -o "$archive"
bytes=$(stat -c %s "$archive")
echo "prep-diff-batch: seed $seed, programs $first..$((first + count - 1)):" \
  "$((count - unmade)) cases in $archive, $(awk -v b="$bytes" -v n=$((count - unmade)) \
  'BEGIN { printf "%.2f MiB, %.2f KiB a case", b / 1048576, b / 1024 / n }')" \
  "($((SECONDS - start)) s: generating $((generated - start)) s, compiling and" \
  "interpreting $((made - generated)) s on $jobs jobs, packing $((SECONDS - made)) s)"
((unmade == 0)) || exit 1
