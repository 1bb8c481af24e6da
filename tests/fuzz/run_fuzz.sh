#!/usr/bin/env bash
# Runs one libFuzzer target for a fixed time over a corpus seeded with valid inputs.
# usage: run_fuzz.sh FUZZER SECONDS WORK_DIR [SEED_FILE ...]
# Exit status: the fuzzer's (non-zero when it found a crash, a leak or a timeout; the
# reproducer is left in WORK_DIR).
set -euo pipefail
fuzzer=$1
secs=$2
work=$3
shift 3
mkdir -p "$work/corpus"
for s in "$@"; do
  [ -f "$s" ] && cp "$s" "$work/corpus/"
done
cd "$work"
# -rss_limit_mb: the zkey/params readers allocate what a header claims up to sane limits;
# 2 GiB catches runaway allocations without tripping on legitimate ones.
exec "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
     -print_final_stats=1 corpus
