# Sourced by scripts/s14/run-*.sh on the GPU machine, in the repository
# root, with S set: the results folder $O/x, the elapsed-time stamp `el`,
# the runtime-only build in build-gpu (B), the kernel cache, `fmt`,
# which prints tilec-bench's JSON rows one line each, and `san TOOL LOG
# COMMAND...`, one compute-sanitizer run (SAN_TIMEOUT s) and its summary.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O/x
root=$(pwd); . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
B=build-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_ONLY=ON \
  -DTILEC_ENABLE_TESTS=OFF > $O/x/configure.log 2>&1 &&
  cmake --build $B > $O/x/build.log 2>&1 || { tail -30 $O/x/build.log; exit 1; }
echo "built $(el)"
san() { # san TOOL LOG COMMAND...: one sanitizer run, its summary line
  local tool=$1 log=$2; shift 2
  timeout ${SAN_TIMEOUT:-120} compute-sanitizer --tool "$tool" "$@" > "$log" 2>&1
  echo "$tool rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | head -1) $(el)"
}
export TILEC_CACHE_DIR=/tmp/tilec-cache
fmt() { for f in "$@"; do echo "-- $(basename $f)"; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r=json.loads(l); print(f\"{r['work'][-26:]:26} {r['ms']:8.4f} ms {r['TFLOPs'] or 0:6.1f} TF {r['note'][:90]}\")" $f; done; }
