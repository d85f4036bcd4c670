#!/usr/bin/env bash
# Session 13, GPU call 1 (after scripts/s12/prep-1.sh and scripts/s13/prep-2.sh
# here; carry [".dev/s12", ".dev/s13", ".gpu-deps"]): the PyTorch checks
# first (this session's allocating overloads: run-2.sh with NO_TUNE), then
# the twelfth session's call (scripts/s12/run-1.sh; SHORT=1 unless FULL is
# set: the forwards of B and C, the _rf form's checks and sanitizers,
# tilec-tune measure --arg). Call 2: scripts/s13/run-2.sh (the GEMM tuning)
# and FULL=1 for the rest of s12.
set -u
t0=$(date +%s)
NO_TUNE=1 bash scripts/s13/run-2.sh
echo "== s12 call [t=$(( $(date +%s) - t0 ))s]"
if [ -n "${FULL:-}" ]; then bash scripts/s12/run-1.sh; else SHORT=1 bash scripts/s12/run-1.sh; fi
echo "== total [t=$(( $(date +%s) - t0 ))s]"
