#!/usr/bin/env bash
# czk's benchmarks from one entry point: a target builds what it runs with the CMake presets
# (CMakePresets.json: gpu for the GPU targets, bench-cpu for the others) unless BIN names
# binaries built elsewhere, runs its tests and benchmarks, and prints the medians they print
# with the figures, floors and peers bench/RESULTS.md records for them beside. Output is
# line-buffered; logs, tables and the machine's description go to $OUT.
#
#   bash bench/run.sh TARGET [--quick] [ARGS...]   run a target; ARGS replace the default
#                                                  arguments of its benchmark (cpu: the
#                                                  benchmarks to run, e.g. bench_msm)
#   bash bench/run.sh build TARGET...              only build what the targets run (no GPU
#                                                  needed, the GPU targets' tree too)
#   bash bench/run.sh stage TARGET...              build with the gpu preset and pack the
#                                                  binaries for a device call (below; one
#                                                  or two targets fit in its 64 MiB)
#
# Targets ("no GPU" stops a GPU target before anything is built):
#   msm     GPU  test_gpu_msm; bench_gpu_msm (--min-log 20 --max-log 27 --g2-log 24 --reps 5;
#                --configs "-;W=21;R=131072" sweeps the tuning knobs); the field probe
#                (bench/probes); test_gpu_msm under compute-sanitizer memcheck at small
#                sizes (RACE=1: racecheck too)
#   ntt     GPU  test_gpu_ntt; bench_gpu_ntt (--sizes 24,26,27 --h 27 --reps 5 --check);
#                memcheck and racecheck of the test at 2^12
#   prove   GPU  test_gpu_prove, and test_engine and test_engine_fil, whose jobs go to the GPU
#                prover; bench_gpu_prove on the real 32 GiB PoRep partition (--real --reps 3
#                --b2 gpu --pipeline 10: copy rates, a partition alone, two at once, ten back
#                to back, from pageable buffers); memcheck of test_gpu_prove and racecheck of
#                one streamed proof, small
#   setup   GPU  test_gpu_fixed_base, test_gpu_setup; bench_gpu_fixed_base (--g1-log 24
#                --g2-log 22 --reps 5 --cpu-reps 3 --threads <all CPUs>)
#   scale   GPU  czkd at real scale, bench/scale_run.sh (its knobs, SIZE, N_POREP ..., in its
#                header); --quick, or SIZE=2KiB, runs its flow on the CPU
#   real    GPU  czkd on a real .params file, bench/real_path_run.sh; --quick as for scale
#   synth   CPU  bench_synth: a 32 GiB PoRep partition (2 reps) and a 32 GiB SnapDeals one,
#                EVAL and PCE paths (the recordings in /dev/shm; about 20 GiB of memory)
#   daemon  CPU  czkd's front end, bench/bench_daemon.sh
#   cpu     CPU  bench_field, bench_msm, bench_ntt, bench_poseidon, bench_cs, bench_gadgets,
#                bench_sdr, bench_label, bench_merkle, bench_fixture, bench_fixture_sp,
#                bench_setup_stream, and czk against snarkjs (bench/bench_prove.sh)
#   all          msm ntt prove setup on a machine with a GPU; cpu synth daemon otherwise
# --quick: small sizes and few repetitions, the GPU tests at their small sizes, no sanitizer
# runs: a check that a target runs to its end.
#
# Environment:
#   BIN=DIR          binaries built elsewhere; DIR/../lib joins LD_LIBRARY_PATH when it holds
#                    shared libraries (bench/scale_prep.sh's layout)
#   PRESET=NAME      configure preset to build with instead of the target's
#   BUILD_DIR=DIR    a tree of its own for a variant, with CMAKE_ARGS="-DX=1 ..." (words
#                    without spaces) added to `cmake --preset`, e.g. for an A/B of a switch:
#                    BUILD_DIR=build-gpu-lean CMAKE_ARGS=-DCMAKE_CUDA_FLAGS=-DCZK_MSM_G1_LEAN=1
#                    (-DCMAKE_CUDA_FLAGS=-Xptxas=-v puts the kernels' registers and spills in
#                    $OUT/build.log)
#   OUT=DIR          logs and tables (default build-bench/TARGET-<time>, or build-<time>
#                    and stage-<time>)
#   LIMIT_S=S        every step ends within S seconds of the start (a device call's limit
#                    less a margin, e.g. 570); a step with under 15 s left is skipped
#   SANITIZE=0       no compute-sanitizer runs; NCU=1 adds Nsight Compute profiles (msm: the
#                    bucket accumulation, window sums, digits and sort at 2^NCU_LOG (24) and
#                    G2's at 2^NCU_G2_LOG (22); ntt: the three passes of a 2^27 transform)
#   CZK_TEST_PARAMS  test parameters of test_engine_fil (default build-bench/test-params);
#   PROVE_WORK, DAEMON_WORK  the inputs bench_prove.sh and bench_daemon.sh keep between
#                    runs (default build-bench/prove-work, build-bench/daemon-work)
#
# A device call (a build there costs minutes of device time): here
#   bash bench/run.sh stage msm ntt
# (a CUDA build, then bench/scale_prep.sh's build-scale/ packed into build-carry/bench.tar.xz);
# on the device, carry ["build-carry"] and run
#   mkdir -p build-scale && tar -C build-scale -xJf build-carry/bench.tar.xz &&
#     LIMIT_S=570 BIN=build-scale/bin bash bench/run.sh msm
# A/B in one call: run the target once a build or environment, each into its own OUT:
#   for v in a b; do BIN=ab/$v OUT=$OUT/$v bash bench/run.sh msm; done
#   CZK_BENCH_PACK=1 OUT=$OUT/packed BIN=build-scale/bin bash bench/run.sh prove
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

