#!/usr/bin/env bash
# Here, after scripts/s5/prep-all.sh: what this session changed but could not
# run on the H200, into .dev/s7/next (carry it with .dev/s5 and .gpu-deps):
# examples/attention.tile at head_dim 128 (sm_90a), the float max/min
# atomics' differential case, and 1000 generated programs of seed 301 (the carry holds 64 MiB).
set -euo pipefail
N=.dev/s7/next; B=build/bin
rm -rf $N && mkdir -p $N/attn128 $N/cases
$B/tilec examples/attention.tile --arch=sm_90a --param HEAD_DIM=128 \
  --param num_warps=8 --emit=cubin -o $N/attn128/attention.cubin
grep -E '^(fminmax|histogram|exchange)' test/GPU/diff-cases.txt > /tmp/next-cases.txt
python3 scripts/make-gpu-cases.py --build $PWD/build --cases /tmp/next-cases.txt \
  -o $N/cases > /dev/null
python3 scripts/gen-tile-programs.py gen --seed 301 --count 1000 -o /tmp/g301 > /dev/null
python3 scripts/make-gpu-cases.py --build $PWD/build --cases /tmp/g301/cases.txt \
  -o $N/g301 > /dev/null
du -sh --apparent-size $N .dev/s5
