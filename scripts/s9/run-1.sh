#!/usr/bin/env bash
# Session 9, GPU call 1 (after scripts/s9/prep-1.sh here; carry [".dev/s9",
# ".gpu-deps"]): the overlapped and ping-pong attention forwards and the
# tf32 matmul against the float64 reference and under memcheck, racecheck
# and synccheck; the five descriptor forwards beside SDPA and the tf32
# matmul beside cuBLAS and Triton; then as many of the 10^4 generated
# programs of seed 600 (scripts/prep-diff-batch.sh 600 10000
# .dev/diff600/seed600.tar.xz here; carry .dev/diff600 too) as time allows.
set -u
D=.dev/s9; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
left() { echo $(( 250 - ($(date +%s) - t0) )); }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/configure.log 2>&1 &&
  cmake --build $B > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built $(el)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T="attention_tma_d128_overlap,attention_tma_d128_n128_overlap,attention_tma_d128_n128_overlap_pingpong"
echo "== checks $(el)"
timeout 100 $B/bin/tilec-gpu-tests --kernels $D/attn --only $T > $O/checks.log 2>&1
echo "attn rc=$? pass=$(grep -c PASS $O/checks.log) fail=$(grep -c FAIL $O/checks.log) $(el)"
grep -E "FAIL|rror" $O/checks.log | head -6
timeout 60 $B/bin/tilec-gpu-tests --kernels $D/tf32 --only matmul_tf32 > $O/tf32.log 2>&1
echo "tf32 rc=$? $(el)"; grep -E "PASS|FAIL|rror" $O/tf32.log | cut -c1-110 | head -8
timeout 60 $B/bin/tilec-gpu-tests --kernels $D/k90a --only matmul_tma_swiglu,matmul_tma_f16out > $O/swiglu.log 2>&1
echo "swiglu rc=$? $(el)"; grep -E "PASS|FAIL|rror" $O/swiglu.log | cut -c1-110 | head -8
for tool in memcheck racecheck synccheck; do
  timeout 50 $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests \
    --kernels $D/attn --only $T --small --exact > $O/$tool.log 2>&1
  r1=$?
  timeout 30 $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests \
    --kernels $D/tf32 --only matmul_tf32 --small --exact > $O/$tool-tf32.log 2>&1
  echo "$tool attn rc=$r1 tf32 rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $O/$tool.log $O/$tool-tf32.log | tr '\n' ' ') $(el)"
done
echo "== bench $(el)"
timeout 100 $B/bin/tilec-bench --kernels $D/attn attention_tma > $O/bench.json 2> $O/bench.err
echo "rc=$?"; tail -2 $O/bench.err
timeout 40 $B/bin/tilec-bench --kernels $D/tf32 matmul_tf32 >> $O/bench.json 2>> $O/bench.err
echo "rc=$?"; tail -2 $O/bench.err
timeout 60 python3 $D/peers.py attention > $O/peers.txt 2>&1
OUT=$O/pg PEERS=$D/peers.py timeout 60 python3 bench/peers_gemm.py matmul_tf32 >> $O/peers.txt 2>&1
cat $O/bench.json $O/peers.txt | python3 -c "
import json,sys
for l in sys.stdin:
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][:44]:44} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF  {r['system'][:24]} {r['note'][:40]}\")"
echo "== 10^4 generated programs (seed 600) $(el)"
(( $(left) > 40 )) && GPU_RUN=$B/bin/tilec-gpu-run TIME_BUDGET=$(( $(left) - 10 )) scripts/gpu-diff-batch.sh .dev/diff600/seed600.tar.xz > $O/diff.log 2>&1
echo "rc=$?"; tail -2 $O/diff.log; grep -E "^(FAIL|CRASH)" $O/diff.log | head -8
echo "total $(el)"