GPU_TARGETS=(msm ntt prove setup scale real)
CPU_TARGETS=(synth daemon cpu)
CPU_BENCHES=(bench_field bench_msm bench_ntt bench_poseidon bench_cs bench_gadgets bench_sdr
    bench_label bench_merkle bench_fixture bench_fixture_sp bench_setup_stream bench_prove)

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 2
}
die() {
    echo "run.sh: $*" >&2
    exit 2
}
is_in() { # WORD LIST...
    local x
    for x in "${@:2}"; do [ "$x" = "$1" ] && return 0; done
    return 1
}
HAVE_GPU=
have_gpu() { # nvidia-smi lists a GPU (asked once)
    if [ -z "$HAVE_GPU" ]; then
        HAVE_GPU=no
        command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && HAVE_GPU=yes
    fi
    [ "$HAVE_GPU" = yes ]
}

# The programs a target runs, and the preset that builds them.
progs_of() {
    case $1 in
        msm) echo test_gpu_msm bench_gpu_msm fr_mul_probe ;;
        ntt) echo test_gpu_ntt bench_gpu_ntt ;;
        prove) echo test_gpu_prove test_engine test_engine_fil bench_gpu_prove ;;
        setup) echo test_gpu_fixed_base test_gpu_setup bench_gpu_fixed_base ;;
        scale | real | daemon) echo czk czkd ;;
        synth) echo bench_synth ;;
        cpu) echo "${CPU_BENCHES[@]/bench_prove/czk}" ;;
        all) if have_gpu; then progs_of_all "${GPU_TARGETS[@]}"; else progs_of_all "${CPU_TARGETS[@]}"; fi ;;
        *) die "unknown target '$1' (bash bench/run.sh --help)" ;;
    esac
}
progs_of_all() {
    local t
    for t in "$@"; do [ "$t" = scale ] || [ "$t" = real ] || progs_of "$t"; done
}
# The czkd runs build for the CPU where they run there (--quick), and for the GPU to be
# carried (build, stage).
preset_of() {
    if [ -n "${PRESET:-}" ]; then echo "$PRESET"
    elif is_in "$1" msm ntt prove setup; then echo gpu
    elif is_in "$1" scale real all && { have_gpu || [ "$MODE" != run ]; }; then echo gpu
    else echo bench-cpu
    fi
}

