#!/usr/bin/env bash
# Session 10, GPU call 1 (after scripts/s10/prep-1.sh here; carry
# [".dev/s10", ".gpu-deps"]): (1) the two generated programs the GPU failed
# in session 9, compiled by ptxas -O0..-O3 and by the driver, with variants
# printing intermediate reductions, and their SASS; (2) racecheck in full on
# the ping-pong attention forward, with its SASS; (3) the PyTorch extension
# and the transformer block; (4) every example under memcheck, racecheck and
# synccheck (scripts/gpu-test.sh).
set -u
D=.dev/s10; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
left() { echo $(( ${BUDGET:-540} - ($(date +%s) - t0) )); }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas); $ptxas --version | tail -1
objdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/configure.log 2>&1 &&
  cmake --build $B > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built $(el)"
export TILEC_CACHE_DIR=/tmp/tilec-cache
echo "== (1) the two mismatches $(el)"
mkdir -p $O/mm
for c in gen_600_5233 gen_600_5066; do
  ( cd $D/mm/$c
    args=$(sed "s/^tilec-gpu-run $c.ptx //" command)
    run() { $root/$B/bin/tilec-gpu-run "$@" 2>&1 | tail -1 | cut -c1-110; }
    echo "-- $c ptxas -O3 (runtime): $(run $c.ptx $args)"
    echo "-- $c driver JIT: $(TILEC_RUNTIME_PTXAS=off run $c.ptx $args)"
    for lvl in 0 1 2 3; do
      $ptxas -arch=sm_90 -O$lvl $c.ptx -o O$lvl.cubin && cp $c.json O$lvl.json
      echo "-- $c cubin -O$lvl: $(run O$lvl.cubin $args)"
    done
    $objdump -sass O3.cubin > $O/mm/$c-O3.sass; $objdump -sass O0.cubin > $O/mm/$c-O0.sass
    pargs=$(echo "$args" | sed 's/,expect=[^ ]*/,print/g')
    for v in v_*.ptx; do
      echo "-- $c $v:"; $root/$B/bin/tilec-gpu-run $v $pargs 2>&1 | grep '^%y0' | tr '\n' ' ' | cut -c1-900; echo
    done ) 2>&1 | tee -a $O/mm.log
done
echo "== (2) ping-pong racecheck $(el)"
for k in attention_tma_d128_n128_overlap_pingpong attention_tma_d128_n128_overlap; do
  timeout 60 $san --tool racecheck --racecheck-report all --print-limit 30 \
    --show-backtrace device $B/bin/tilec-gpu-tests --kernels $D/attn --only $k \
    --small --exact > $O/race-$k.log 2>&1
  echo "$k rc=$? $(grep -h 'RACECHECK SUMMARY' $O/race-$k.log)"
done
$objdump -sass $D/attn/attention_tma_d128_n128_overlap_pingpong.cubin > $O/pingpong.sass
grep -m3 -E "Race reported|Write Port|Read Port|hazard" $O/race-attention_tma_d128_n128_overlap_pingpong.log
echo "== (3) PyTorch $(el)"
MAX_JOBS=16 timeout $(( $(left) - 150 )) scripts/gpu-torch.sh $D/torch > $O/torch.log 2>&1
echo "torch rc=$? $(grep -c PASS $O/torch.log) PASS $(grep -c FAIL $O/torch.log) FAIL $(el)"
grep -E "FAIL|Error|error" $O/torch.log | head -10
grep -iE "block|ms" $O/torch.log | tail -25
echo "== (4) examples under sanitizers $(el)"
SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test timeout $(( $(left) - 5 )) \
  scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
echo "gpu-test rc=$? $(el)"; tail -3 $O/gpu-test.log
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $O/test/*.log | sort | uniq -c | head
echo "total $(el)"
