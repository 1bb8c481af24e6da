#!/usr/bin/env bash
# Synthesis of one 32 GiB PoRep and one 32 GiB SnapDeals partition on the GPU machine's
# 16 cores, EVAL path and PCE path (bench/bench_synth.c), in one bounded call.
#
# Build here (CPU-only, no GPU needed), then carry the binary:
#   cmake -S . -B build-synth -DCZK_CUDA=OFF -DCMAKE_BUILD_TYPE=Release -DCZK_ALLOCATOR=libc
#   cmake --build build-synth --target bench_synth
#   mkdir -p build-synth/lib && cp /lib/x86_64-linux-gnu/libcrypto.so.3 build-synth/lib/
#   device: carry build-synth/bin, build-synth/lib; command: bash bench/synth_run.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/czk-synth}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/build-synth/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-synth/bin/bench_synth
T=${THREADS:-$(nproc)}
{ date -u; nproc; free -g; lscpu | grep -E "Model name|Flags" | cut -c1-200; } > "$OUT/env.txt" 2>&1
run() { # name, seconds, args...
    local name=$1 secs=$2; shift 2
    echo "== $name: $*"
    timeout "$secs" "$B" "$@" > "$OUT/$name.txt" 2>&1; echo "rc=$?" >> "$OUT/$name.txt"
    grep -E "SUMMARY|rc=" "$OUT/$name.txt"
}
run porep32g 300 --size 32g --threads "$T" --reps 2 --pce-file /dev/shm/porep32g.pce
rm -f /dev/shm/porep32g.pce
run snap32g 240 --size 32g --snap --threads "$T" --reps 1 --pce-file /dev/shm/snap32g.pce
rm -f /dev/shm/snap32g.pce