# ---- building -----------------------------------------------------------------------
# build PRESET PROG...: configures the preset's tree (or BUILD_DIR's, with CMAKE_ARGS) and
# builds the programs; B is then its bin/.
build() {
    local preset=$1 log=$OUT/build.log t0=$SECONDS cfg extra=() dir
    shift
    cfg=(--preset "$preset")
    [ -n "${BUILD_DIR:-}" ] && cfg+=(-B "$BUILD_DIR")
    [ -n "${CMAKE_ARGS:-}" ] && read -r -a extra <<<"$CMAKE_ARGS"
    say "build: cmake ${cfg[*]}${extra[*]:+ ${extra[*]}}, then the targets $*"
    cmake "${cfg[@]}" "${extra[@]}" >"$log" 2>&1 || { tail -20 "$log"; die "cmake ${cfg[*]} failed ($log)"; }
    dir=$(sed -n 's/^-- Build files have been written to: //p' "$log" | tail -1)
    [ -d "$dir" ] || die "no build tree in $log"
    if [ -n "${BUILD_DIR:-}" ]; then
        cmake --build "$dir" -j "$(nproc)" --target "$@" >>"$log" 2>&1
    else
        cmake --build --preset "$preset" -j "$(nproc)" --target "$@" >>"$log" 2>&1
    fi || { grep -E -m 20 "error|Error" "$log"; die "the build failed ($log)"; }
    B=$dir/bin
    say "built in $((SECONDS - t0)) s into $B"
}
# binaries TARGET: B = the directory of the target's programs, built here unless BIN is set.
# A tree built elsewhere may lack the probe, which is then skipped.
OPTIONAL=(fr_mul_probe)
binaries() {
    local progs p missing=
    progs=$(progs_of "$1")
    if [ -z "${BIN:-}" ]; then
        # shellcheck disable=SC2086 # a list of program names
        build "$(preset_of "$1")" $progs
    else
        B=$(cd "$BIN" 2>/dev/null && pwd) || die "BIN=$BIN is not a directory"
        if compgen -G "$B/../lib/*.so*" >/dev/null; then
            LD_LIBRARY_PATH=$(cd "$B/../lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
            export LD_LIBRARY_PATH
        fi
        for p in $progs; do [ -x "$B/$p" ] || is_in "$p" "${OPTIONAL[@]}" || missing="$missing $p"; done
        [ -z "$missing" ] || die "BIN=$BIN lacks$missing (bash bench/run.sh build $1)"
        say "binaries from $B"
    fi
    for p in $progs; do
        [ -x "$B/$p" ] || continue
        missing=$(ldd "$B/$p" 2>/dev/null | awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')
        [ -z "$missing" ] || die "$B/$p cannot load $missing(bench/scale_prep.sh stages them)"
    done
}

# ---- steps ----------------------------------------------------------------------------
say() { printf '[%5ss] %s\n' "$SECONDS" "$*"; }
FAILED=0
# time_for SECONDS: how long the next step may run (LIMIT_S), 0 when it should be skipped.
time_for() {
    local t=$1 left
    if [ -n "${LIMIT_S:-}" ]; then
        left=$((LIMIT_S - SECONDS))
        [ "$left" -lt 15 ] && t=0
        [ "$t" -gt "$left" ] && t=$left
    fi
    echo "$t"
}
# step KIND NAME TIMEOUT COMMAND...: COMMAND, its output in $OUT/NAME.log, cut at TIMEOUT
# seconds (or at LIMIT_S), one line on its exit status in $OUT/summary.txt. KIND bench
# prints the output as it comes (but the JSON lines for machines, which stay in the log);
# test prints the verdict lines once it ends, and its exit status 77 is a skip.
step() {
    local kind=$1 log=$OUT/$2.log t rc t0=$SECONDS
    t=$(time_for "$3")
    shift 3
    if [ "$t" -eq 0 ]; then
        echo "skipped (out of time): ${*//"$B/"/}" | tee -a "$SUM"
        FAILED=1
        return 1
    fi
    local cmd=${*//"$B/"/}
    say "== $cmd"
    echo "=== $*" >>"$log"
    if [ "$kind" = bench ]; then
        timeout "$t" "${LINEBUF[@]}" "$@" 2>&1 | tee -a "$log" | grep --line-buffered -vE '^JSON \{|^\{"bench"'
        rc=${PIPESTATUS[0]}
    else
        timeout "$t" "$@" >>"$log" 2>&1
        rc=$?
        grep -E '^(FAIL|SKIP)|CHECK failed|[0-9]+ passed, [0-9]+ failed|ERROR SUMMARY|RACECHECK SUMMARY' \
            "$log" | tail -20 | sed 's/^/    /'
    fi
    local what="rc=$rc"
    [ "$rc" -eq 124 ] && what="timed out"
    [ "$kind" = test ] && [ "$rc" -eq 77 ] && what="skipped (rc=77)"
    echo "$what, $((SECONDS - t0)) s: $cmd" | tee -a "$SUM"
    if [ "$rc" -ne 0 ] && ! { [ "$kind" = test ] && [ "$rc" -eq 77 ]; }; then FAILED=1; fi
    return "$rc"
}
# recorded SECTION...: the rows of bench/RESULTS.md's sections whose titles start with
# SECTION (each once a run), to set beside the medians above: figure, value, floor, peer.
declare -A SHOWN
recorded() {
    local s
    for s in "$@"; do
        [ -n "${SHOWN[$s]:-}" ] && continue
        SHOWN[$s]=1
        awk -v want="$s" '
            function trim(x) { gsub(/^ +| +$/, "", x); return x }
            /^## / { on = index(substr($0, 4), want) == 1; rows = 0
                     if (on) printf "  bench/RESULTS.md, \"%s\" (figure: value; floor; peer; machine, commit):\n", substr($0, 4)
                     next }
            on && /^\|/ { if (rows++ < 2) next
                     n = split($0, c, "|"); line = "    " trim(c[2]) ": " trim(c[3])
                     if (n > 7) { if (trim(c[4]) != "–") line = line "; floor " trim(c[4])
                                  if (trim(c[5]) != "–") line = line "; peer " trim(c[5]) }
                     print line " (" trim(c[n - 2]) ", " trim(c[n - 1]) ")" }' bench/RESULTS.md
    done
}
sanitizer() {
    command -v compute-sanitizer 2>/dev/null || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer"
}
# sanitize NAME TIMEOUT TOOL BINARY [ENV...]: one compute-sanitizer run at small sizes.
sanitize() {
    local name=$1 t=$2 tool=$3 bin=$4 san extra=()
    shift 4
    if [ "${SANITIZE:-1}" = 0 ] || [ -n "$QUICK" ]; then return 0; fi
    san=$(sanitizer)
    [ -x "$san" ] || { echo "compute-sanitizer not found: $name skipped" | tee -a "$SUM"; return 0; }
    [ "$tool" = memcheck ] && extra=(--leak-check no)
    step test "$name" "$t" env "$@" "$san" --tool "$tool" "${extra[@]}" --error-exitcode 9 "$bin"
}
ncu_bin() {
    local f
    command -v ncu 2>/dev/null && return 0
    for f in /opt/nvidia/nsight-compute/*/ncu; do [ -x "$f" ] && { echo "$f"; return 0; }; done
    return 1
}

# ---- the machine ----------------------------------------------------------------------
probe() {
    {
        echo "date: $(date -u +%FT%TZ)"
        if git rev-parse --short HEAD >/dev/null 2>&1; then
            echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (modified)')"
        fi
        echo "host: $(uname -srm), $(nproc) CPUs"
        lscpu 2>/dev/null | grep -E '^(Model name|Socket|Thread|Core|NUMA node\(s\)|Flags)' | cut -c1-200
        free -g
        df -h "$ROOT" /dev/shm 2>/dev/null
        if command -v nvidia-smi >/dev/null 2>&1; then
            nvidia-smi --query-gpu=index,name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,driver_version,pcie.link.gen.current,pcie.link.width.current \
                --format=csv 2>&1
        else
            echo "nvidia-smi: none"
        fi
        echo "nvcc: $({ nvcc --version 2>/dev/null || "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version 2>/dev/null; } | tail -1)"
        echo "compute-sanitizer: $(s=$(sanitizer); [ -x "$s" ] && echo "$s" || echo none); ncu: $(ncu_bin || true)"
        echo "cmake: $(cmake --version 2>/dev/null | head -1)"
    } >"$OUT/machine.txt" 2>&1
    say "machine: $(grep -m1 '^Model name' "$OUT/machine.txt" | sed 's/.*: *//'), $(nproc) CPUs, $(free -g | awk '/^Mem/ {print $2}') GiB$(have_gpu && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | sed 's/^/; /' | tr '\n' ' ')"
}

# ---- targets --------------------------------------------------------------------------
# opts DEFAULT...: the benchmark's arguments, ARGS when given.
opts() { if [ ${#ARGS[@]} -gt 0 ]; then A=("${ARGS[@]}"); else A=("$@"); fi; }
small=() # the GPU tests' environment under --quick

t_msm() {
    step test test_gpu_msm 150 env "${small[@]}" "$B/test_gpu_msm"
    if [ -n "$QUICK" ]; then opts --min-log 20 --max-log 20 --g2-log 20 --reps 3
    else opts --min-log 20 --max-log 27 --g2-log 24 --reps 5
    fi
    step bench bench_gpu_msm 300 "$B/bench_gpu_msm" "${A[@]}"
    recorded "MSM, GPU"
    if [ -x "$B/fr_mul_probe" ]; then
        step bench fr_mul_probe 120 "$B/fr_mul_probe"
    else
        echo "no fr_mul_probe in $B: the probe is skipped" | tee -a "$SUM"
    fi
    recorded "Field arithmetic, GPU"
    sanitize memcheck-msm 150 memcheck "$B/test_gpu_msm" CZK_TEST_GPU_SMALL=1
    [ -n "${RACE:-}" ] && sanitize racecheck-msm 200 racecheck "$B/test_gpu_msm" CZK_TEST_GPU_SMALL=1
    if [ -n "${NCU:-}" ] && [ -z "$QUICK" ]; then
        local n lg=${NCU_LOG:-24} sec=(--section SpeedOfLight --section Occupancy
            --section SchedulerStats --section WarpStateStats --section LaunchStats)
        n=$(ncu_bin) || true
        [ -x "$n" ] || { echo "ncu not found: profiles skipped" | tee -a "$SUM"; return; }
        step test ncu-msm 120 "$n" --clock-control none "${sec[@]}" --kernel-name "regex:bucket_acc|bucket_sum" \
            --launch-count 4 "$B/bench_gpu_msm" --reps 1 --no-01 --min-log "$lg" --max-log "$lg" --g2-log 0
        step test ncu-msm 120 "$n" --clock-control none "${sec[@]}" --kernel-name "regex:digits|Onesweep" \
            --launch-count 8 "$B/bench_gpu_msm" --reps 1 --no-01 --min-log "$lg" --max-log "$lg" --g2-log 0
        step test ncu-msm 120 "$n" --clock-control none "${sec[@]}" --kernel-name "regex:bucket_acc|bucket_sum" \
            --launch-count 4 "$B/bench_gpu_msm" --reps 1 --no-01 --min-log 30 --max-log 20 --g2-log "${NCU_G2_LOG:-22}"
        grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|[Ss]tall" \
            "$OUT/ncu-msm.log" | head -600 >"$OUT/ncu-msm-brief.txt"
    fi
}

t_ntt() {
    local cap=()
    [ -n "$QUICK" ] && cap=(CZK_GPU_NTT_TEST_MAX_LOG=16)
    step test test_gpu_ntt 150 env "${cap[@]}" "$B/test_gpu_ntt"
    if [ -n "$QUICK" ]; then opts --sizes 24 --h 24 --reps 3 --check
    else opts --sizes 24,26,27 --h 27 --reps 5 --check
    fi
    step bench bench_gpu_ntt 150 "$B/bench_gpu_ntt" "${A[@]}"
    recorded "NTT and the H step, GPU"
    sanitize memcheck-ntt 90 memcheck "$B/test_gpu_ntt" CZK_GPU_NTT_TEST_MAX_LOG=12
    sanitize racecheck-ntt 90 racecheck "$B/test_gpu_ntt" CZK_GPU_NTT_TEST_MAX_LOG=12
    if [ -n "${NCU:-}" ] && [ -z "$QUICK" ]; then
        local n
        n=$(ncu_bin) || true
        [ -x "$n" ] || { echo "ncu not found: profile skipped" | tee -a "$SUM"; return; }
        step test ncu-ntt 90 "$n" --clock-control none --kernel-name regex:ntt_pass --launch-count 3 \
            --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
            --section WarpStateStats --section MemoryWorkloadAnalysis \
            "$B/bench_gpu_ntt" --sizes 27 --h 0 --reps 1
    fi
}

t_prove() {
    export CZK_TEST_PARAMS=${CZK_TEST_PARAMS:-$ROOT/build-bench/test-params}
    mkdir -p "$CZK_TEST_PARAMS"
    step test test_gpu_prove 200 env "${small[@]}" "$B/test_gpu_prove"
    step test test_engine 200 "$B/test_engine"
    # With a GPU present the engine tests require their jobs to be proved there.
    step test test_engine_fil 300 "$B/test_engine_fil"
    if [ -n "$QUICK" ]; then opts --log 24 --reps 2 --b2 gpu --no-pageable --no-pair --pipeline 4 --h2d-gib 1
    else opts --real --reps 3 --b2 gpu --pipeline 10
    fi
    step bench bench_gpu_prove 400 "$B/bench_gpu_prove" "${A[@]}"
    recorded "GPU partition prover" "Host to device"
    sanitize memcheck-prove 120 memcheck "$B/test_gpu_prove" CZK_TEST_GPU_SMALL=1
    # racecheck instruments every shared-memory access and would run the whole test far
    # past any call's limit: one streamed proof, every stage.
    sanitize racecheck-prove 150 racecheck "$B/test_gpu_prove" CZK_TEST_GPU_SMALL=1 CZK_TEST_ONLY=test_errors
}

t_setup() {
    step test test_gpu_fixed_base 240 "$B/test_gpu_fixed_base"
    step test test_gpu_setup 240 "$B/test_gpu_setup"
    if [ -n "$QUICK" ]; then opts --g1-log 20 --g2-log 18 --reps 3 --cpu-reps 1 --threads "$(nproc)"
    else opts --g1-log 24 --g2-log 22 --reps 5 --cpu-reps 3 --threads "$(nproc)"
    fi
    step bench bench_gpu_fixed_base 300 "$B/bench_gpu_fixed_base" "${A[@]}"
    recorded "Test parameters and setup"
}

# scale and real: the kept drivers, which take BIN relative to the repository root.
daemon_run() { # SCRIPT NAME SECTION...
    local script=$1 name=$2 rel env=()
    shift 2
    rel=$(realpath --relative-to="$ROOT" "$B")
    [ -n "$QUICK" ] && env=(SIZE="${SIZE:-2KiB}" N_POREP="${N_POREP:-2}" N_SNAP="${N_SNAP:-1}"
        N_PAGEABLE="${N_PAGEABLE:-0}" LIMITS="${LIMITS:-0}")
    # Under LIMIT_S the driver starts no phase it cannot finish in the time left.
    [ -n "${LIMIT_S:-}" ] && [ -z "${DEADLINE_S:-}" ] && env+=(DEADLINE_S=$((LIMIT_S - SECONDS - 60)))
    step bench "$name" "${LIMIT_S:-7200}" env "${env[@]}" BIN="$rel" OUT="$OUT/$name" bash "bench/$script" "${ARGS[@]}"
    recorded "$@"
}
t_scale() { daemon_run scale_run.sh scale "czkd end to end" "SnapDeals through czkd"; }
t_real() { daemon_run real_path_run.sh real "czkd on the real path"; }

t_synth() {
    local th
    th=$(nproc)
    if [ ${#ARGS[@]} -gt 0 ]; then
        step bench bench_synth 900 "$B/bench_synth" "${ARGS[@]}"
    elif [ -n "$QUICK" ]; then
        step bench synth-porep 300 "$B/bench_synth" --size 32g --challenges 1 --threads "$th" --reps 1
        step bench synth-snap 300 "$B/bench_synth" --size 2k --snap --threads "$th" --reps 1
    else
        step bench synth-porep32g 600 "$B/bench_synth" --size 32g --threads "$th" --reps 2 \
            --pce-file /dev/shm/czk-porep32g.pce
        rm -f /dev/shm/czk-porep32g.pce
        step bench synth-snap32g 600 "$B/bench_synth" --size 32g --snap --threads "$th" --reps 1 \
            --pce-file /dev/shm/czk-snap32g.pce
        rm -f /dev/shm/czk-snap32g.pce
    fi
    recorded "Synthesis"
}

t_daemon() {
    # bench_daemon.sh works in its build tree: give it one of links under DAEMON_WORK, so
    # that a tree built elsewhere (BIN) is only read.
    local w=${DAEMON_WORK:-$ROOT/build-bench/daemon-work} q=()
    mkdir -p "$w/bin"
    ln -sf "$B/czk" "$w/bin/czk"
    ln -sf "$B/czkd" "$w/bin/czkd"
    [ -n "$QUICK" ] && q=(--quick)
    step bench bench_daemon 1200 env CZK_BUILD_DIR="$w" bash bench/bench_daemon.sh "${q[@]}" "${ARGS[@]}"
    recorded "Daemon front end"
}

# cpu_bench NAME: one CPU benchmark, with the arguments its RESULTS.md rows were measured
# with, or small ones under --quick.
cpu_bench() {
    local n=$1 quick=$QUICK
    case $n in
        bench_field)
            step bench "$n" 600 "$B/$n" ${quick:+--quick}
            recorded "Field and curve arithmetic, CPU" ;;
        bench_msm)
            if [ -n "$quick" ]; then
                step bench "$n" 300 "$B/$n" --g1-min 12 --g1-max 14 --g2-min 12 --g2-max 12 --reps 3
            else
                step bench "$n-1t" 1200 "$B/$n" --threads 1 --g1-min 16 --g1-max 20 --g2-min 16 --g2-max 18
                step bench "$n" 1200 "$B/$n" --g1-min 20 --g1-max 20 --g2-min 18 --g2-max 18
                step bench "$n-01" 1200 "$B/$n" --bits01 0.9 --g1-min 20 --g1-max 20 --g2-min 18 --g2-max 18
            fi
            recorded "MSM, CPU" ;;
        bench_ntt)
            if [ -n "$quick" ]; then step bench "$n" 300 "$B/$n" --min 12 --max 16 --reps 3
            else step bench "$n" 1200 "$B/$n"
            fi
            recorded "NTT, CPU" ;;
        bench_poseidon)
            step bench "$n" 600 "$B/$n" ${quick:+--quick}
            recorded "Poseidon" ;;
        bench_cs)
            if [ -n "$quick" ]; then step bench "$n" 300 "$B/$n" --blocks 4 --reps 3
            else step bench "$n" 900 "$B/$n"
            fi
            recorded "Constraint system" ;;
        bench_gadgets)
            if [ -n "$quick" ]; then step bench "$n" 300 "$B/$n" --blocks 2 --hashes 64 --reps 3
            else step bench "$n" 900 "$B/$n"
            fi ;;
        bench_sdr)
            if [ -n "$quick" ]; then
                step bench "$n" 300 "$B/$n" --proof StackedDrg8MiBV1 --nodes 65536 --reps 3 --cache-reps 1 --dir "$TMPW"
            else
                step bench "$n" 1200 "$B/$n" --dir "$TMPW"
            fi
            recorded "SDR, trees, labelling" ;;
        bench_label)
            if [ -n "$quick" ]; then step bench "$n" 300 "$B/$n" --reps 1 --no-big
            else step bench "$n" 1800 "$B/$n"
            fi
            recorded "SDR, trees, labelling" ;;
        bench_merkle)
            step bench "$n" 900 "$B/$n" ${quick:+--quick}
            recorded "SDR, trees, labelling" ;;
        bench_fixture)
            if [ -n "$quick" ]; then step bench "$n" 300 "$B/$n" --reps 1
            else step bench "$n" 900 "$B/$n"
            fi
            recorded "Fixtures" ;;
        bench_fixture_sp)
            step bench "$n" 600 "$B/$n" ${quick:+--quick}
            recorded "Fixtures" ;;
        bench_setup_stream)
            if [ -n "$quick" ]; then step bench "$n" 300 "$B/$n" --reps 1
            else step bench "$n" 900 "$B/$n"
            fi ;;
        bench_prove)
            local w=${PROVE_WORK:-$ROOT/build-bench/prove-work} env=()
            [ -n "$quick" ] && env=(CASES="${CASES:-power5_16}" CZK_REPS=1 SJ_REPS_16=1)
            step bench "$n" 3600 env "${env[@]}" bash bench/bench_prove.sh "$w" "$B/czk"
            recorded "Groth16 on the CPU" ;;
    esac
}
t_cpu() {
    local n list=("${CPU_BENCHES[@]}")
    [ ${#ARGS[@]} -gt 0 ] && list=("${ARGS[@]}")
    for n in "${list[@]}"; do cpu_bench "$n"; done
}

run_target() {
    case $1 in
        msm) t_msm ;; ntt) t_ntt ;; prove) t_prove ;; setup) t_setup ;;
        scale) t_scale ;; real) t_real ;; synth) t_synth ;; daemon) t_daemon ;; cpu) t_cpu ;;
    esac
}

