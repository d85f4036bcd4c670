#!/bin/sh
# make-fake-cubin.sh OUT PTX: what the stand-in driver takes for a cubin: a
# 64-bit ELF header whose section table offset (e_shoff, no sections) marks
# the end of the image, as a real cubin's headers do, then the PTX.
n=$((64 + $(wc -c < "$2")))
le() { # le VALUE BYTES: VALUE little-endian
  v=$1 i=0
  while [ "$i" -lt "$2" ]; do
    printf "\\$(printf %03o $((v & 255)))"
    v=$((v >> 8)) i=$((i + 1))
  done
}
{
  printf '\177ELF\002\001\001'; le 0 9  # e_ident: 64-bit, little-endian
  le 1 2; le 190 2; le 1 4             # ET_REL, EM_CUDA, version 1
  le 0 8; le 0 8; le "$n" 8            # e_entry, e_phoff, e_shoff
  le 0 4; le 64 2; le 0 2; le 0 2      # flags, ehsize, phentsize, phnum
  le 64 2; le 0 2; le 0 2              # shentsize, shnum, shstrndx
  cat "$2"
} > "$1"
