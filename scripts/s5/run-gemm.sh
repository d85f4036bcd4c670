#!/usr/bin/env bash
# On the H200 (carry .dev/s5 and .gpu-deps): each TMA GEMM variant of
# scripts/s5/prep-gemm.sh checked on ragged shapes, the default one under
# memcheck, racecheck and synccheck, then timed beside cuBLAS in one call,
# with SASS counts (HGMMA, UTMALDG, setmaxnreg, spills).
set -u
D=.dev/s5/gemm; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
B=build-gpu; export TILEC_CACHE_DIR=$B/cubin-cache
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=ON > $O/configure.log 2>&1 && cmake --build $B > $O/build.log 2>&1 \
  || { echo "build failed"; tail -30 $O/build.log; exit 1; }
echo "built $(el)"
for v in ws256 ws128 own256 own128; do
  echo "== $v checks $(el)"
  only=matmul_tma
  for k in matmul_tma_bias_gelu matmul_tma_persistent; do [ -f $D/$v/$k.cubin ] && only=$only,$k; done
  timeout 60 $B/bin/tilec-gpu-tests --kernels $D/$v --only $only > $O/test-$v.log 2>&1
  echo "rc=$? pass=$(grep -c PASS $O/test-$v.log) fail=$(grep -c FAIL $O/test-$v.log)"
  grep -E "FAIL|error" $O/test-$v.log | head -5
done
san=/usr/local/cuda/bin/compute-sanitizer
for v in ws256 ws128; do
  for tool in memcheck racecheck synccheck; do
    timeout 120 $san --tool $tool --error-exitcode 3 $B/bin/tilec-gpu-tests \
      --kernels $D/$v --only matmul_tma,matmul_tma_bias_gelu,matmul_tma_persistent --small > $O/san-$v-$tool.log 2>&1
    echo "$v $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-$v-$tool.log | head -1) $(el)"
  done
done
echo "== bench $(el)"
PEERS=$D/peers.py LOGS=$O/bench timeout 200 scripts/gpu-bench.sh $D/ws256 matmul_tma matmul_tma_ragged matmul_tma_bias_gelu matmul_tma_persistent matmul_tma_persistent_ragged > $O/bench.log 2>&1
echo "rc=$? $(el)"; tail -18 $O/bench.log
timeout 60 $B/bin/tilec-bench --kernels $D/ws128 --system "tilec ws128" matmul_tma_bias_gelu 2>&1 | grep -E "matmul|gelu" | head -2
for v in ws128 own256 own128; do
  p=""; [ -f $D/$v/matmul_tma_persistent.cubin ] && p="matmul_tma_persistent matmul_tma_persistent_ragged"
  timeout 60 $B/bin/tilec-bench --kernels $D/$v --system "tilec $v" matmul_tma matmul_tma_ragged $p 2>&1 | grep -E "matmul" | head -4
done
echo "== sass $(el)"
for v in ws256 ws128 own256 own128; do
  [ -f $D/$v/matmul_tma_persistent.cubin ] && /usr/local/cuda/bin/cuobjdump --dump-sass $D/$v/matmul_tma_persistent.cubin > $O/$v-p.sass 2>/dev/null && echo "$v persistent: HGMMA $(grep -c HGMMA $O/$v-p.sass) UTMALDG $(grep -c UTMALDG $O/$v-p.sass) LDL/STL $(grep -cE 'LDL|STL' $O/$v-p.sass)"
  /usr/local/cuda/bin/cuobjdump --dump-sass $D/$v/matmul_tma.cubin > $O/$v.sass 2>/dev/null
  echo "$v: HGMMA $(grep -c HGMMA $O/$v.sass) UTMALDG $(grep -c UTMALDG $O/$v.sass) USETMAXREG $(grep -c USETMAXREG $O/$v.sass) LDL/STL $(grep -cE 'LDL|STL' $O/$v.sass) BAR $(grep -cE ' BAR\.' $O/$v.sass)"
done
cat $D/resources.txt
echo "total $(el)"