# ---- main -----------------------------------------------------------------------------
# One function, read whole before it runs, so that editing this file does not disturb a run.
main() {
    [ $# -ge 1 ] || usage
    case $1 in -h | --help | help) usage ;; esac
    MODE=run
    if [ "$1" = build ] || [ "$1" = stage ]; then
        MODE=$1
        shift
        [ $# -ge 1 ] || die "$MODE: name the targets"
    fi
    TARGET=$1
    shift
    QUICK=${QUICK:-}
    [ "$QUICK" = 0 ] && QUICK=
    ARGS=()
    for a in "$@"; do
        if [ "$a" = --quick ]; then QUICK=1; else ARGS+=("$a"); fi
    done
    [ -n "$QUICK" ] && small=(CZK_TEST_GPU_SMALL=1)
    for t in $TARGET; do progs_of "$t" >/dev/null; done
    if [ "$MODE" = run ]; then
        case $TARGET in
            all)
                [ ${#ARGS[@]} -eq 0 ] || die "all takes only --quick"
                if have_gpu; then TARGETS="msm ntt prove setup"; else TARGETS=${CPU_TARGETS[*]}; fi ;;
            cpu)
                TARGETS=cpu
                for n in "${ARGS[@]}"; do
                    is_in "$n" "${CPU_BENCHES[@]}" || die "cpu: no benchmark '$n' (one of ${CPU_BENCHES[*]})"
                done ;;
            *) TARGETS=$TARGET ;;
        esac
        # A GPU target (or a czkd run at full size) needs a GPU: say so before building.
        for t in $TARGETS; do
            if ! is_in "$t" "${GPU_TARGETS[@]}" || have_gpu; then continue; fi
            if { [ "$t" = scale ] || [ "$t" = real ]; } && { [ -n "$QUICK" ] || [ "${SIZE:-}" = 2KiB ]; }; then
                continue
            fi
            echo "run.sh $t: no GPU (nvidia-smi lists none); the $t target needs one$(
                { [ "$t" = scale ] || [ "$t" = real ]; } && echo ' (--quick or SIZE=2KiB runs its flow on the CPU)')" >&2
            exit 3
        done
    fi

    local name=$TARGET
    [ "$MODE" = run ] || name=$MODE
    OUT=${OUT:-$ROOT/build-bench/$name-$(date -u +%Y%m%d-%H%M%S)}
    mkdir -p "$OUT" || die "cannot make OUT=$OUT"
    OUT=$(cd "$OUT" && pwd)
    SUM=$OUT/summary.txt
    LINEBUF=()
    command -v stdbuf >/dev/null && LINEBUF=(stdbuf -oL -eL)

    if [ "$MODE" != run ]; then
        # build: each target's programs in its preset's tree (a GPU target's needs no GPU);
        # stage: all of them in the gpu tree, staged and packed.
        declare -A by_preset
        for t in $TARGET "${ARGS[@]}"; do
            [ "$t" = all ] && t="${GPU_TARGETS[*]} ${CPU_TARGETS[*]}"
            for x in $t; do
                if [ "$MODE" = stage ]; then p=${PRESET:-gpu}; else p=$(preset_of "$x"); fi
                by_preset[$p]="${by_preset[$p]:-} $(progs_of "$x")"
            done
        done
        for p in "${!by_preset[@]}"; do
            # shellcheck disable=SC2086 # lists of program names
            progs=$(printf '%s\n' ${by_preset[$p]} | sort -u | grep -vxE 'czkd?' | tr '\n' ' ')
            # shellcheck disable=SC2086
            build "$p" czk czkd $progs
            [ "$MODE" = stage ] || continue
            BUILD=$(dirname "$B") EXTRA="$progs" bash bench/scale_prep.sh || die "bench/scale_prep.sh failed"
            mkdir -p build-carry
            tar -C build-scale -cf - . | xz -T0 -6 >build-carry/bench.tar.xz || die "packing failed"
            mib=$(($(stat -c %s build-carry/bench.tar.xz) / 1048576))
            say "build-carry/bench.tar.xz: $mib MiB"
            # Each program carries all the kernels (about 16 MiB, 5 packed): one or two
            # targets fit in a call.
            if [ "$mib" -ge 64 ]; then
                rm -f build-carry/bench.tar.xz
                die "the pack is $mib MiB, over the 64 MiB a device call carries: stage fewer targets at a time"
            fi
            say "on the device: mkdir -p build-scale && tar -C build-scale -xJf build-carry/bench.tar.xz &&" \
                "LIMIT_S=570 BIN=build-scale/bin bash bench/run.sh TARGET"
        done
        exit 0
    fi

    # Everything printed goes to run.log too; at exit the tee is given its end of file and
    # waited for, so that the last lines are not lost.
    exec 3>&1 4>&2 > >(tee -a "$OUT/run.log") 2>&1
    TEE_PID=$!
    mkdir -p "$ROOT/build-bench"
    TMPW=$(mktemp -d "$ROOT/build-bench/scratch.XXXXXX")
    trap 'rm -rf "$TMPW"; exec 1>&3 2>&4; wait "$TEE_PID" 2>/dev/null || true' EXIT
    say "bench/run.sh $TARGET${QUICK:+ --quick}${ARGS[*]:+ ${ARGS[*]}}: logs in $OUT"
    probe
    binaries "$TARGET"
    for t in $TARGETS; do
        say "=== $t"
        run_target "$t"
    done
    say "=== summary ($SUM)"
    cat "$SUM"
    [ "$FAILED" = 0 ] || { say "some steps failed"; exit 1; }
}

main "$@"
exit $?
