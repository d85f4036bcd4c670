#!/usr/bin/env bash
# Session 10, GPU call 2 (after scripts/s10/prep-2.sh here; carry
# [".dev/s10b", ".gpu-deps"] and .dev/diff601 if made): (1) the two
# mismatches recompiled with the ptxas workaround and the difftest cases
# (gpu-diff.sh, memcheck); (2) racecheck on the ping-pong forward with
# immediate barrier ids and with register ids (the first build), and on
# scripts/s10/pingpong-race.cu's two kernels; (3) the new ping-pong forward's
# checks, memcheck and synccheck, timed beside the plain n128 forward, the
# old ping-pong and SDPA; ncu sections of one ping-pong launch; (4) the
# 10^4 programs of seed 601 as time allows.
set -u
D=.dev/s10b; O=${OUT:-/tmp/out}; mkdir -p $O/x
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
left() { echo $(( ${BUDGET:-500} - ($(date +%s) - t0) )); }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
echo "== (1) mismatches with the workaround $(el)"
for c in gen_600_5233 gen_600_5066; do
  ( cd $D/mm/$c; $root/$B/bin/tilec-gpu-run $(sed "s/^tilec-gpu-run //" command) 2>&1 | tail -1 | cut -c1-120 )
done
GPU_RUN=$B/bin/tilec-gpu-run LOGS=$O/x/diff timeout 90 scripts/gpu-diff.sh $D/cases > $O/x/gpu-diff.log 2>&1
echo "gpu-diff rc=$?"; grep -E "PASS|FAIL" $O/x/gpu-diff.log | cut -c1-110
echo "== (2) racecheck $(el)"
for d in attn attn_old; do
  timeout 60 $san --tool racecheck --racecheck-report all --print-limit 10 $B/bin/tilec-gpu-tests \
    --kernels $D/$d --only attention_tma_d128_n128_overlap_pingpong --small --exact > $O/x/race-$d.log 2>&1
  echo "$d rc=$? $(grep -h 'RACECHECK SUMMARY' $O/x/race-$d.log)"
done
$nvcc -gencode arch=compute_90a,code=sm_90a -o /tmp/pr $D/race/pingpong-race.cu && timeout 60 $san --tool racecheck \
  --racecheck-report all --print-limit 6 /tmp/pr > $O/x/race-micro.log 2>&1
echo "micro rc=$? $(grep -h 'RACECHECK SUMMARY' $O/x/race-micro.log)"; grep -m4 -E "hazard|Thread" $O/x/race-micro.log
echo "== (3) the ping-pong forward $(el)"
timeout 100 $B/bin/tilec-gpu-tests --kernels $D/attn > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log)"; grep FAIL $O/x/checks.log | head -5
for tool in memcheck synccheck; do
  timeout 60 $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests --kernels $D/attn \
    --only attention_tma_d128_n128_overlap_pingpong --small --exact > $O/x/$tool.log 2>&1
  echo "$tool rc=$? $(grep -h 'ERROR SUMMARY' $O/x/$tool.log)"
done
for r in 1 2; do
  timeout 60 $B/bin/tilec-bench --kernels $D/attn attention_tma > $O/x/bench-new-$r.json 2>> $O/x/bench.err
  timeout 40 $B/bin/tilec-bench --kernels $D/attn_old attention_tma > $O/x/bench-old-$r.json 2>> $O/x/bench.err
done
timeout 60 python3 $D/peers.py attention > $O/x/peers.txt 2>&1
for f in $O/x/bench-*.json $O/x/peers.txt; do echo "-- $(basename $f)"; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][:48]:48} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF {r['system'][:20]} {r['note'][:40]}\")" $f; done
timeout 90 $ncu --kernel-name regex:pingpong --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  --section Occupancy $B/bin/tilec-bench --kernels $D/attn attention_tma > $O/x/ncu.txt 2>&1
echo "ncu rc=$? $(el)"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Issued Ipc|No Eligible|Stall|Warp Cycles Per Issued" $O/x/ncu.txt | head -14
echo "== (4) 10^4 programs of seed 601 (when prepared) $(el)"
if [ -f .dev/diff601/seed601.tar.xz ] && (( $(left) > 60 )); then
  GPU_RUN=$B/bin/tilec-gpu-run TIME_BUDGET=$(( $(left) - 15 )) scripts/gpu-diff-batch.sh .dev/diff601/seed601.tar.xz > $O/x/diff-batch.log 2>&1
  echo "rc=$?"; tail -2 $O/x/diff-batch.log; grep -E "^(FAIL|CRASH)" $O/x/diff-batch.log | head -8
fi
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
