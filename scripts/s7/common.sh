# Sourced by this session's H200 scripts (scripts/s7/run-*.sh), from the
# repository root: the folders, the libraries of .gpu-deps, a timer, and
# every example under memcheck, racecheck and synccheck.
set -u
D=.dev/s5; O=${OUT:-/tmp/out}; mkdir -p $O
root=$PWD; . scripts/gpu-env.sh
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s]"; }
# examples_sanitized SECONDS: scripts/gpu-test.sh on $D/k90a with the three
# tools, its summary lines.
examples_sanitized() {
  echo "== gpu-test.sh sm_90a $(el)"
  SANITIZER_TOOLS="memcheck racecheck synccheck" LOGS=$O/test timeout "$1" \
    scripts/gpu-test.sh $D/k90a > $O/gpu-test.log 2>&1
  echo "rc=$? $(el)"
  grep -E "FAIL|passed|failed|gpu-test|SUMMARY" $O/gpu-test.log | grep -v "^PASS" | head -20
}
