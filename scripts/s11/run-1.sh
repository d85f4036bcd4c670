#!/usr/bin/env bash
# Session 11, GPU call 1 (after scripts/s11/prep-1.sh here; carry
# [".dev/s11", ".gpu-deps"]): racecheck on the ping-pong forward's barrier
# variants and on the plain overlap forward, each with its checks' verdict.
set -u
D=.dev/s11; O=${OUT:-/tmp/out}; mkdir -p $O/x
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
for v in v0 noturn syncturn epi5 q5 plain; do
  k=attention_tma_d128_n128_overlap_pingpong; [ $v = plain ] && k=attention_tma_d128_n128_overlap
  timeout 100 $san --tool racecheck --racecheck-report all --print-limit 4 $B/bin/tilec-gpu-tests \
    --kernels $D/$v --only $k --small --exact > $O/x/race-$v.log 2>&1
  echo "$v rc=$? $(grep -h 'RACECHECK SUMMARY' $O/x/race-$v.log) $(grep -h 'passed,' $O/x/race-$v.log) $(el)"
  grep -m3 -E "hazard detected|Thread \(" $O/x/race-$v.log
done
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
