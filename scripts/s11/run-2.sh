#!/usr/bin/env bash
# Session 11, GPU call 2 (after scripts/s11/prep-1.sh and
# scripts/prep-diff-batch.sh 601 10000 .dev/diff601/seed601.tar.xz here;
# carry [".dev/s11", ".dev/diff601", ".gpu-deps"]): (1) racecheck on the
# ping-pong forward as compiled and with the balancing variants bal and bal2
# (scripts/s11/prep-1.sh says what each is), and on the microtest
# scripts/s11/pingpong-race2.cu's four variants; (2) the 10^4 generated
# programs of seed 601 against the interpreter.
set -u
D=.dev/s11; O=${OUT:-/tmp/out}; mkdir -p $O/x
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
left() { echo $(( ${BUDGET:-420} - ($(date +%s) - t0) )); }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
echo "== (1) racecheck $(el)"
k=attention_tma_d128_n128_overlap_pingpong
for v in v0 bal bal2; do
  timeout 60 $san --tool racecheck --racecheck-report all --print-limit 4 $B/bin/tilec-gpu-tests \
    --kernels $D/$v --only $k --small --exact > $O/x/race-$v.log 2>&1
  echo "$v rc=$? $(grep -h 'RACECHECK SUMMARY' $O/x/race-$v.log) $(grep -h 'passed,' $O/x/race-$v.log) $(el)"
  grep -m3 -E "hazard detected|Thread \(" $O/x/race-$v.log
done
for v in bal bal2; do
  timeout 60 $san --tool synccheck --error-exitcode 3 $B/bin/tilec-gpu-tests --kernels $D/$v \
    --only $k --small --exact > $O/x/sync-$v.log 2>&1
  echo "synccheck $v rc=$? $(grep -h 'ERROR SUMMARY' $O/x/sync-$v.log)"
done
$nvcc -gencode arch=compute_90a,code=sm_90a -o /tmp/pr2 $D/race/pingpong-race2.cu || exit 1
for v in 0 1 2 3; do
  timeout 60 $san --tool racecheck --racecheck-report all --print-limit 4 /tmp/pr2 $v > $O/x/micro-$v.log 2>&1
  echo "micro $v rc=$? $(grep -h 'RACECHECK SUMMARY' $O/x/micro-$v.log)"; grep -m2 -E "Thread \(" $O/x/micro-$v.log
done
echo "== (2) 10^4 programs of seed 601 $(el)"
if [ -f .dev/diff601/seed601.tar.xz ] && (( $(left) > 60 )); then
  GPU_RUN=$B/bin/tilec-gpu-run TIME_BUDGET=$(( $(left) - 15 )) scripts/gpu-diff-batch.sh .dev/diff601/seed601.tar.xz > $O/x/diff-batch.log 2>&1
  echo "rc=$?"; tail -2 $O/x/diff-batch.log; grep -E "^(FAIL|CRASH)" $O/x/diff-batch.log | head -8
fi
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
