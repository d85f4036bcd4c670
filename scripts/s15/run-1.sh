#!/usr/bin/env bash
# Session 15, GPU call (after scripts/s15/prep-1.sh; carry [".dev/s15",
# ".gpu-deps"]): scripts/gpu-torch.sh on the sources with tile.from, every
# check but the passes printed, then the count of passes.
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
MAX_JOBS=16 timeout 480 bash scripts/gpu-torch.sh .dev/s15/torch > /tmp/torch.log 2>&1
echo "rc=$? pass=$(grep -c '^PASS' /tmp/torch.log) fail=$(grep -c 'FAIL' /tmp/torch.log)"
grep -v '^PASS' /tmp/torch.log | tail -60
mkdir -p ${OUT:-/tmp/out} && cp /tmp/torch.log ${OUT:-/tmp/out}/
