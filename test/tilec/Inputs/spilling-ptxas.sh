#!/bin/sh
# A stand-in ptxas whose -v report says the kernel spills
# (test/tilec/cli-habits.test, test/tilec/resources-metadata.test). Its
# "cubin" (-o) is the PTX it was given.
in= out=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    *.ptx) in=$1 ;;
  esac
  shift
done
cat >&2 <<'REPORT'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'add' for 'sm_90'
ptxas info    : Function properties for add
    48 bytes stack frame, 48 bytes spill stores, 40 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 16 bytes smem
REPORT
cp "$in" "$out"
