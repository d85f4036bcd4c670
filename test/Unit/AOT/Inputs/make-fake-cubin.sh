#!/bin/sh
# make-fake-cubin.sh OUT PTX: what the stand-in driver takes for a cubin, an
# ELF magic number followed by the PTX.
printf '\177ELF' > "$1" && cat "$2" >> "$1"
