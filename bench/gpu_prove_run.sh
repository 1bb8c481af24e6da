#!/usr/bin/env bash
# The GPU Groth16 prover (src/groth16/gpu_prove.cu) on a GPU machine: build, tests, sanitizers and the
# benchmark in one bounded call; logs go to $OUT.
#
#   bench/gpu_prove_run.sh build [DIR]          build the binaries into DIR (default
#                                               build-gprove) and stop; no GPU needed
#   bench/gpu_prove_run.sh run [DIR] [bench args]   run everything with the binaries in DIR,
#                                               building them first if they do not load
#
# One device call, binaries built here beforehand (bash bench/gpu_prove_run.sh build):
#   carry: build-gprove    command: bash bench/gpu_prove_run.sh run
#
# The build compiles the library's C sources (a file that does not compile here, e.g. one
# being edited, is skipped: the static archive only contributes what the programs use) and
# every .cu (cuda/, and the prover in src/groth16) with gcc and nvcc, no CMake, and links the CUDA runtime, libstdc++ and,
# where the static archives exist, OpenSSL and jansson statically, so the binaries load on
# a bare GPU image. Programs: test_gpu_prove, test_gpu_msm, test_gpu_ntt, bench_gpu_prove.
#
# Steps of "run", each bounded in time, ending within BUDGET seconds (default 440):
# environment report; test_gpu_prove (full sizes, to 2^20); bench_gpu_prove (2^27);
# test_gpu_prove under compute-sanitizer memcheck and racecheck with CZK_TEST_GPU_SMALL=1;
# test_gpu_ntt and test_gpu_msm if time is left. A summary closes the output.
set -u
cd "$(dirname "$0")/.."
MODE=${1:-run}
[ $# -gt 0 ] && shift
DIR=build-gprove
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
    DIR=$1
    shift
fi
OUT=${OUT:-$DIR/out}
mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$NVCC")")}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
PROGS=${PROGS:-"test_gpu_prove test_gpu_msm test_gpu_ntt bench_gpu_prove"}

