#!/usr/bin/env bash
# The engine's GPU path on a GPU machine: the engine tests (circom jobs and a WinningPoSt
# job, every proof self-verified and checked again by the test) with the GPU prover, and
# test_gpu_prove (GPU bytes == CPU bytes), in one bounded call; logs go to $OUT.
#
# Binaries from a CUDA build here (no GPU needed to build), with the shared libraries
# they need that a bare GPU image may lack:
#   mkdir -p build-gengine/bin build-gengine/lib
#   cp build/bin/{test_engine,test_engine_fil,test_gpu_prove} build-gengine/bin/
#   cp /lib/x86_64-linux-gnu/{libcrypto.so.3,libjansson.so.4,libsqlite3.so.0,libjemalloc.so.2} \
#      build-gengine/lib/
#   device: carry build-gengine; command: bash bench/gpu_engine_run.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/czk-gpu-engine}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/build-gengine/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-gengine/bin
{ date -u; nproc; nvidia-smi -L; } > "$OUT/env.txt" 2>&1
export CZK_TEST_PARAMS=/tmp/czk-test-params
mkdir -p "$CZK_TEST_PARAMS"
for t in test_engine test_engine_fil test_gpu_prove; do
    start=$(date +%s.%N)
    timeout 150 "$B/$t" > "$OUT/$t.txt" 2>&1
    rc=$?
    echo "$t rc=$rc $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s:" \
         "$(grep -cE '^ok' "$OUT/$t.txt") ok," \
         "$(grep -cE '^FAIL' "$OUT/$t.txt") FAIL; gpu mentions: $(grep -ciE 'gpu0|backend=gpu' "$OUT/$t.txt")"
done
