#!/usr/bin/env bash
# Configures and builds czk into ${CZK_BUILD_DIR:-build} (Release; the CUDA backend when nvcc
# is found). Extra arguments go to cmake's configure step.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${CZK_BUILD_DIR:-$here/build}"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$jobs"