build() {
    # Objects are kept in DIR-obj (beside DIR, so that carrying DIR takes only the programs)
    # and rebuilt only when older than their source or the
    # headers they may use, so a rebuild after editing one file takes seconds.
    local obj=$DIR-obj f o t0=$SECONDS
    mkdir -p "$obj" || return 1
    local hdr_c hdr_cu
    hdr_c=$(ls -t include/czk/*.h $(find src -name '*.h') 2>/dev/null | head -1)
    hdr_cu=$(ls -t cuda/*.cuh cuda/*.h include/czk/common.h include/czk/gpu.h include/czk/msm.h \
        include/czk/ntt.h include/czk/groth16.h include/czk/bls12_381.h src/groth16/prove_common.h \
        src/groth16/gpu_prove.cuh | head -1)
    stale() { [ ! -e "$2" ] || [ "$1" -nt "$2" ] || [ "$3" -nt "$2" ]; }
    local cflags=(-O2 -std=gnu11 -D_GNU_SOURCE '-DCZK_VERSION_STRING="0.1.0"' -DCZK_HAVE_CUDA=1
        -Iinclude -Isrc -Icuda -fvisibility=hidden)
    local nvflags=(-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90
        -gencode=arch=compute_90,code=compute_90 --expt-relaxed-constexpr -lineinfo
        -Xcompiler=-fvisibility=hidden -DCZK_HAVE_CUDA=1 -Iinclude -Isrc -Icuda ${NVCC_EXTRA:-})
    # The CUDA files first (msm.cu takes minutes), in the background.
    local pids=()
    for f in cuda/*.cu src/groth16/*.cu; do
        o=$obj/$(basename "$f" .cu)_cu.o
        stale "$f" "$o" "$hdr_cu" || continue
        rm -f "$o"
        "$NVCC" "${nvflags[@]}" -c "$f" -o "$o" >"$o.log" 2>&1 &
        pids+=($!)
    done
    for f in $(find src -name '*.c' ! -path 'src/cli/*' ! -path 'src/server/*' ! -name '*_adx.c' \
        ! -name '*_none.c' | sort); do
        o=$obj/$(echo "$f" | tr / _).o
        stale "$f" "$o" "$hdr_c" || continue
        rm -f "$o"
        (gcc "${cflags[@]}" -c "$f" -o "$o" 2>"$o.err" || { echo "skipped $f: $(grep -m1 error "$o.err")"; rm -f "$o"; }) &
        while [ "$(jobs -rp | wc -l)" -ge "$((JOBS + ${#pids[@]}))" ]; do sleep 0.2; done
    done
    local p rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    wait
    if [ $rc -ne 0 ]; then
        cat "$obj"/*_cu.o.log
        return 1
    fi
    rm -f "$obj/libczkg.a"
    ar rcs "$obj/libczkg.a" $(ls "$obj"/*.o | grep -v '\.main\.o$') || return 1
    local extra=()
    for a in libcrypto.a libjansson.a libsqlite3.a; do
        for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
            [ -e "$d/$a" ] && { extra+=("$d/$a"); break; }
        done
    done
    local libs=("$obj/libczkg.a" "${extra[@]}" -L"$CUDA_HOME/lib64" -lcudart_static -ldl -lrt
        -lpthread -lm)
    local warn=(-Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes
        -Wmissing-prototypes -Wvla -I"$CUDA_HOME/include" -Itests -Ibench)
    for p in $PROGS; do
        f=tests/gpu/$p.c
        [ -e "$f" ] || f=bench/$p.c
        gcc "${cflags[@]}" "${warn[@]}" -c "$f" -o "$obj/$p.main.o" || return 1
        g++ -static-libstdc++ -static-libgcc -o "$DIR/$p" "$obj/$p.main.o" -Wl,--start-group \
            "${libs[@]}" -Wl,--end-group || return 1
    done
    echo "built $PROGS in $DIR ($((SECONDS - t0)) s)"
}

loads_here() {
    local p
    for p in $PROGS; do
        [ -x "$DIR/$p" ] || return 1
        ldd "$DIR/$p" 2>&1 | grep -q "not found" && return 1
    done
    return 0
}

if [ "$MODE" = build ]; then
    build
    exit $?
fi

SUM=$OUT/summary.txt
: >"$SUM"
BUDGET=${BUDGET:-440}
STEP_MIN_S=20
. bench/device_step.sh # (the script runs from the repository root)

echo "== $(date -u +%FT%TZ) $(uname -m)" | tee -a "$SUM"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader 2>&1 | tee -a "$SUM"
echo "cpus: $(nproc)" | tee -a "$SUM"
if loads_here; then
    echo "binaries from $DIR" | tee -a "$SUM"
else
    step build.log 300 bash "$0" build "$DIR" || { cat "$OUT/build.log" | tail -30; exit 1; }
fi

step test.log 150 "$DIR/test_gpu_prove"
step bench.log 200 "$DIR/bench_gpu_prove" "$@"
SAN=$(command -v compute-sanitizer || echo "$CUDA_HOME/bin/compute-sanitizer")
if [ -x "$SAN" ]; then
    step memcheck.log 80 env CZK_TEST_GPU_SMALL=1 "$SAN" --tool memcheck --leak-check no \
        --error-exitcode 9 "$DIR/test_gpu_prove"
    # racecheck instruments every shared-memory access (the NTT and MSM kernels) and runs
    # the whole test far past any budget: one test, small (a streamed proof, every stage).
    step racecheck.log 100 env CZK_TEST_GPU_SMALL=1 CZK_TEST_ONLY=test_errors "$SAN" \
        --tool racecheck --error-exitcode 9 "$DIR/test_gpu_prove"
else
    echo "compute-sanitizer not found" | tee -a "$SUM"
fi
step test.log 60 "$DIR/test_gpu_ntt"
step test.log 90 "$DIR/test_gpu_msm"

echo "=== results"
cat "$SUM"
grep -hE "^(ok|FAIL) |passed, |CHECK failed|SKIP" "$OUT/test.log" | head -40
grep -hE "ERROR SUMMARY|passed, |CHECK failed" "$OUT/memcheck.log" "$OUT/racecheck.log" 2>/dev/null | head
grep -vE "^JSON" "$OUT/bench.log" | tail -40
grep -E "^JSON" "$OUT/bench.log"
