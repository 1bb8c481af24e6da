#!/bin/bash
# GPU NTT: build, test and benchmark on a machine with an NVIDIA GPU, logs to $OUT.
#
#   bench/gpu_ntt_run.sh build DIR   build test_gpu_ntt and bench_gpu_ntt into DIR and stop
#                                    (NVCC_EXTRA adds nvcc flags, e.g. -DCZK_FR_REDUCE_SPECIAL=0)
#   bench/gpu_ntt_run.sh [BINDIR]    run everything (binaries from BINDIR if they start there,
#                                    else built here first)
#
# The build compiles the library's C sources, cuda/ntt.cu and cuda/gpu_info.cu directly
# (no CMake): the full CMake build would also compile the MSM kernels, which take minutes,
# and it needs jansson and OpenSSL headers that a bare GPU image may lack. The other GPU
# entry points come from cuda/nocuda (they report CZK_ENOGPU), enough for these two programs.
# Steps, each bounded in time: environment report; the test (sizes to 2^24); the test under
# compute-sanitizer memcheck and racecheck at small sizes; the benchmark (2^24..2^27 and the
# Groth16 H step at 2^27, with a check at 2^27); the same with 1024-element tiles; an ncu
# profile of the three passes of one 2^27 transform.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${OUT:-$ROOT/build-gpu-ntt-out}
mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$NVCC")")}
JOBS=$(nproc 2>/dev/null || echo 4)

