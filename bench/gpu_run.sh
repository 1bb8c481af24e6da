#!/usr/bin/env bash
# Build and run czk's GPU MSM test and benchmark on a GPU machine; logs go to $OUT.
#
#   bench/gpu_run.sh [build|all] [bench args...]
#
# "build" only builds (usable on a machine without a GPU, to carry the binaries along);
# "all" (the default) probes the machine, builds unless binaries built elsewhere run here
# (carry them and set CZK_GPU_BIN: a build here costs minutes of device time), runs
# tests/gpu/test_gpu_msm, bench_gpu_msm, and the test again under compute-sanitizer
# memcheck at small sizes (CZK_TEST_GPU_SMALL=1).
#
# One device call, binaries built here beforehand (bash bench/gpu_run.sh build):
#   carry: build-gpu-run/bin    command: bash bench/gpu_run.sh all --max-log 27
#
# Build: CMake (-DCMAKE_CUDA_ARCHITECTURES=90, libc allocator) when the machine has what
# czk_core links (OpenSSL, jansson headers); otherwise, or when CMake fails, a minimal
# build that compiles only what the GPU MSM test and benchmark need (src/core, src/ff,
# src/ec, src/msm, cuda/msm.cu, cuda/gpu_info.cu) straight with gcc and nvcc. Installs
# nothing. Binaries end up in $CZK_GPU_BIN (default build-gpu-run/bin).
set -u
cd "$(dirname "$0")/.."
MODE=${1:-all}
[ $# -gt 0 ] && shift
OUT=${OUT:-/tmp/czk-gpu-run}
mkdir -p "$OUT"
BIN=${CZK_GPU_BIN:-build-gpu-run/bin}
LOG=$OUT/gpu_run.log
exec > >(tee -a "$LOG") 2>&1
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
JOBS=$(nproc 2>/dev/null || echo 4)

probe() {
    echo "== probe $(date -u +%FT%TZ)"
    uname -m
    nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv 2>&1 | head -3
    "$NVCC" --version 2>&1 | tail -1
    echo "cmake: $(cmake --version 2>/dev/null | head -1 || echo none)"
    echo "gcc: $(gcc --version 2>/dev/null | head -1 || echo none)"
    echo "compute-sanitizer: $(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || echo none)"
    for h in openssl/bn.h jansson.h jemalloc/jemalloc.h; do
        if echo "#include <$h>" | gcc -E -x c - >/dev/null 2>&1; then echo "header $h: yes"; else echo "header $h: no"; fi
    done
}

build_minimal() {
    echo "== minimal build into $BIN"
    local obj=$BIN/../obj
    mkdir -p "$obj" "$BIN"
    local cflags=(-O2 -std=gnu11 -D_GNU_SOURCE '-DCZK_VERSION_STRING="0.1.0"' -DCZK_HAVE_CUDA=1
        -Iinclude -Isrc -Icuda -fvisibility=hidden)
    # Explicit pids: a bare "wait" would also wait for the tee behind the log redirection.
    local f pids=() p
    for f in src/core/*.c src/ff/*.c src/ec/*.c src/msm/*.c; do
        case $f in *_adx.c) continue ;; esac
        gcc "${cflags[@]}" -c "$f" -o "$obj/$(echo "$f" | tr / _).o" &
        pids+=($!)
        if [ ${#pids[@]} -ge "$JOBS" ]; then
            for p in "${pids[@]}"; do wait "$p" || return 1; done
            pids=()
        fi
    done
    for p in "${pids[@]}"; do wait "$p" || return 1; done
    # NVCC_EXTRA: extra nvcc flags for tuning variants (e.g. -DCZK_MSM_ACC_MIN_BLOCKS=4).
    local nvflags="-O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -lineinfo -DCZK_HAVE_CUDA=1 -Iinclude -Isrc -Icuda ${NVCC_EXTRA:-}"
    "$NVCC" $nvflags -c cuda/gpu_info.cu -o "$obj/gpu_info.o" &
    p=$!
    "$NVCC" $nvflags -Xptxas -v -c cuda/msm.cu -o "$obj/msm.o" 2> "$OUT/ptxas.log" || { cat "$OUT/ptxas.log"; return 1; }
    wait "$p" || return 1
    grep -E "registers|spill" "$OUT/ptxas.log" | grep -v " 0 bytes spill" | head -40
    rm -f "$obj/libczkgpu.a"
    ar rcs "$obj/libczkgpu.a" "$obj"/*.o || return 1
    gcc "${cflags[@]}" -Itests -c tests/gpu/test_gpu_msm.c -o "$obj/test_gpu_msm.o" || return 1
    gcc "${cflags[@]}" -Ibench -c bench/bench_gpu_msm.c -o "$obj/bench_gpu_msm.o" || return 1
    "$NVCC" -o "$BIN/test_gpu_msm" "$obj/test_gpu_msm.o" "$obj/libczkgpu.a" -lpthread -lm || return 1
    "$NVCC" -o "$BIN/bench_gpu_msm" "$obj/bench_gpu_msm.o" "$obj/libczkgpu.a" -lpthread -lm || return 1
}

build_cmake() {
    echo "== cmake build"
    cmake -S . -B build-gpu-cmake -DCMAKE_CUDA_ARCHITECTURES=90 -DCZK_ALLOCATOR=libc \
        -DCZK_CUDA=ON >"$OUT/cmake.log" 2>&1 || { tail -5 "$OUT/cmake.log"; return 1; }
    cmake --build build-gpu-cmake -j "$JOBS" --target test_gpu_msm bench_gpu_msm \
        >>"$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; return 1; }
    mkdir -p "$BIN"
    cp build-gpu-cmake/bin/test_gpu_msm build-gpu-cmake/bin/bench_gpu_msm "$BIN/"
}

build() {
    local t0=$SECONDS
    if [ "${CZK_GPU_CMAKE:-auto}" != "off" ] &&
        echo "#include <jansson.h>" | gcc -E -x c - >/dev/null 2>&1 &&
        echo "#include <openssl/bn.h>" | gcc -E -x c - >/dev/null 2>&1 &&
        command -v cmake >/dev/null; then
        build_cmake || build_minimal || return 1
    else
        build_minimal || return 1
    fi
    echo "build took $((SECONDS - t0)) s"
}

binaries_run_here() {
    [ -x "$BIN/test_gpu_msm" ] && [ -x "$BIN/bench_gpu_msm" ] || return 1
    ! ldd "$BIN/test_gpu_msm" "$BIN/bench_gpu_msm" 2>&1 | grep -q "not found"
}

if [ "$MODE" = build ]; then
    build
    exit $?
fi

probe
if binaries_run_here; then
    echo "== using the binaries in $BIN (built elsewhere; they load here)"
else
    build || { echo "BUILD FAILED"; exit 1; }
fi

# Order and time limits fit one 400-second device call: the full test, the benchmark, then
# the (slow) memcheck run at small sizes. Override with T_TEST, T_BENCH, T_MEMCHECK.
rc=0
echo "== test_gpu_msm (full sizes)"
timeout "${T_TEST:-90}" "$BIN/test_gpu_msm" 2>&1 | tee "$OUT/test.log"
trc=${PIPESTATUS[0]}
echo "test exit: $trc"
[ "$trc" -ne 0 ] && rc=1

echo "== bench_gpu_msm $*"
timeout "${T_BENCH:-200}" "$BIN/bench_gpu_msm" "$@" 2>&1 | tee "$OUT/bench.log"
brc=${PIPESTATUS[0]}
echo "bench exit: $brc"
[ "$brc" -ne 0 ] && rc=1

echo "== test_gpu_msm under compute-sanitizer memcheck (small sizes)"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$SAN" ]; then
    CZK_TEST_GPU_SMALL=1 timeout "${T_MEMCHECK:-90}" "$SAN" --tool memcheck --leak-check no \
        --error-exitcode 9 "$BIN/test_gpu_msm" >"$OUT/memcheck.log" 2>&1
    mrc=$?
    tail -25 "$OUT/memcheck.log"
    echo "memcheck exit: $mrc"
    [ "$mrc" -ne 0 ] && rc=1
else
    echo "compute-sanitizer not found"
fi
exit $rc
