#!/usr/bin/env bash
# The MLIR-free build's libraries for the GPU machine, which has no package
# registry: run here (Debian 12, apt), carry the folder with the `run` call.
#
#   scripts/gpu-deps.sh [DIR]     (default: .gpu-deps)
#
# Downloads nlohmann-json3-dev, libcli11-dev, libxxhash-dev, libdlpack-dev,
# libfmt-dev and libfmt9 and unpacks them under DIR/usr (no install, no root
# needed there).
# scripts/gpu-env.sh, which the gpu-*.sh scripts source, points CMake and the
# loader at DIR/usr when it exists.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$(mkdir -p "${1:-$root/.gpu-deps}" && cd "${1:-$root/.gpu-deps}" && pwd)
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
(cd "$debs" && apt-get download -qq nlohmann-json3-dev libcli11-dev \
  libxxhash-dev libdlpack-dev libfmt-dev libfmt9)
for f in "$debs"/*.deb; do dpkg -x "$f" "$dir"; done
echo "gpu-deps: unpacked into $dir/usr ($(du -sh "$dir" | cut -f1)); carry it"
