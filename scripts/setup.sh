#!/usr/bin/env bash
# Installs what tilec needs (only what is missing) and builds it with ninja.
#   scripts/setup.sh [build-dir]      (default: build)
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libfmt-dev
          libxxhash-dev nlohmann-json3-dev libcli11-dev libdlpack-dev
          ninja-build cmake g++ libgtest-dev python3 pkgconf
          clang-19 libclang-rt-19-dev)   # the last two: scripts/fuzz.sh
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
cmake --build "$build"
