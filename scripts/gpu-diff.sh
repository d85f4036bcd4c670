#!/usr/bin/env bash
# Differential GPU tests, on the GPU machine, from the repository root:
#
#   scripts/gpu-diff.sh CASES_DIR
#
# CASES_DIR is what scripts/make-gpu-cases.py wrote on the CPU machine: one
# folder per case with the kernel's PTX and metadata, its inputs, the CPU
# interpreter's results and a one-line `command` (docs/runtime.md). This
# builds tilec-gpu-run with -DTILEC_RUNTIME_ONLY=ON into $BUILD (default
# build-gpu; or uses $GPU_RUN, a tilec-gpu-run already built), runs every
# case's command in its folder and prints one line per case (PASS/FAIL and
# the error against the interpreter; a kernel that prints must print the
# interpreter's lines, prints.expected, in any order), then runs every case again under
# compute-sanitizer (buffers without guards, so that any access out of
# bounds is the sanitizer's to see) for each tool in $SANITIZER_TOOLS
# (default memcheck; empty for none). $JOBS cases run at a time (default 4).
# Logs go to $LOGS (default $BUILD/logs/diff). Exits 1 if a case failed or a
# sanitizer reported an error.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
logs=${LOGS:-$build/logs/diff}
jobs=${JOBS:-4}
tools=${SANITIZER_TOOLS-memcheck}
if (($# != 1)) || [ ! -d "$1" ]; then
  echo "usage: scripts/gpu-diff.sh CASES_DIR (made by scripts/make-gpu-cases.py)" >&2
  exit 2
fi
cases_dir=$(cd "$1" && pwd)
mkdir -p "$logs"
start=$SECONDS

bin=${GPU_RUN:-}
if [ -z "$bin" ]; then
  bin=$build/bin/tilec-gpu-run
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$logs/configure.log" 2>&1 &&
    cmake --build "$build" --target tilec-gpu-run >"$logs/build.log" 2>&1 || {
    echo "gpu-diff: the build failed; see $logs"
    tail -30 "$logs/configure.log" "$logs/build.log"
    exit 1
  }
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$build/cubin-cache}

cases=()
for dir in "$cases_dir"/*/; do
  cases+=("$(basename "$dir")")
done
if ((${#cases[@]} == 0)); then
  echo "gpu-diff: no cases in $cases_dir"
  exit 1
fi
echo "gpu-diff: ${#cases[@]} cases from $cases_dir (built in $((SECONDS - start)) s)"

# run_case TOOL CASE: runs CASE's command (TOOL: plain or a sanitizer tool)
# and writes its one-line verdict to $logs/CASE.TOOL.result.
run_case() {
  local tool=$1 name=$2 dir=$cases_dir/$2 log=$logs/$2.$1.log words rc
  local result=$logs/$2.$1.result
  if ! read -ra words <"$dir/command" 2>/dev/null || ((${#words[@]} < 2)); then
    echo "FAIL $name: no command in $dir" >"$result"
    return
  fi
  if [ "$tool" = plain ]; then
    (cd "$dir" && "$bin" "${words[@]:1}") >"$log" 2>&1
  else
    (cd "$dir" && "$sanitizer" --tool "$tool" --error-exitcode 3 \
      --print-limit 20 "$bin" "${words[@]:1}" --no-guard) >"$log" 2>&1
  fi
  rc=$?
  # A kernel that prints: its lines (in any order) must be the interpreter's.
  if [ "$tool" = plain ] && ((rc == 0)) && [ -f "$dir/prints.expected" ]; then
    grep -a '^pid (' "$log" | LC_ALL=C sort >"$logs/$2.prints"
    if ! LC_ALL=C sort "$dir/prints.expected" | cmp -s - "$logs/$2.prints"; then
      echo "FAIL $name: tile.print lines differ from the interpreter's" \
        "($(wc -l <"$logs/$2.prints") vs $(wc -l <"$dir/prints.expected");" \
        "diff: $(LC_ALL=C sort "$dir/prints.expected" |
          diff - "$logs/$2.prints" | grep -m2 '^[<>]' | tr '\n' ' '))" >"$result"
      return
    fi
  fi
  # The tool's last line: "tilec-gpu-run: PASS: kernel k, grid (...): errors".
  local last
  last=$(grep -a '^tilec-gpu-run: \(PASS\|FAIL\|error\)' "$log" | tail -1)
  local what=${last#tilec-gpu-run: }
  what=${what#PASS: }
  what=${what#FAIL: }
  if ((rc == 0)); then
    local printed=""
    [ -f "$dir/prints.expected" ] && [ "$tool" = plain ] &&
      printed=" (+ $(wc -l <"$dir/prints.expected") print lines as the interpreter's)"
    echo "PASS $name: $what$printed" >"$result"
  elif ((rc == 3)); then
    echo "FAIL $name ($tool found errors): $(grep -a -m1 -E \
      '^=========  *(Invalid|Race|Uninitialized|Barrier|Program hit|ERROR SUMMARY)' \
      "$log")" >"$result"
  else
    echo "FAIL $name (exit $rc): $what" >"$result"
    grep -av '^tilec-gpu-run: \(PASS\|FAIL\)' "$log" | grep -avxF -e "$last" |
      head -6 | sed 's/^/    /' >>"$result"
  fi
}

# run_all TOOL: every case, $jobs at a time; prints the verdicts in order
# and returns the number of failures.
run_all() {
  local tool=$1 name running=0 failures=0
  for name in "${cases[@]}"; do
    run_case "$tool" "$name" &
    if ((++running >= jobs)); then
      wait -n
      ((running--))
    fi
  done
  wait
  for name in "${cases[@]}"; do
    cat "$logs/$name.$tool.result"
    grep -q '^PASS' "$logs/$name.$tool.result" || ((failures++))
  done
  return "$failures"
}

summary=()
failed=0
echo "== tilec-gpu-run against the interpreter"
run_all plain
n=$?
summary+=("results: $((${#cases[@]} - n))/${#cases[@]} passed")
failed=$((failed + n))

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in $tools; do
  if [ ! -x "$sanitizer" ]; then
    echo "gpu-diff: compute-sanitizer not found: $tool skipped"
    summary+=("$tool: not run (no compute-sanitizer)")
    failed=$((failed + 1))
    continue
  fi
  echo "== compute-sanitizer --tool $tool"
  run_all "$tool"
  n=$?
  summary+=("$tool: $((${#cases[@]} - n))/${#cases[@]} clean")
  failed=$((failed + n))
done

echo "gpu-diff: $(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g') ($((SECONDS - start)) s; logs in $logs)"
((failed == 0)) || exit 1
