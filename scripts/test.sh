#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, and runs every test tier but
# `slow` (GPU tests skip cleanly without a GPU). Exit status is ctest's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$here/scripts/deps.sh"
bash "$here/scripts/build.sh"
build="${CZK_BUILD_DIR:-$here/build}"
jobs=$(nproc 2>/dev/null || echo 2)

# The parsers of untrusted input (and the code they call) also run under ASan + UBSan:
# a second, CPU-only build with clang, of those tests and of the libFuzzer targets
# (tests/fuzz: C1 JSON, bincode, zkey, wtns, r1cs, .params, config, gRPC requests), each
# fuzzed for CZK_FUZZ_SECONDS (default 10). It runs first so that the run ends with the
# summary line of the whole suite.
asan="${build}-asan-clang"
CC=clang cmake -S "$here" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address \
      -DCZK_CUDA=OFF -DCZK_BENCH=OFF -DCZK_FUZZ=ON \
      -DCZK_FUZZ_SECONDS="${CZK_FUZZ_SECONDS:-10}" >/dev/null
fuzzers=$(cd "$here/tests/fuzz" && ls fuzz_*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
cmake --build "$asan" -j "$jobs" --target test_formats test_curve test_cs czk czkd $fuzzers \
      >/dev/null
(cd "$asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -R '^(test_formats|test_curve|test_cs|fuzz_.*)$')

cd "$build"
ctest --output-on-failure -LE slow -j "$jobs" "$@"
