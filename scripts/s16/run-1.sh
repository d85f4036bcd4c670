#!/usr/bin/env bash
# Session 16, GPU call (after scripts/s16/prep-1.sh here; carry
# [".dev/s16", ".gpu-deps"]): (1) the PyTorch extension
# (scripts/gpu-torch.sh: tile.from GEMMs, the allocating attention, the
# block end to end), every check but the passes; (2) the attention
# forwards with the new parameters against the float64 reference, and
# memcheck at --small; (3) the forward's bench rows beside SDPA.
S=.dev/s16; . scripts/s14/call.sh
echo "== (1) PyTorch $(el)"
MAX_JOBS=16 timeout 300 bash scripts/gpu-torch.sh $S/torch > $O/x/torch.log 2>&1
echo "torch rc=$? pass=$(grep -c '^PASS' $O/x/torch.log) fail=$(grep -c 'FAIL' $O/x/torch.log) $(el)"
grep -v '^PASS' $O/x/torch.log | tail -40
grep -E '^PASS (attention|matmul)' $O/x/torch.log | cut -c1-150
only=attention,attention_d128,attention_tma_d128,attention_tma_d128_n128_overlap_pingpong,attention_bwd_d128
echo "== (2) checks $(el)"
timeout 150 $B/bin/tilec-gpu-tests --kernels $S/K --only $only > $O/x/checks.log 2>&1
echo "checks rc=$? pass=$(grep -c PASS $O/x/checks.log) fail=$(grep -c FAIL $O/x/checks.log) $(el)"
grep -h FAIL $O/x/checks.log | head -6 | cut -c1-160
tail -1 $O/x/checks.log
timeout 120 compute-sanitizer --tool memcheck $B/bin/tilec-gpu-tests --kernels $S/K --small \
  --only $only > $O/x/memcheck.log 2>&1
echo "memcheck rc=$? $(grep -h 'ERROR SUMMARY' $O/x/memcheck.log | head -1) pass=$(grep -c PASS $O/x/memcheck.log) $(el)"
echo "== (3) bench $(el)"
timeout 90 $B/bin/tilec-bench --kernels $S/K attention attention_tma > $O/x/fwd.json 2>> $O/x/bench.err
fmt $O/x/fwd.json
timeout 90 python3 $S/peers.py attention > $O/x/peers.txt 2>&1; grep -E 'ms' $O/x/peers.txt | head -4
tail -3 $O/x/bench.err
tar -C $O -czf $O/results.tgz x && rm -rf $O/x
echo "total $(el)"
