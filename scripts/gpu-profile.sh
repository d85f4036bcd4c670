#!/usr/bin/env bash
# Which bound is each example under? Static analysis here, measurement on
# the GPU machine (docs/analyzer.md, docs/brrr.md).
#
# On the CPU machine (needs build/bin/tilec-analyze):
#   scripts/gpu-profile.sh prepare [DIR]
# analyses every workload of examples/workloads.json into DIR (default
# .gpu-profile): one <workload>.analysis.json each, <kernel>.ptx and .json
# per kernel file, workloads.txt, analysis.txt, roofline-predicted.svg.
#
# On the GPU machine, from the repository root, with DIR carried along:
#   scripts/gpu-profile.sh [run] [DIR]
# builds tilec-profile with -DTILEC_RUNTIME_ONLY=ON (no MLIR there) into
# $BUILD (default build-gpu), checks DIR, measures every workload at every
# analysed point (N, 2N, the sweep) against the measured H200 ceilings
# (examples/devices/h200-measured.json; DEVICE_MODEL=file to change), one
# process per workload (WORKLOAD_TIMEOUT seconds each, default 180), and
# writes into $LOGS (default $BUILD/profile): report.txt, profile.json,
# roofline.svg, sweep-*.svg, the same report against the datasheet in
# datasheet/, and the logs. When $OUT is set, copies the results there
# (report.txt, profile.json, roofline.svg, the add sweep chart, and
# profile.tgz holding everything). QUICK=1 measures N and 2N only.
# Exits 1 if the build failed, DIR is incomplete, or a workload failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
mode=run
if (($#)) && { [ "$1" = prepare ] || [ "$1" = run ]; }; then
  mode=$1
  shift
fi
dir=${1:-$root/.gpu-profile}

if [ "$mode" = prepare ]; then
  analyze=${TILEC_ANALYZE:-$root/build/bin/tilec-analyze}
  [ -x "$analyze" ] || {
    echo "gpu-profile: $analyze not found; build tilec first (scripts/setup.sh)"
    exit 1
  }
  rm -rf "$dir"
  "$analyze" --workloads "$root/examples/workloads.json" -o "$dir" \
    --device h200 >/dev/null || {
    echo "gpu-profile: tilec-analyze failed"
    exit 1
  }
  n=$(wc -l <"$dir/workloads.txt")
  echo "gpu-profile: $n workloads analysed into $dir ($(du -sh "$dir" | cut -f1)):"
  grep -E '^(==|  floor|  2N/N)' "$dir/analysis.txt"
  exit 0
fi

build=${BUILD:-$root/build-gpu}
logs=${LOGS:-$build/profile}
model=${DEVICE_MODEL:-$root/examples/devices/h200-measured.json}
mkdir -p "$logs"
start=$(date +%s)

# The inputs, checked before the build: every analysis listed, every
# kernel file they name.
[ -f "$dir/workloads.txt" ] || {
  echo "gpu-profile: $dir/workloads.txt not found: run 'scripts/gpu-profile.sh prepare' on the CPU machine and carry $dir"
  exit 1
}
missing=0
while read -r f; do
  [ -f "$dir/$f" ] || { echo "gpu-profile: missing $dir/$f"; missing=1; }
  for m in $(grep -o '"module": "[^"]*"' "$dir/$f" | sort -u | cut -d'"' -f4); do
    [ -f "$dir/$m.ptx" ] || [ -f "$dir/$m.cubin" ] || {
      echo "gpu-profile: $dir/$f needs $dir/$m.ptx"
      missing=1
    }
  done
done <"$dir/workloads.txt"
((missing == 0)) || exit 1

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$logs/configure.log" 2>&1 &&
  cmake --build "$build" --target tilec-profile >"$logs/build.log" 2>&1 || {
  echo "gpu-profile: the build failed; see $logs"
  tail -30 "$logs/configure.log" "$logs/build.log"
  exit 1
}
echo "gpu-profile: built in $(($(date +%s) - start)) s"
command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total \
    --format=csv,noheader | tee "$logs/gpu.txt"

export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$build/cubin-cache}
quick=()
[ "${QUICK:-0}" = 1 ] && quick=(--quick)
# One process per workload: a kernel that faults (and so poisons its CUDA
# context) or hangs costs only its own workload. The runs merge below.
rm -rf "$logs/runs"
mkdir -p "$logs/runs"
profiles=()
crashed=()
: >"$logs/profile.log"
i=0
while read -r f; do
  i=$((i + 1))
  run="$logs/runs/$(printf '%02d' "$i")-${f%.analysis.json}"
  timeout "${WORKLOAD_TIMEOUT:-180}" "$build/bin/tilec-profile" "$dir/$f" \
    --out "$run" --device-model "$model" "${quick[@]}" \
    >"$run.out" 2>>"$logs/profile.log"
  wrc=$?
  if [ -s "$run/profile.json" ]; then
    profiles+=("$run/profile.json")
    ((wrc == 0)) || echo "gpu-profile: $f: measured with errors (exit $wrc)"
  else
    crashed+=("$f (exit $wrc)")
    echo "gpu-profile: $f: no result (exit $wrc; see $logs/profile.log)"
  fi
done <"$dir/workloads.txt"
rc=0
if ((${#profiles[@]})); then
  "$build/bin/tilec-profile" --render "${profiles[@]}" --out "$logs" \
    --device-model "$model" || rc=$?
  # The same measurements against the datasheet ceilings.
  "$build/bin/tilec-profile" --render "$logs/profile.json" \
    --out "$logs/datasheet" >/dev/null 2>&1 ||
    echo "gpu-profile: the datasheet rendering failed"
else
  rc=1
fi

# Self-checks: every output there, every workload measured.
failed=()
((rc == 0)) || failed+=("merging the runs failed (exit $rc)")
((${#crashed[@]} == 0)) || failed+=("no result for: ${crashed[*]}")
for f in report.txt profile.json roofline.svg; do
  [ -s "$logs/$f" ] || failed+=("no $f")
done
if [ -s "$logs/report.txt" ] && grep -q 'FAILED\|not measured' "$logs/report.txt"; then
  failed+=("some workloads were not measured (see the notes in report.txt)")
fi
echo "gpu-profile: $(($(date +%s) - start)) s in all"

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$logs"/report.txt "$logs"/profile.json "$logs"/roofline.svg "$OUT"/ 2>/dev/null
  cp "$logs"/sweep-add-fp32-2-28.svg "$OUT"/ 2>/dev/null
  tar czf "$OUT/profile.tgz" -C "$(dirname "$logs")" "$(basename "$logs")"
fi
if ((${#failed[@]})); then
  printf 'gpu-profile: FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "gpu-profile: all workloads measured"
