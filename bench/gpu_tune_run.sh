#!/usr/bin/env bash
# One bounded device call that checks and sweeps the GPU MSM and NTT tuning knobs, with
# binaries built beforehand on another machine (no build here: it would cost minutes of
# device time). Logs go to $OUT (at most a handful of files).
#
#   bench/gpu_tune_run.sh sweep   tests (MSM defaults, MSM with the knobs moved, NTT), then
#                                 the MSM knob sweep (bench_gpu_msm --configs) at 2^24..2^27
#                                 and G2 2^24, and the NTT bench for both Fr reductions
#   bench/gpu_tune_run.sh final   tests and benchmarks at the defaults (build-gputune/msmf/bin,
#                                 build-gputune/nttf), with the remaining knobs beside them
#
# Binaries (build here first):
#   CZK_GPU_BIN=build-gputune/msm/bin CZK_GPU_CMAKE=off bash bench/gpu_run.sh build
#   NVCC_EXTRA=-DCZK_FR_REDUCE_SPECIAL=0 bash bench/gpu_ntt_run.sh build build-gputune/ntt0
#   NVCC_EXTRA=-DCZK_FR_REDUCE_SPECIAL=1 bash bench/gpu_ntt_run.sh build build-gputune/ntt1
#   NVCC_EXTRA=-DCZK_MSM_ACC_MIN_BLOCKS=4 CZK_GPU_BIN=build-gputune/msm4/bin ... gpu_run.sh build
# carry: build-gputune/msm/bin build-gputune/msm4/bin build-gputune/ntt0 build-gputune/ntt1
set -u
cd "$(dirname "$0")/.."
MODE=${1:-sweep}
OUT=${OUT:-/tmp/czk-gpu-tune}
mkdir -p "$OUT"
MSM=${CZK_GPU_BIN:-build-gputune/msm/bin}
MSM4=build-gputune/msm4/bin
NTT0=build-gputune/ntt0
NTT1=build-gputune/ntt1
SUM=$OUT/summary.txt

# Every step ends by BUDGET seconds after the start (the device call's limit, less a margin).
BUDGET=${BUDGET:-280}
. bench/device_step.sh # (the script runs from the repository root)

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv,noheader | tee -a "$SUM"

if [ "$MODE" = sweep ]; then
    step msm_test.log 60 "$MSM/test_gpu_msm"
    step msm_test.log 60 env CZK_GPU_MSM_OVERLAP=1 "$MSM/test_gpu_msm"
    step ntt.log 60 "$NTT1/test_gpu_ntt"
    step msm_bench.log 120 env CZK_GPU_MSM_PHASES=1 "$MSM/bench_gpu_msm" --max-log 27 \
        --min-log 24 --no-01 --g2-log 24 --reps 3 \
        --configs "-;O=1;W=21;W=23;L=64;R=262144;R=16384"
    step ntt.log 40 "$NTT0/bench_gpu_ntt" --sizes 27 --h 27 --reps 5
    step ntt.log 40 "$NTT1/bench_gpu_ntt" --sizes 27 --h 27 --reps 5 --check
    # G1 accumulation built with __launch_bounds__(128, 4) (CZK_MSM_ACC_MIN_BLOCKS=4).
    step msm_bench.log 40 env CZK_GPU_MSM_PHASES=1 "$MSM4/bench_gpu_msm" --max-log 27 \
        --min-log 26 --no-01 --g2-log 0 --reps 3 --configs "-;O=1"
    step msm_test.log 50 "$MSM4/test_gpu_msm"
else
    # The defaults (first configuration), and the knobs still open around them.
    MSM=${CZK_GPU_BIN:-build-gputune/msmf/bin}
    NTT=build-gputune/nttf
    step msm_test.log 60 "$MSM/test_gpu_msm"
    step msm_test.log 60 env CZK_GPU_MSM_OVERLAP=1 "$MSM/test_gpu_msm"
    step msm_bench.log 130 env CZK_GPU_MSM_PHASES=1 "$MSM/bench_gpu_msm" --max-log 27 --reps 5 \
        --configs "${MSM_CONFIGS:--;O=1;L=256;L=512;O=1,L=256;R=524288}"
    step ntt.log 60 "$NTT/bench_gpu_ntt" --sizes 24,26,27 --h 27 --reps 5 --check
    step ntt.log 60 "$NTT/test_gpu_ntt"
fi

echo "=== results"
cat "$SUM"
grep -hE "[0-9]+ passed, [0-9]+ failed|^FAIL|CHECK failed" "$OUT/msm_test.log" "$OUT/ntt.log" | head -20
grep -E "^(G1|G2)|^Fp|^Fr" "$OUT/msm_bench.log"
grep -hE "msm phases" "$OUT/msm_bench.log" | awk '!seen[$0]++' | tail -40 >"$OUT/phases.txt"
grep -vE '^\{|^=====' "$OUT/ntt.log" | grep -E "ms |CHECK|check" | tail -30
