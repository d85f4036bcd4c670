#!/usr/bin/env bash
# The GEMM tuning sweep on the GPU machine, from the repository root:
#
#   scripts/gpu-tune.sh CANDIDATES_DIR
#
# CANDIDATES_DIR is what `tilec-tune compile --builder matmul -o DIR
# --arch sm_90a` wrote on the CPU machine (docs/tuning.md): the cp.async,
# TMA and split-K families (a split-K candidate is a plan of two kernels,
# launched and checked as one). Builds
# tilec-tune with -DTILEC_RUNTIME_ONLY=ON into $BUILD (default build-gpu),
# then, with an empty cache in $LOGS/tune-cache:
#   1. tunes the 15 LLM shapes of peers.py gemm_sweep in one process (every
#      candidate's C checked at sampled elements against the host): PASS
#      when each shape has a winner, no candidate computed a wrong result,
#      and it took at most 120 s;
#   2. runs again in a second process: PASS when all 15 come from the cache
#      (0 measurements);
#   3. tunes three ragged shapes (edges in every dimension; the last small
#      M with a long K, so that split-K plans run) without the cache, 256
#      elements of C checked per candidate: PASS when no candidate is wrong
#      and a split-K plan was measured;
#   4. runs peers.py gemm_sweep (cuBLAS, Triton) unless PEERS=none, and
#      prints the table (scripts/tune-compare.py): tilec's winner beside
#      them, the ratio to cuBLAS and the geometric mean.
# Environment: PEERS (the path of peers.py; default shared/bench/peers.py,
# ../shared/bench/peers.py or CANDIDATES_DIR/peers.py), BUILD, LOGS (default
# $BUILD/logs): tune-first.json, tune-second.json, tune-ragged.json,
# peers.json, tune-table.md. Exit 1 on any FAIL.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/gpu-env.sh"
build=${BUILD:-$root/build-gpu}
out=${LOGS:-$build/logs}
mkdir -p "$out"
cands=${1:?usage: scripts/gpu-tune.sh CANDIDATES_DIR}
[ -f "$cands/manifest.json" ] || {
  echo "gpu-tune: $cands/manifest.json not found"
  exit 1
}

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON -DTILEC_ENABLE_TESTS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build "$build" --target tilec-tune >"$out/build.log" 2>&1 || {
  echo "gpu-tune: the build failed; see $out"
  tail -30 "$out/build.log"
  exit 1
}
tune=$build/bin/tilec-tune
cache=$out/tune-cache
rm -rf "$cache"
shapes=()
for nk in 4096x4096 14336x4096 4096x14336; do
  for m in 16 128 1024 4096 16384; do
    shapes+=(--gemm "${m}x${nk}")
  done
done
failures=0
check() { # NAME JSON EXPECT_CACHED
  python3 - "$@" <<'PY'
import json, sys
name, path, cached = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
doc = json.load(open(path))
bad = []
for s in doc["shapes"]:
    shape = f'{s["m"]}x{s["n"]}x{s["k"]}'
    if s["winner"] is None:
        bad.append(f"{shape}: no winner")
    if cached and not s["from_cache"]:
        bad.append(f"{shape}: measured again ({s['cache_note'] or 'no cache entry'})")
    for c in s["candidates"]:
        if c["status"] == "failed":
            bad.append(f'{shape}: candidate {c["id"]} {c["params"]}: {c["reason"]}')
print(("PASS " if not bad else "FAIL ") + name + f': {len(doc["shapes"])} shapes'
      + ("" if not bad else "; " + "; ".join(bad[:10])))
sys.exit(1 if bad else 0)
PY
}

echo "== 1. first process: 15 shapes, empty cache"
start=$(date +%s%N)
"$tune" measure "$cands" "${shapes[@]}" --cache-dir "$cache" \
  --json "$out/tune-first.json" | tee "$out/tune-first.log"
rc=${PIPESTATUS[0]}
ms=$((($(date +%s%N) - start) / 1000000))
check "first process (exit $rc)" "$out/tune-first.json" 0 || failures=$((failures + 1))
if ((ms <= 120000)); then
  echo "PASS tuning cost: $ms ms for 15 shapes (limit 120 s)"
else
  echo "FAIL tuning cost: $ms ms for 15 shapes (limit 120 s)"
  failures=$((failures + 1))
fi

echo "== 2. second process: from the cache"
start=$(date +%s%N)
"$tune" measure "$cands" "${shapes[@]}" --cache-dir "$cache" \
  --json "$out/tune-second.json" >"$out/tune-second.log"
ms=$((($(date +%s%N) - start) / 1000000))
check "second process, 0 measurements ($ms ms)" "$out/tune-second.json" 1 ||
  failures=$((failures + 1))

echo "== 3. ragged shapes, every candidate checked"
"$tune" measure "$cands" --gemm 1000x4000x4000 --gemm 77x1040x208 \
  --gemm 77x1040x2000 --no-cache --check-samples 256 \
  --json "$out/tune-ragged.json" >"$out/tune-ragged.log"
check "ragged shapes" "$out/tune-ragged.json" 0 || failures=$((failures + 1))
python3 - "$out/tune-ragged.json" <<'PY' || failures=$((failures + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
split = [c for s in doc["shapes"] for c in s["candidates"]
         if c["status"] == "ok" and c["params"].get("SPLIT_K", 1) > 1]
tma = [c for s in doc["shapes"] for c in s["candidates"]
       if c["status"] == "ok" and c["params"].get("TMA", 0) == 1]
ok = bool(split) or not any(
    c["params"].get("SPLIT_K", 1) > 1 for s in doc["shapes"] for c in s["candidates"])
print(("PASS" if ok else "FAIL") +
      f" ragged plans: {len(split)} split-K and {len(tma)} TMA measurements checked correct")
sys.exit(0 if ok else 1)
PY

echo "== winners by family (first process)"
python3 - "$out/tune-first.json" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["shapes"]:
    w = s["winner"]
    if not w:
        continue
    p = w["params"]
    kind = ("split-K x%d" % p["SPLIT_K"] if p.get("SPLIT_K", 1) > 1 else
            "TMA" if p.get("TMA", 0) == 1 else "cp.async")
    skipped = sum(c["status"] == "skipped" for c in s["candidates"])
    measured = sum(c["status"] == "ok" for c in s["candidates"])
    print(f'  {s["m"]}x{s["n"]}x{s["k"]}: {kind}, {w["median_ms"]:.4f} ms '
          f'({measured} measured, {skipped} skipped for the shape)')
PY

peers=${PEERS:-}
if [ -z "$peers" ]; then
  for p in "$root/shared/bench/peers.py" "$root/../shared/bench/peers.py" \
    "$cands/peers.py"; do
    [ -f "$p" ] && peers=$p && break
  done
fi
if [ "$peers" != none ] && [ -n "$peers" ]; then
  echo "== 4. peers.py gemm_sweep"
  OUT=$out python3 "$peers" gemm_sweep >"$out/peers.log" 2>&1 ||
    echo "gpu-tune: peers.py failed (see $out/peers.log)"
fi
python3 "$root/scripts/tune-compare.py" "$out/tune-first.json" \
  "$out/peers.json" | tee "$out/tune-table.md"
echo "gpu-tune: $failures failure(s); logs in $out"
((failures == 0))
