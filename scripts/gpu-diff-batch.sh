#!/usr/bin/env bash
# Differential GPU tests by the thousand, on the GPU machine, from the
# repository root, in one call:
#
#   scripts/gpu-diff-batch.sh ARCHIVE
#
# ARCHIVE is what scripts/prep-diff-batch.sh (or scripts/diff-batch.py pack)
# made on the CPU machine. This builds tilec-gpu-run with
# -DTILEC_RUNTIME_ONLY=ON into $BUILD (default build-gpu; or uses $GPU_RUN, a
# tilec-gpu-run already built), unpacks ARCHIVE into $WORK (default
# /tmp/tilec-diff-batch; the generated programs' inputs are made again there
# and checked against the hashes of those the interpreter ran), and runs
# every case with `tilec-gpu-run --batch`: $JOBS processes at a time (default
# all cores), each on one context over a chunk of cases ($CHUNK, default at
# most 100, smaller for fewer cases), one PASS/FAIL/CRASH
# line per case (scripts/diff-batch.py run). A case whose kernel faults or
# runs past $CASE_TIMEOUT seconds (default 60) is CRASH, and a new process
# goes on after it. Everything stops $TIME_BUDGET seconds (default 540) after
# the start; the cases left are "not run". Logs go to $LOGS (default
# $WORK/logs): verdicts.txt, the failing cases' folders. Where $OUT is set
# (the GPU machine's folder of files to bring back), verdicts.txt and the
# failing cases (failed-cases.tar.xz) are copied there. The last line:
#   gpu-diff-batch: N passed, M failed, K crashed[, L not run] in T s (...)
# Exits 0 if every case passed, else 1.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
start=$SECONDS
if (($# != 1)) || [ ! -f "$1" ]; then
  echo "usage: scripts/gpu-diff-batch.sh ARCHIVE (made by scripts/prep-diff-batch.sh)" >&2
  exit 2
fi
archive=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
build=${BUILD:-$root/build-gpu}
work=${WORK:-/tmp/tilec-diff-batch}
logs=${LOGS:-$work/logs}
jobs=${JOBS:-$(nproc)}
budget=${TIME_BUDGET:-540}
case_timeout=${CASE_TIMEOUT:-60}
mkdir -p "$work" "$logs"

# not_run WHY: the summary line of a campaign that could not start.
not_run() {
  echo "gpu-diff-batch: not run: $1 ($((SECONDS - start)) s)"
  exit 1
}

bin=${GPU_RUN:-}
if [ -z "$bin" ]; then
  bin=$build/bin/tilec-gpu-run
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$logs/configure.log" 2>&1 &&
    cmake --build "$build" --target tilec-gpu-run >"$logs/build.log" 2>&1 || {
    tail -30 "$logs/configure.log" "$logs/build.log"
    not_run "the build failed; see $logs"
  }
fi
[ -x "$bin" ] || not_run "no tilec-gpu-run at $bin"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
built=$SECONDS
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$build/cubin-cache}

python3 "$root/scripts/diff-batch.py" unpack "$archive" -o "$work/batch" --jobs "$jobs" ||
  not_run "$archive could not be unpacked"
unpacked=$SECONDS
# What is left of the budget, less a margin for the summary.
left=$((budget - (SECONDS - start) - 10))
((left > 0)) || not_run "the $budget s budget went on the build and the unpacking"
python3 "$root/scripts/diff-batch.py" run "$work/batch" --gpu-run "$bin" \
  --jobs "$jobs" --chunk "${CHUNK:-0}" --case-timeout "$case_timeout" \
  --budget "$left" --logs "$logs"
rc=$?
ran=$SECONDS
read -r passed failed crashed notrun <"$logs/counts.txt" 2>/dev/null ||
  not_run "diff-batch.py run failed (exit $rc)"

if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  cp "$logs/verdicts.txt" "$OUT/"
  if [ -d "$logs/failed" ] && [ -n "$(ls -A "$logs/failed")" ]; then
    tar -C "$logs" -cJf "$OUT/failed-cases.tar.xz" failed
  fi
fi
summary="$passed passed, $failed failed, $crashed crashed"
((notrun == 0)) || summary+=", $notrun not run"
echo "gpu-diff-batch: $summary in $((SECONDS - start)) s (build $((built - start)) s," \
  "unpack $((unpacked - built)) s, run $((ran - unpacked)) s; logs in $logs)"
((rc == 0)) || exit 1