build() {
    local dir=$1 obj=$1/obj f o
    rm -rf "$obj" && mkdir -p "$obj" "$dir" || return 1
    local cflags=(-O2 -std=gnu11 -D_GNU_SOURCE -Iinclude -Isrc -Icuda)
    # Library C sources (the portable field back end); a file whose headers are missing here
    # (jansson, OpenSSL) is skipped: the two programs do not need it.
    for f in $(find src -name '*.c' ! -path 'src/cli/*' ! -name '*_adx.c' | sort); do
        o=$obj/$(echo "$f" | tr / _).o
        (gcc "${cflags[@]}" -c "$f" -o "$o" 2>"$o.err" || { echo "skipped $f: $(head -1 "$o.err")"; rm -f "$o"; }) &
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    done
    for f in cuda/nocuda/*.c; do
        case $f in */gpu_none.c | */ntt_none.c) continue ;; esac
        gcc "${cflags[@]}" -c "$f" -o "$obj/nocuda_$(basename "$f").o" || return 1
    done
    local nvflags=(-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90
                   -gencode=arch=compute_90,code=compute_90 --expt-relaxed-constexpr -lineinfo
                   -Xcompiler=-fvisibility=hidden -Iinclude -Isrc -Icuda ${NVCC_EXTRA:-})
    "$NVCC" "${nvflags[@]}" -Xptxas -v -c cuda/ntt.cu -o "$obj/ntt.o" >"$dir/ptxas_ntt.txt" 2>&1 &
    local p1=$!
    "$NVCC" "${nvflags[@]}" -c cuda/gpu_info.cu -o "$obj/gpu_info.o" || return 1
    wait
    wait $p1 2>/dev/null
    [ -e "$obj/ntt.o" ] || { cat "$dir/ptxas_ntt.txt"; return 1; }
    rm -f "$dir/libczk_gpu_ntt.a"
    ar rcs "$dir/libczk_gpu_ntt.a" "$obj"/*.o || return 1
    local libs=("$dir/libczk_gpu_ntt.a" -L"$CUDA_HOME/lib64" -lcudart_static -ldl -lrt -lpthread -lm)
    local warn=(-Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes
                -Wmissing-prototypes -Wvla -DCZK_HAVE_CUDA=1 -I"$CUDA_HOME/include")
    gcc "${cflags[@]}" "${warn[@]}" -Itests -c tests/gpu/test_gpu_ntt.c -o "$obj/t.o" &&
        g++ -static-libstdc++ -static-libgcc -o "$dir/test_gpu_ntt" "$obj/t.o" "${libs[@]}" || return 1
    gcc "${cflags[@]}" "${warn[@]}" -c bench/bench_gpu_ntt.c -o "$obj/b.o" &&
        g++ -static-libstdc++ -static-libgcc -o "$dir/bench_gpu_ntt" "$obj/b.o" "${libs[@]}" || return 1
    rm -rf "$obj"
    echo "built $dir/test_gpu_ntt $dir/bench_gpu_ntt"
}

if [ "${1:-}" = build ]; then
    build "${2:?build DIR}"
    exit $?
fi

# Every step's output goes to $OUT/run.log under a header (few files come back from a run).
LOG=$OUT/run.log
step() { # name timeout command...
    local name=$1 t=$2
    shift 2
    local t0=$(date +%s)
    timeout "$t" "$@" >"/tmp/gpu_ntt_$name.log" 2>&1
    local rc=$?
    {
        echo "=================== $name: rc=$rc ($(($(date +%s) - t0)) s): $*"
        cat "/tmp/gpu_ntt_$name.log"
    } >>"$LOG"
    echo "$name: rc=$rc ($(($(date +%s) - t0)) s)" >>"$OUT/summary.txt"
    return $rc
}

{
    echo "host: $(uname -m), $(nproc) CPUs"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv 2>&1
    "$NVCC" --version 2>&1 | tail -1
    for t in cmake pkg-config compute-sanitizer ncu cuobjdump; do echo "$t: $(command -v $t || echo missing)"; done
    pkg-config --exists jansson 2>/dev/null && echo "jansson: yes" || echo "jansson: no"
    [ -e /usr/include/openssl/sha.h ] && echo "openssl headers: yes" || echo "openssl headers: no"
} >"$LOG" 2>&1

BIN=${1:-}
if [ -z "$BIN" ] || ! CZK_GPU_NTT_TEST_MAX_LOG=4 "$BIN/test_gpu_ntt" >/tmp/gpu_ntt_smoke.log 2>&1; then
    cat /tmp/gpu_ntt_smoke.log >>"$LOG"
    echo "prebuilt binaries unusable or absent: building here" | tee -a "$OUT/summary.txt"
    BIN=$ROOT/build-gpu-ntt
    step build 400 "$0" build "$BIN" || { tail -50 "$LOG"; exit 1; }
fi
grep -E "Compiling|registers|spill" "$BIN/ptxas_ntt.txt" >>"$LOG" 2>/dev/null

step test 120 "$BIN/test_gpu_ntt"
step bench 100 "$BIN/bench_gpu_ntt" --sizes 24,26,27 --h 27 --reps 5 --check
step bench_tile10 45 env CZK_GPU_NTT_TILE_LOG=10 "$BIN/bench_gpu_ntt" --sizes 27 --h 27 --reps 5 --check
step bench_tile9 30 env CZK_GPU_NTT_TILE_LOG=9 "$BIN/bench_gpu_ntt" --sizes 27 --h 27 --reps 5
if command -v compute-sanitizer >/dev/null; then
    step memcheck 45 env CZK_GPU_NTT_TEST_MAX_LOG=12 compute-sanitizer --tool memcheck \
        --error-exitcode 9 "$BIN/test_gpu_ntt"
    step racecheck 45 env CZK_GPU_NTT_TEST_MAX_LOG=12 compute-sanitizer --tool racecheck \
        --error-exitcode 9 "$BIN/test_gpu_ntt"
fi
if command -v cuobjdump >/dev/null; then
    step sass 30 sh -c "cuobjdump --dump-sass '$BIN/bench_gpu_ntt' | awk '/Function :/ {f=\$3} /^ +\/\*[0-9a-f]+\*\// {op=\$2; if (op ~ /^@/) op=\$3; sub(/[.;].*/, \"\", op); c[f\" \"op]++} END {for (k in c) print k, c[k]}' | sort | grep ntt_pass"
fi
if command -v ncu >/dev/null; then
    timeout 60 ncu --clock-control none --kernel-name regex:ntt_pass --launch-count 3 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
        --section WarpStateStats --section MemoryWorkloadAnalysis \
        "$BIN/bench_gpu_ntt" --sizes 27 --h 0 --reps 1 >"$OUT/ncu.txt" 2>&1
    echo "ncu: rc=$?" >>"$OUT/summary.txt"
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1
echo "=== results"
cat "$OUT/summary.txt"
grep -E "^(ok|FAIL|SKIP)|passed|CHECK" /tmp/gpu_ntt_test.log 2>/dev/null | tail -12
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" /tmp/gpu_ntt_memcheck.log /tmp/gpu_ntt_racecheck.log 2>/dev/null
grep -v '^{' /tmp/gpu_ntt_bench.log 2>/dev/null
grep -v '^{' /tmp/gpu_ntt_bench_tile10.log 2>/dev/null | sed 's/^/tile10: /'
grep -v '^{' /tmp/gpu_ntt_bench_tile9.log 2>/dev/null | sed 's/^/tile9: /'
