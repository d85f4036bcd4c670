#!/usr/bin/env bash
# Session 11, GPU call 3 (after scripts/s11/prep-3.sh here; carry
# [".dev/s11c", ".gpu-deps"]): (1) the ping-pong forward with the balancing
# barrier under racecheck, memcheck and synccheck, and every forward's
# checks; (2) the five forwards timed twice beside the ftz variant and SDPA;
# (3) ncu of one ping-pong launch: sections and per-instruction stall
# samples (source page, SASS).
set -u
D=.dev/s11c; O=${OUT:-/tmp/out}; mkdir -p $O/x
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
k=attention_tma_d128_n128_overlap_pingpong
echo "== (1) sanitizers and checks $(el)"
timeout 60 $san --tool racecheck --racecheck-report all --print-limit 4 $B/bin/tilec-gpu-tests \
  --kernels $D/attn --only $k --small --exact > $O/x/race.log 2>&1
echo "racecheck rc=$? $(grep -h 'RACECHECK SUMMARY' $O/x/race.log) $(grep -h 'passed,' $O/x/race.log)"
grep -m3 -E "hazard detected|Thread \(" $O/x/race.log
for tool in memcheck synccheck; do
  timeout 60 $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests --kernels $D/attn \
    --only $k --small --exact > $O/x/$tool.log 2>&1
  echo "$tool rc=$? $(grep -h 'ERROR SUMMARY' $O/x/$tool.log)"
done
for f in attn ftz; do
  timeout 100 $B/bin/tilec-gpu-tests --kernels $D/$f > $O/x/checks-$f.log 2>&1
  echo "checks $f rc=$? pass=$(grep -c PASS $O/x/checks-$f.log) fail=$(grep -c FAIL $O/x/checks-$f.log)"
  grep FAIL $O/x/checks-$f.log | head -5
done
echo "== (2) timing $(el)"
for r in 1 2; do
  for f in attn ftz; do
    timeout 60 $B/bin/tilec-bench --kernels $D/$f attention_tma > $O/x/bench-$f-$r.json 2>> $O/x/bench.err
  done
done
timeout 60 python3 $D/peers.py attention > $O/x/peers.txt 2>&1
for f in $O/x/bench-*.json $O/x/peers.txt; do echo "-- $(basename $f)"; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][:48]:48} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF {r['system'][:20]} {r['note'][:44]}\")" $f; done
echo "== (3) ncu $(el)"
timeout 200 $ncu --kernel-name regex:pingpong --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters \
  -o $O/x/pp $B/bin/tilec-bench --kernels $D/attn attention_tma > $O/x/ncu-run.log 2>&1
echo "ncu rc=$? $(el)"; tail -3 $O/x/ncu-run.log
$ncu -i $O/x/pp.ncu-rep --print-details all > $O/x/ncu.txt 2>&1
$ncu -i $O/x/pp.ncu-rep --page source --csv --print-source sass > $O/x/src.csv 2>&1
echo "src.csv $(wc -l < $O/x/src.csv) lines"
grep -E "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Stall|Tensor|Block Limit|Registers Per" $O/x/ncu.txt | head -40
rm -f $O/x/pp.ncu-rep
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
