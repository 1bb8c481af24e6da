#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, and runs every test tier but
# `slow` (GPU tests skip cleanly without a GPU). Exit status is ctest's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$here/scripts/deps.sh"
bash "$here/scripts/build.sh"
build="${CZK_BUILD_DIR:-$here/build}"
jobs=$(nproc 2>/dev/null || echo 2)
cd "$build"
ctest --output-on-failure -LE slow -j "$jobs" "$@"
