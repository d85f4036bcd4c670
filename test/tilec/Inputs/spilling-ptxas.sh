#!/bin/sh
# A stand-in ptxas whose -v report says the kernel spills
# (test/tilec/cli-habits.test). It writes no output file.
cat >&2 <<'REPORT'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'add' for 'sm_90'
ptxas info    : Function properties for add
    48 bytes stack frame, 48 bytes spill stores, 48 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers
REPORT
exit 0
