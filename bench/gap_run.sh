#!/usr/bin/env bash
# The czkd-vs-bench gap (issue #8's per-partition figure) in one device call on
# nvidia-h200-x2 (one GPU used, 32 vCPUs to keep it fed): GPU tests (TESTS), the real
# 32 GiB PoRep partition pipelined in bench_gpu_prove (MODES), MSM knobs in bench_gpu_msm
# (MSM_ARGS) and czkd GPU-bound (CZKD_MODES), each mode an environment (mode_env below);
# SANITIZE=1 adds compute-sanitizer runs of test_gpu_prove.
# Outputs are tarred into $OUT/gap.tgz (a call returns a few files only).
#
# Prepare here:
#   BUILD=build-lead EXTRA="test_gpu_prove test_gpu_msm" bash bench/scale_prep.sh
#   mkdir -p build-carry && tar -C build-scale -cf - . | xz > build-carry/scale.tar.xz
#   PROGS="bench_gpu_prove bench_gpu_msm" bash bench/gpu_prove_run.sh build build-gap
#   mkdir -p /tmp/bgpd && strip -o /tmp/bgpd/bgp build-gap/bench_gpu_prove &&
#     strip -o /tmp/bgpd/bgm build-gap/bench_gpu_msm && tar -C /tmp/bgpd -cf - . | xz > build-carry/bgp.tar.xz
# Device: carry ["build-carry"], kind nvidia-h200-x2, command e.g.
#   TESTS=test_gpu_prove MODES=default MSM_ARGS=none CZKD_MODES=w3 bash bench/gap_run.sh
# MODES (default "default") are the bench's pipelines, 45-75 s each; CZKD_MODES
# (default "default") the czkd runs, ~230-250 s each, so one call holds one of them. On the
# sixth session's build: bench 1.114 s a partition (first to last, ~7 % low: 1.168 s over whole
# cycles, RESULTS.md), czkd 1.228 s; seventh session's: bench 1.158 s, czkd 1.202 s.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/czk-gap}
mkdir -p "$OUT" build-scale bgp
tar -C build-scale -xJf build-carry/scale.tar.xz && tar -C bgp -xJf build-carry/bgp.tar.xz || exit 1
export LD_LIBRARY_PATH=$PWD/build-scale/lib
BUDGET=${BUDGET:-570}
SUM=$OUT/summary.txt
. bench/device_step.sh
MODES=${MODES:-"default"}
CZKD_MODES=${CZKD_MODES:-"default"}
# A mode's environment: default (none), deps0 (CZK_GPU_POOL_DEPS=0), wf0
# (CZK_GPU_WITNESS_FIRST=0: the witness MSMs at the H MSM's stream priority), hw
# (CZK_GPU_H_LEVEL=witness: the H MSM at the witness MSMs' level), w3 (czkd only: three prove
# workers a GPU).
mode_env() {
    env_m=()
    case $1 in
        deps0) env_m=(CZK_GPU_POOL_DEPS=0) ;;
        wf0) env_m=(CZK_GPU_WITNESS_FIRST=0) ;;
        hw) env_m=(CZK_GPU_H_LEVEL=witness) ;;
        w3) env_m=(GPU_WORKERS=3) ;;
    esac
}
# TESTS: GPU tests from build-scale/bin run first (e.g. "test_gpu_prove").
for t in ${TESTS:-}; do
    step "test-$t.log" 240 env CUDA_VISIBLE_DEVICES=0 build-scale/bin/$t
    tail -2 "$OUT/test-$t.log" | tee -a "$SUM"
done
# SANITIZE=1: test_gpu_prove at small sizes under compute-sanitizer memcheck, and one of its
# tests (a streamed proof, every stage) under racecheck, as bench/gpu_prove_run.sh does.
if [ -n "${SANITIZE:-}" ]; then
    SAN=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
    step memcheck.log 80 env CUDA_VISIBLE_DEVICES=0 CZK_TEST_GPU_SMALL=1 "$SAN" --tool memcheck \
        --leak-check no --error-exitcode 9 build-scale/bin/test_gpu_prove
    step racecheck.log 100 env CUDA_VISIBLE_DEVICES=0 CZK_TEST_GPU_SMALL=1 \
        CZK_TEST_ONLY=test_errors "$SAN" --tool racecheck --error-exitcode 9 \
        build-scale/bin/test_gpu_prove
    grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT"/memcheck.log "$OUT"/racecheck.log | tee -a "$SUM"
