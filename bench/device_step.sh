# Sourced by the device-call scripts (bench/gpu_*_run.sh): one bounded step of a call.
#   step LOG TIMEOUT COMMAND...   runs COMMAND with its output appended to $OUT/LOG, cut at
#   TIMEOUT seconds and at BUDGET seconds after the script started (the call's limit less a
#   margin), and appends one line (exit status, seconds, command) to $SUM. A step with
#   fewer than STEP_MIN_S (15) seconds left is skipped.
step() {
    local log=$1 t=$2
    shift 2
    local left=$((BUDGET - SECONDS))
    if [ "$left" -lt "${STEP_MIN_S:-15}" ]; then
        echo "skipped (out of time): $*" | tee -a "$SUM"
        return 1
    fi
    [ "$t" -gt "$left" ] && t=$left
    local t0=$SECONDS
    echo "=================== $*" >>"$OUT/$log"
    timeout "$t" "$@" >>"$OUT/$log" 2>&1
    local rc=$?
    echo "rc=$rc $((SECONDS - t0)) s: $*" | tee -a "$SUM"
    return $rc
}
