#!/usr/bin/env bash
# GPU fixed-base multiplication for test-parameter generation (cuda/fixed_base.cu) on a GPU
# machine, in one bounded call: test_gpu_fixed_base (GPU == CPU, a Groth16 setup on the GPU
# whose parameters prove and verify), then bench_gpu_fixed_base (G1 2^24 and G2 2^22 on the
# GPU against the CPU path at 16 threads, medians). Logs go to $OUT.
#
# Binaries from a CUDA build here (no GPU needed to build), with the shared libraries they
# need that a bare GPU image may lack:
#   cmake --build build-K --target test_gpu_fixed_base bench_gpu_fixed_base
#   mkdir -p build-gsetup/bin build-gsetup/lib
#   cp build-K/bin/{test_gpu_fixed_base,bench_gpu_fixed_base} build-gsetup/bin/
#   cp /lib/x86_64-linux-gnu/{libcrypto.so.3,libjansson.so.4,libsqlite3.so.0,libjemalloc.so.2} \
#      build-gsetup/lib/
#   device: carry build-gsetup; command: bash bench/gpu_setup_run.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/czk-gpu-setup}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/build-gsetup/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-gsetup/bin
{ date -u; nproc; nvidia-smi -L; } > "$OUT/env.txt" 2>&1

start=$(date +%s.%N)
timeout 240 "$B/test_gpu_fixed_base" > "$OUT/test_gpu_fixed_base.txt" 2>&1
rc=$?
echo "test_gpu_fixed_base rc=$rc $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s:" \
     "$(grep -cE '^ok' "$OUT/test_gpu_fixed_base.txt") ok," \
     "$(grep -cE '^FAIL' "$OUT/test_gpu_fixed_base.txt") FAIL"
grep -E '^(FAIL|seed)' "$OUT/test_gpu_fixed_base.txt" | head -20

timeout 300 "$B/bench_gpu_fixed_base" --g1-log 24 --g2-log 22 --reps 5 --cpu-reps 3 \
    --threads 16 > "$OUT/bench_gpu_fixed_base.txt" 2>&1
echo "bench_gpu_fixed_base rc=$?"
cat "$OUT/bench_gpu_fixed_base.txt"
