#!/usr/bin/env bash
# The czkd-vs-bench gap (issue #8's per-partition figure) in one device call on
# nvidia-h200-x2 (one GPU used, 32 vCPUs to keep it fed): the real 32 GiB PoRep partition
# pipelined in bench_gpu_prove and czkd GPU-bound, each with CUDA's pool default and with
# CZK_GPU_POOL_DEPS=0 (no allocation made to wait on another stream's pending free; see
# cuda/msm.cu). Outputs are tarred into $OUT/gap.tgz (a call returns a few files only).
#
# Prepare here:
#   BUILD=build-lead EXTRA=" " bash bench/scale_prep.sh
#   PROGS=bench_gpu_prove bash bench/gpu_prove_run.sh build build-gap
#   mkdir -p build-carry && tar -C build-scale -cf - . | xz > build-carry/scale.tar.xz
#   strip -o /tmp/bgp build-gap/bench_gpu_prove && tar -C /tmp -cf - bgp | xz > build-carry/bgp.tar.xz
# Device: carry ["build-carry"], kind nvidia-h200-x2, command: bash bench/gap_run.sh
# MODES (default "default deps0") are the bench's pipelines, ~45 s each; CZKD_MODES (default
# "deps0": the default was measured at 1.307 s a partition) the czkd runs, ~250 s each, so one
# call holds one of them.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/czk-gap}
mkdir -p "$OUT" build-scale bgp
tar -C build-scale -xJf build-carry/scale.tar.xz && tar -C bgp -xJf build-carry/bgp.tar.xz || exit 1
export LD_LIBRARY_PATH=$PWD/build-scale/lib
BUDGET=${BUDGET:-570}
SUM=$OUT/summary.txt
. bench/device_step.sh
MODES=${MODES:-"default deps0"}
CZKD_MODES=${CZKD_MODES:-"deps0"}
for m in $MODES; do
    env_m=()
    [ "$m" = deps0 ] && env_m=(CZK_GPU_POOL_DEPS=0)
    step "pipe-$m.log" 60 env CUDA_VISIBLE_DEVICES=0 "${env_m[@]}" bgp/bgp --real --reps 1 \
        --b2 gpu --no-pageable --pipeline 10 --pipeline-only
    grep -h "pipelined\|per proof\|wall marks" "$OUT/pipe-$m.log" | tee -a "$SUM"
done
for m in $CZKD_MODES; do
    left=$((BUDGET - SECONDS - 10))
    [ "$left" -lt 240 ] && { echo "czkd $m: skipped, ${left}s left" | tee -a "$SUM"; continue; }
    env_m=()
    [ "$m" = deps0 ] && env_m=(CZK_GPU_POOL_DEPS=0)
    env CUDA_VISIBLE_DEVICES=0 "${env_m[@]}" OUT="$OUT/czkd-$m" SIZE=32GiB N_POREP=6 N_SNAP=0 \
        N_PAGEABLE=0 BUDGET=120GiB SYNTH_WORKERS=5 SYNTH_THREADS=30 DEADLINE_S=$((left - 30)) \
        WIN_DELAY=30 timeout "$left" bash bench/scale_run.sh > "$OUT/czkd-$m.out" 2>&1
    grep -E "steady_per_proof|interval|median_overlap|smi_mem|WinningPoSt" "$OUT/czkd-$m.out" |
        sed "s/^/czkd $m: /" | tee -a "$SUM"
done
tar -C "$OUT" -czf "$OUT/gap.tgz" --exclude=gap.tgz . 2>/dev/null
cat "$SUM"
