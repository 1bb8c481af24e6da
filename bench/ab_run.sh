#!/usr/bin/env bash
# A/B of GPU builds in one device call: for each build staged in build-carry/ab.tar.xz
# (folders named after the variant, each with test_gpu_msm, and optionally test_gpu_prove,
# bench_gpu_msm and bench_gpu_prove, stripped), the GPU tests, the MSM benchmark
# (MSM_ARGS) and the real 32 GiB PoRep partition pipelined (bench_gpu_prove --real
# --pipeline 10, PIPE=0 skips it), one variant after the other, so that every figure of a
# variant is taken on the same machine as the others'. Outputs in $OUT (summary.txt).
#
# Prepare here, e.g. for the default build and a variant built with other nvcc flags:
#   PROGS="bench_gpu_prove bench_gpu_msm test_gpu_msm test_gpu_prove" \
#     bash bench/gpu_prove_run.sh build build-gap
#   NVCC_EXTRA=-DCZK_MSM_G1_LEAN=1 PROGS=... bash bench/gpu_prove_run.sh build build-gapA
#   for v in default:build-gap A:build-gapA; do mkdir -p /tmp/ab/${v%%:*}; for p in ...; do
#     strip -o /tmp/ab/${v%%:*}/$p ${v#*:}/$p; done; done
#   tar -C /tmp/ab -cf - . | xz -T2 -6 > build-carry/ab.tar.xz
# Device: carry ["build-carry"], command: VARIANTS="default A" bash bench/ab_run.sh
# A variant may name an environment after '@' (commas between settings): VARIANTS="default
# default@CZK_GPU_COPY_ORDER=witness" runs the default build twice, the second time with
# the witness copied first. Its logs are named after the whole spec, '@=,' made '_'.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/czk-ab}
mkdir -p "$OUT" ab
tar -C ab -xJf build-carry/ab.tar.xz || exit 1
BUDGET=${BUDGET:-570}
SUM=$OUT/summary.txt
. bench/device_step.sh
MSM_ARGS=${MSM_ARGS:-"--min-log 24 --max-log 27 --g2-log 24"}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv,noheader | tee -a "$SUM"
declare -A tested # a build's tests (and sanitizer runs) once, whatever its variants' environments
for spec in ${VARIANTS:-default}; do
    d=ab/${spec%%@*}
    venv=()
    if [ "$spec" != "${spec#*@}" ]; then IFS=, read -r -a venv <<<"${spec#*@}"; fi
    v=$(printf '%s' "$spec" | tr '@=,' '___')
    echo "=== $spec" | tee -a "$SUM"
    first=1
    [ -n "${tested[$d]:-}" ] && first=0
    tested[$d]=1
    for t in test_gpu_msm test_gpu_prove; do
        [ "$first" = 1 ] || continue
        [ -x "$d/$t" ] || continue
        step "$v-$t.log" 120 env CUDA_VISIBLE_DEVICES=0 "${venv[@]}" "$d/$t"
        grep -E "passed, [0-9]+ failed|^FAIL" "$OUT/$v-$t.log" | tee -a "$SUM"
    done
    # SANITIZE=1: compute-sanitizer memcheck of both tests at small sizes (RACE=1: and racecheck
    # of the MSM's).
    if [ -n "${SANITIZE:-}" ] && [ "$first" = 1 ]; then
        SAN=$(command -v compute-sanitizer ||
            echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
        for t in test_gpu_msm test_gpu_prove; do
            [ -x "$d/$t" ] || continue
            step "$v-memcheck.log" 120 env CUDA_VISIBLE_DEVICES=0 CZK_TEST_GPU_SMALL=1 "${venv[@]}" "$SAN" \
                --tool memcheck --leak-check no --error-exitcode 9 "$d/$t"
        done
        if [ -n "${RACE:-}" ] && [ -x "$d/test_gpu_msm" ]; then
            step "$v-racecheck.log" 150 env CUDA_VISIBLE_DEVICES=0 CZK_TEST_GPU_SMALL=1 "$SAN" \
                --tool racecheck --error-exitcode 9 "$d/test_gpu_msm"
        fi
        grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT/$v-memcheck.log" \
            "$OUT/$v-racecheck.log" 2>/dev/null | tee -a "$SUM"
    fi
    if [ -x "$d/bench_gpu_msm" ] && [ "${MSM_ARGS}" != none ]; then
        # shellcheck disable=SC2086 # MSM_ARGS is a list of arguments without spaces in them
        step "$v-msm.log" 150 env CUDA_VISIBLE_DEVICES=0 CZK_GPU_MSM_PHASES=1 "${venv[@]}" \
            "$d/bench_gpu_msm" $MSM_ARGS
        grep -E "^(G1|G2)|^Fp mul" "$OUT/$v-msm.log" | tee -a "$SUM"
        grep -E "msm phases" "$OUT/$v-msm.log" | awk '!seen[$0]++' | tail -12 >>"$SUM"
    fi
    if [ -x "$d/bench_gpu_prove" ] && [ "${PIPE:-1}" != 0 ]; then
        step "$v-pipe.log" 100 env CUDA_VISIBLE_DEVICES=0 "${venv[@]}" "$d/bench_gpu_prove" --real \
            --reps 3 --b2 gpu --no-pageable --pipeline 10
        grep -E "pipelined|per proof|wall marks|^JSON|^pack |^packed copies|into the call|^  total" \
            "$OUT/$v-pipe.log" | tee -a "$SUM"
    fi
done
cat "$SUM"
