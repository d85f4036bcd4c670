#!/usr/bin/env bash
# Session 7, H200 call 3 (after scripts/s5/prep-all.sh here): the examples
# with the three sanitizers (the attention forward now issues S = Q K^T and
# P V back to back, tile-async-dots), then attention forward and backward
# against float64 references with memcheck and beside SDPA. Carry
# [".dev/s5", ".gpu-deps"].
. scripts/s7/common.sh
examples_sanitized 300
echo "== attention $(el)"
bash scripts/s5/run-attn.sh 2>&1 | tail -14
echo "total $(el)"