fi
for m in $MODES; do
    mode_env "$m"
    # The default mode also times single partitions (the GPU to one proof at a time).
    reps=(--reps 1 --pipeline-only)
    [ "$m" = default ] && reps=(--reps 3)
    step "pipe-$m.log" 90 env CUDA_VISIBLE_DEVICES=0 "${env_m[@]}" bgp/bgp --real "${reps[@]}" \
        --b2 gpu --no-pageable --pipeline 10
    grep -h "pipelined\|per proof\|wall marks\|median" "$OUT/pipe-$m.log" | tee -a "$SUM"
done
# MSM knobs (bench_gpu_msm, when staged as bgp/bgm): MSM_ARGS, by default the G2 bucket
# reduction's thread count at 2^24 (53K threads of 128-bucket segments is 1.6 waves of the
# accumulation's occupancy), G1 2^24 beside it for the 3.5x rule. MSM_ARGS=none skips it.
MSM_ARGS=${MSM_ARGS:-"--min-log 24 --max-log 24 --g2-log 24 --no-01 --configs R=65536;R=131072;R=262144;R=32768"}
if [ -x bgp/bgm ] && [ "$MSM_ARGS" != none ]; then
    # shellcheck disable=SC2086 # MSM_ARGS is a list of arguments without spaces in them
    step msm.log 90 env CUDA_VISIBLE_DEVICES=0 CZK_GPU_MSM_PHASES=1 bgp/bgm $MSM_ARGS
    grep -h "random\|phases" "$OUT/msm.log" | tee -a "$SUM"
fi
# NCU=1: Nsight Compute on the MSM's kernels (bench_gpu_msm after a warm-up): duration, SM
# and memory throughput, occupancy, issue-slot use and warp stall reasons of the G1 bucket
# accumulation and window sums at 2^NCU_LOG, of the digits and sort passes there, and of
# G2's accumulation and window sums at 2^NCU_G2_LOG (clock control off, as METHOD.md asks).
if [ -n "${NCU:-}" ] && [ -x bgp/bgm ]; then
    NCU_BIN=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    ncu_run() { # regex count bench-args...
        local rx=$1 cnt=$2
        shift 2
        step ncu.log 100 env CUDA_VISIBLE_DEVICES=0 "$NCU_BIN" --clock-control none \
            --section SpeedOfLight --section Occupancy --section SchedulerStats \
            --section WarpStateStats --section LaunchStats --kernel-name "regex:$rx" \
            --launch-count "$cnt" bgp/bgm --reps 1 --no-01 "$@"
    }
    lg=${NCU_LOG:-24}
    ncu_run "bucket_acc|bucket_sum" 4 --min-log "$lg" --max-log "$lg" --g2-log 0
    ncu_run "digits|Onesweep" 8 --min-log "$lg" --max-log "$lg" --g2-log 0
    ncu_run "bucket_acc|bucket_sum" 4 --min-log 30 --max-log 20 --g2-log "${NCU_G2_LOG:-22}"
    grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Stall|stall" \
        "$OUT/ncu.log" | head -600 > "$OUT/ncu-brief.txt"
fi
for m in $CZKD_MODES; do
    left=$((BUDGET - SECONDS - 10))
    [ "$left" -lt 240 ] && { echo "czkd $m: skipped, ${left}s left" | tee -a "$SUM"; continue; }
    mode_env "$m"
    env CUDA_VISIBLE_DEVICES=0 "${env_m[@]}" OUT="$OUT/czkd-$m" SIZE=32GiB N_POREP=6 N_SNAP=0 \
        N_PAGEABLE=0 BUDGET=120GiB SYNTH_WORKERS=5 SYNTH_THREADS=30 DEADLINE_S=$((left - 30)) \
        WIN_DELAY=30 timeout "$left" bash bench/scale_run.sh > "$OUT/czkd-$m.out" 2>&1
    grep -E "steady_per_proof|interval|median_overlap|smi_mem|WinningPoSt" "$OUT/czkd-$m.out" |
        sed "s/^/czkd $m: /" | tee -a "$SUM"
done
tar -C "$OUT" -czf "$OUT/gap.tgz" --exclude=gap.tgz . 2>/dev/null
cat "$SUM"
