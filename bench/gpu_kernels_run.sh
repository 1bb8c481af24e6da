#!/usr/bin/env bash
# GPU kernels and the partition prover on a GPU machine, one bounded device call: the GPU
# tests of one build, then the MSM, NTT and partition benchmarks, and the same benchmarks of
# a second build for an A/B comparison (the same source built with other -D switches, or
# the commit before a change). Logs and a summary go to $OUT.
#
#   bench/gpu_kernels_run.sh NEW_DIR [OLD_DIR [BASE_DIR]]
#
# OLD_DIR: the same source with some switches off (MSM and partition A/B); BASE_DIR: the
# commit before (bench_gpu_ntt and bench_gpu_prove of the earlier H step, --f unknown
# there: it compares with NEW at --f 0.1, its fixed profile).
#
# Binaries: PROGS="test_gpu_ntt test_gpu_msm test_gpu_prove bench_gpu_msm bench_gpu_ntt
#   bench_gpu_prove" bash bench/gpu_prove_run.sh build NEW_DIR   (no GPU needed; for OLD_DIR
#   the same with NVCC_EXTRA="-D..." or from another checkout), carried compressed:
#   tar -C NEW_DIR -cf - . | xz -T2 > build-carry/new.tar.xz
set -u
cd "$(dirname "$0")/.."
NEW=$1
OLD=${2:-}
BASE=${3:-}
OUT=${OUT:-/tmp/czk-gpu-kernels}
mkdir -p "$OUT"
SUM=$OUT/summary.txt
: >"$SUM"
BUDGET=${BUDGET:-540}
. bench/device_step.sh # (the script runs from the repository root)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,memory.total \
    --format=csv,noheader | tee -a "$SUM"

step tests.log 90 "$NEW/test_gpu_ntt"
step tests.log 90 "$NEW/test_gpu_msm"
step tests.log 120 "$NEW/test_gpu_prove"
step msm.log 90 "$NEW/bench_gpu_msm" --max-log 27 --min-log 24 --g2-log 24 --reps 5
[ -n "$OLD" ] && step msm.log 90 "$OLD/bench_gpu_msm" --max-log 27 --min-log 24 --g2-log 24 --reps 5
step ntt.log 40 "$NEW/bench_gpu_ntt" --sizes 24,26,27 --h 27 --reps 5 --check
step ntt.log 40 env CZK_GPU_NTT_DIRECT_MAX=27 "$NEW/bench_gpu_ntt" --sizes 27 --h 27 --reps 5
step ntt.log 40 env CZK_GPU_NTT_SCALE_DIRECT_MAX=27 "$NEW/bench_gpu_ntt" --sizes 27 --h 27 --reps 5
[ -n "$BASE" ] && step ntt.log 40 "$BASE/bench_gpu_ntt" --sizes 27 --h 27 --reps 5
step prove.log 150 "$NEW/bench_gpu_prove" --log 27 --reps 5 --b2 gpu --no-pageable
[ -x "$OLD/bench_gpu_prove" ] && step prove.log 100 "$OLD/bench_gpu_prove" --log 27 --reps 3 --b2 gpu \
    --no-pageable --no-pair
step prove.log 100 "$NEW/bench_gpu_prove" --log 27 --reps 3 --b2 gpu --no-pageable --no-pair \
    --f 0.1
[ -x "$BASE/bench_gpu_prove" ] && step prove.log 100 "$BASE/bench_gpu_prove" --log 27 --reps 3 --b2 gpu \
    --no-pageable --no-pair
grep -h -E "^\| |median|ms a partition|pipelined|H step|Groth16|^G[12]|MSM|JSON|FAIL|passed|failed" \
    "$OUT"/msm.log "$OUT"/ntt.log "$OUT"/prove.log 2>/dev/null | head -150 >>"$SUM"
cat "$SUM"

# Instruction mix of the hot kernels (SASS opcode histograms), when cuobjdump is there.
CUOBJ=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)
if [ -n "$CUOBJ" ]; then
    for b in bench_gpu_ntt bench_gpu_msm; do
        "$CUOBJ" -sass "$NEW/$b" 2>/dev/null | awk -v bin="$b" '
            /Function :/ { fn = $3; next }
            /^[ \t]*\/\*[0-9a-f]+\*\// {
                line = $0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
                sub(/^@!?U?P[0-9T] +/, "", line)
                split(line, t, /[ ;]/); op = t[1]
                if (fn ~ /ntt_pass|mul_rate|bucket_acc|acc_kernel|ones|fold/) { n[fn] ++; c[fn "|" op]++ }
            }
            END {
                for (k in c) { split(k, a, "|"); printf "%s\t%s\t%d\t%d\n", a[1], a[2], c[k], n[a[1]] }
            }' | sort -t$'\t' -k1,1 -k3,3nr | awk -F'\t' '{ if (++seen[$1] <= 25) print }' > "$OUT/sass_$b.txt"
    done
    ls -la "$OUT"/sass_*.txt
fi
