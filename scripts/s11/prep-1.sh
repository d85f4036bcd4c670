#!/usr/bin/env bash
# Session 11, here: variants of the ping-pong attention forward's PTX for
# scripts/s11/run-1.sh (carry [".dev/s11", ".gpu-deps"]), to find which
# barrier racecheck's hazards depend on. Each folder holds the kernel under
# its own name (tilec-gpu-tests --only finds it), assembled by ptxas here:
#   v0       as compiled
#   noturn   the turn barriers deleted (no ping-pong; still correct)
#   syncturn every bar.arrive of the turns a bar.sync (both sides wait)
#   epi5     the epilogue's two bar.sync 1 use barrier 5 instead
#   q5       the Q load's bar.sync 1 uses barrier 5 (barrier 1: epilogue only)
#   bal      warpgroup 1 waits once more, on a barrier of its own
#            (bar.sync 6, 128) after the loops: orders nothing between the
#            warpgroups, makes their counts of waited barriers equal
#   bal2     a closing handshake: warpgroup 0 passes once more
#            (bar.arrive 3) before taking its last turn, warpgroup 1 waits
#            for it (bar.sync 3)
#   plain    attention_tma_d128_n128_overlap (no ping-pong; clean before)
set -euo pipefail
D=.dev/s11; B=build/bin; k=attention_tma_d128_n128_overlap_pingpong
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf $D && mkdir -p $D/v0 $D/plain
$B/tilec-examples $k > $D/v0/$k.tile
$B/tilec $D/v0/$k.tile --arch=sm_90a --emit=ptx -o $D/v0/$k.ptx
$B/tilec-examples attention_tma_d128_n128_overlap > $D/plain/attention_tma_d128_n128_overlap.tile
$B/tilec $D/plain/attention_tma_d128_n128_overlap.tile --arch=sm_90a --emit=cubin \
  -o $D/plain/attention_tma_d128_n128_overlap.cubin
# The epilogue's barriers: the last two bar.sync 1 of the PTX.
epi=$(grep -n "bar.sync 	1, 256;" $D/v0/$k.ptx | tail -2 | cut -d: -f1 | tr '\n' ' ')
q=$(grep -n "bar.sync 	1, 256;" $D/v0/$k.ptx | head -1 | cut -d: -f1)
[ "$(grep -c 'bar.sync 	1, 256;' $D/v0/$k.ptx)" = 3 ] || { echo "expected 3 bar.sync 1" >&2; exit 1; }
variant() {  # name sed-script
  mkdir -p $D/$1; cp $D/v0/$k.tile $D/v0/$k.json $D/$1/
  sed -e "$2" $D/v0/$k.ptx > $D/$1/$k.ptx
}
$B/tilec $D/v0/$k.tile --arch=sm_90a --emit=ptx -o $D/v0/$k.ptx  # writes the .json too
variant noturn '/bar\.arrive/d; /bar\.sync 	%r[0-9]*, 256;/d; /bar\.sync 	2, 256;/d'
variant syncturn 's/bar\.arrive \(%r[0-9]*\), 256;/bar.sync \1, 256;/'
set -- $epi
variant epi5 "$1s/bar.sync 	1, 256;/bar.sync 	5, 256;/; $2s/bar.sync 	1, 256;/bar.sync 	5, 256;/"
variant q5 "${q}s/bar.sync 	1, 256;/bar.sync 	5, 256;/"
# The finish: "@%pN bra L; bar.sync 2, 256; L:" (warpgroup 1 branches over).
fin=$(grep -n "bar.sync 	2, 256;" $D/v0/$k.ptx | cut -d: -f1)
[ "$(echo $fin | wc -w)" = 1 ] || { echo "expected one bar.sync 2" >&2; exit 1; }
pred=$(sed -n "$((fin - 1))p" $D/v0/$k.ptx | grep -o '%p[0-9]*')
label=$(sed -n "$((fin + 1))p" $D/v0/$k.ptx | tr -d ':[:space:]')
variant bal "$((fin + 1))a\\	@$pred bar.sync 6, 128;"
variant bal2 "$((fin - 1))s/.*/	@$pred bra $label""x;/; ${fin}s/.*/	bar.arrive 3, 256;\\n	bar.sync 2, 256;\\n	bra.uni $label;\\n$label""x:\\n	bar.sync 3, 256;/"
for v in v0 noturn syncturn epi5 q5 bal bal2; do
  $ptxas -arch=sm_90a $D/$v/$k.ptx -o $D/$v/$k.cubin
  echo "$v: $(grep -c 'bar\.' $D/$v/$k.ptx) bar lines; $(diff $D/v0/$k.ptx $D/$v/$k.ptx | grep -c '^[<>]') changed"
done
mkdir -p $D/race && cp scripts/s11/pingpong-race2.cu $D/race/
ls $D/v0
