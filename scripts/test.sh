#!/usr/bin/env bash
# Quick start, part 2: install, build, and run the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
cmake --build "$root/build" --target check-tilec
