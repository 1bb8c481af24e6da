#!/usr/bin/env bash
# Groth16 prove: czk against snarkjs on the same zkey and witness, in one run, as a ratio.
#
# Cases (CASES, default all three):
#   poseidon16  circom Poseidon(2) hash chain of 273 hashes (65 520 constraints, domain 2^16),
#               compiled with circom2 from tests/circuits/poseidon_chain.circom; full-size
#               witness values. Target: czk >= 5x faster.
#   power5_16   `czk gen-circuit --kind power5` at domain 2^16 (65 532 constraints). Target 5x.
#   power5_20   the same at domain 2^20 (1 048 572 constraints; circom2 cannot compile this
#               size). Target 8x.
# Keys come from `czk setup --zkey` (TEST-ONLY, known toxic waste): snarkjs's own setup
# needs `powersoftau prepare phase2`, hours at 2^16 (docs/formats.md §10.1). snarkjs proves
# and verifies with these keys like with its own (tests/peers/snarkjs_interop.sh checks it).
#
# Timed: the wall clock of the whole CLI call on both sides (load the zkey and witness,
# prove, write the JSON; czk also checks its proof before writing it), median of CZK_REPS
# runs for czk and of SJ_REPS_16 / SJ_REPS_20 runs for snarkjs (one run at 2^20 takes three to
# four minutes). Both proofs are then verified with `snarkjs groth16 verify`.
#
# Usage: bench/bench_prove.sh WORK_DIR [CZK_BINARY]
#   Generated circuits, witnesses and keys are cached in WORK_DIR (about 1.5 GB for all
#   cases). Environment: CASES, CZK_REPS (3), SJ_REPS_16 (3), SJ_REPS_20 (1), and
#   PREPARE_ONLY=1 to only generate the inputs; WAIT_IDLE=1 (WAIT_BUSY=10, WAIT_MAX=1800,
#   WAIT_OTHERS=15, RETRIES=3) to wait before each batch until other jobs leave the CPUs
#   under WAIT_BUSY % busy, and to repeat a batch during which they took over WAIT_OTHERS %.
#   The table reports, per side, the share of the machine other jobs took during the runs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
work=${1:?usage: bench_prove.sh WORK_DIR [CZK_BINARY]}
czk=${2:-$root/build/bin/czk}
czk=$(cd "$(dirname "$czk")" && pwd)/$(basename "$czk")
CASES=${CASES:-"poseidon16 power5_16 power5_20"}
CZK_REPS=${CZK_REPS:-3}
SJ_REPS_16=${SJ_REPS_16:-3}
SJ_REPS_20=${SJ_REPS_20:-1}
nm="$root/tests/peers/node_modules"
[ -x "$czk" ] || { echo "bench_prove: no czk binary at $czk (build it, or pass its path)"; exit 2; }
[ -f "$nm/snarkjs/build/cli.cjs" ] || { echo "bench_prove: no snarkjs in $nm: run scripts/deps.sh"; exit 2; }
snarkjs() { node "$nm/snarkjs/build/cli.cjs" "$@"; }
mkdir -p "$work"
cd "$work"

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
load1() { cut -d' ' -f1 /proc/loadavg; }
ncpu=$(nproc)
tck=$(getconf CLK_TCK)
# Busy CPU time of the whole machine so far, in clock ticks (user, nice, system, irq,
# softirq). Its growth over a run minus the run's own CPU time is what other jobs took.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# busy: percent of all CPUs busy over the next 3 s, while we run nothing.
busy() {
  local a
  a=$(busy_ticks)
  sleep 3
  echo "$a $(busy_ticks)" | awk -v t="$tck" -v n="$ncpu" '{ printf "%.0f", 100 * ($2 - $1) / t / (3 * n) }'
}
# quiet: with WAIT_IDLE=1, wait (at most WAIT_MAX s, default 1800) until other jobs keep
# the CPUs under WAIT_BUSY % busy (default 10), so that they do not inflate the timings.
quiet() {
  [ "${WAIT_IDLE:-0}" = 1 ] || return 0
  local waited=0 b
  while b=$(busy); [ "$b" -ge "${WAIT_BUSY:-10}" ] && [ $waited -lt "${WAIT_MAX:-1800}" ]; do
    log "machine ${b}% busy, waiting"
    sleep 10
    waited=$((waited + 13))
  done
}

# timed OUT_PREFIX cmd...: runs the command, writes OUT_PREFIX.log (its output) and
# OUT_PREFIX.time = "wall cpu maxrss_kb others_cpu": others_cpu is the CPU time other
# processes used meanwhile (machine busy time minus ours). Fails when the command fails.
timed() {
  local out=$1 t0 t1
  shift
  t0=$(busy_ticks)
  if ! /usr/bin/time -f "%e %U %S %M" -o "$out.rawtime" "$@" >"$out.log" 2>&1; then
    echo "bench_prove: failed: $*" >&2
    tail -5 "$out.log" >&2
    return 1
  fi
  t1=$(busy_ticks)
  awk -v d=$((t1 - t0)) -v t="$tck" '{ o = d / t - $2 - $3; if (o < 0) o = 0;
    printf "%s %.2f %s %.2f\n", $1, $2 + $3, $4, o }' "$out.rawtime" >"$out.time"
}

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---- inputs, cached ------------------------------------------------------------------

prepare_poseidon16() {
  local c=poseidon16
  if [ ! -f $c.r1cs ] || [ ! -f ${c}_js/$c.wasm ]; then
    log "$c: compiling with circom2 (about 2-3 minutes)"
    # circom2 (WebAssembly) only sees includes below the working directory.
    [ -d inc/circomlib ] || { mkdir -p inc && cp -r "$nm/circomlib" inc/; }
    sed 's/PoseidonChain(4)/PoseidonChain(273)/' "$root/tests/circuits/poseidon_chain.circom" >$c.circom
    grep -q 'PoseidonChain(273)' $c.circom
    timed compile.$c node "$nm/circom2/cli.js" $c.circom --prime bls12381 --r1cs --wasm --O2 -l inc -o .
  fi
  if [ ! -f $c.wtns ]; then
    snarkjs wtns calculate ${c}_js/$c.wasm "$root/tests/circuits/poseidon_chain.input.json" $c.wtns >/dev/null
  fi
}

prepare_power5() { # prepare_power5 NAME LOG2
  local c=$1 k=$2
  if [ ! -f $c.r1cs ] || [ ! -f $c.wtns ]; then
    log "$c: czk gen-circuit --kind power5 --constraints $(((1 << k) - 2))"
    timed gen.$c "$czk" gen-circuit --kind power5 --constraints $(((1 << k) - 2)) --r1cs $c.r1cs --wtns $c.wtns
  fi
}

prepare() { # prepare NAME: circuit, witness (checked by snarkjs once), zkey, vk
  local c=$1
  case $c in
    poseidon16) prepare_poseidon16 ;;
    power5_16) prepare_power5 $c 16 ;;
    power5_20) prepare_power5 $c 20 ;;
    *) echo "bench_prove: unknown case $c" >&2; exit 2 ;;
  esac
  if [ ! -f $c.wtns.checked ]; then
    log "$c: snarkjs wtns check"
    snarkjs wtns check $c.r1cs $c.wtns 2>&1 | grep -q "WITNESS IS CORRECT" ||
      { echo "bench_prove: snarkjs rejects the witness of $c" >&2; exit 1; }
    touch $c.wtns.checked
  fi
  if [ ! -f $c.zkey ] || [ ! -f $c.vk.json ]; then
    log "$c: czk setup --zkey (test-only key)"
    timed setup.$c "$czk" setup --r1cs $c.r1cs --zkey $c.zkey --vk-json $c.vk.json
  fi
}

sj_verify() { # sj_verify NAME WHO: 0 when snarkjs accepts WHO's proof
  snarkjs groth16 verify $1.vk.json $1.$2.public.json $1.$2.proof.json 2>&1 | grep -q "OK"
}

# ---- measurement ------------------------------------------------------------------------

rows=()
json=()
echo "czk: $("$czk" version)"
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "snarkjs: $(node -p "require('$nm/snarkjs/package.json').version"), node $(node --version)"
for c in $CASES; do
  prepare $c
  [ "${PREPARE_ONLY:-0}" = 1 ] && continue
  case $c in
    *_20) sj_reps=$SJ_REPS_20 target=8 ;;
    *) sj_reps=$SJ_REPS_16 target=5 ;;
  esac
  info=$("$czk" r1cs-info --json $c.zkey)
  log_n=$(echo "$info" | sed 's/.*"domain_log2":\([0-9]*\).*/\1/')
  cons=$("$czk" r1cs-info --json $c.r1cs | sed 's/.*"constraints":\([0-9]*\).*/\1/')
  load_start=$(load1)
  # Each side: reps runs; with WAIT_IDLE=1 the batch is repeated (at most RETRIES times in
  # all, default 3; snarkjs at 2^20 once) when other jobs took more than WAIT_OTHERS %
  # (default 15) of the machine during it.
  for side in czk sj; do
    if [ $side = czk ]; then reps=$CZK_REPS; tries=${RETRIES:-3}; else reps=$sj_reps; tries=${RETRIES:-3}; fi
    [ $side = sj ] && [ "$log_n" -ge 20 ] && tries=1
    for attempt in $(seq 1 "$tries"); do
      quiet
      log "$c: $side prove x$reps, attempt $attempt (load $(load1))"
      : >$c.$side.runs
      for i in $(seq 1 "$reps"); do
        if [ $side = czk ]; then
          timed run.$c.czk.$i "$czk" prove --zkey $c.zkey --wtns $c.wtns --proof $c.czk.proof.json \
              --public $c.czk.public.json --timings
        else
          timed run.$c.sj.$i node "$nm/snarkjs/build/cli.cjs" groth16 prove $c.zkey $c.wtns \
              $c.sj.proof.json $c.sj.public.json
        fi
        echo "$(cut -d' ' -f1,2,4 run.$c.$side.$i.time) $i" >>$c.$side.runs
      done
      # others' share of the machine over the batch, in percent
      others=$(awk -v n="$ncpu" '{ w += $1; o += $3 } END { printf "%.0f", 100 * o / (w * n) }' $c.$side.runs)
      log "$c: $side: others took ${others}% of the machine"
      [ "${WAIT_IDLE:-0}" = 1 ] && [ "$others" -gt "${WAIT_OTHERS:-15}" ] && [ "$attempt" -lt "$tries" ] || break
    done
    eval "others_$side=$others"
  done
  load_end=$(load1)

  czk_s=$(cut -d' ' -f1 $c.czk.runs | median)
  czk_cpu=$(cut -d' ' -f2 $c.czk.runs | median)
  sj_s=$(cut -d' ' -f1 $c.sj.runs | median)
  sj_cpu=$(cut -d' ' -f2 $c.sj.runs | median)
  # The stage timings of the czk run whose wall time is the median.
  mid=$(sort -g $c.czk.runs | sed -n "$(((CZK_REPS + 1) / 2))p" | cut -d' ' -f4)
  stages=$(grep 'czk prove:' run.$c.czk.$mid.log | sed 's/^czk prove: //')

  verified=yes
  sj_verify $c czk || { verified=no; echo "bench_prove: snarkjs REJECTS czk's proof for $c" >&2; }
  sj_verify $c sj || { verified=no; echo "bench_prove: snarkjs rejects its own proof for $c" >&2; }
  cmp -s <(tr -d ' \n' <$c.czk.public.json) <(tr -d ' \n' <$c.sj.public.json) ||
    { verified=no; echo "bench_prove: public.json differs for $c" >&2; }

  ratio=$(awk -v a="$sj_s" -v b="$czk_s" 'BEGIN { printf "%.1f", a / b }')
  cpu_ratio=$(awk -v a="$sj_cpu" -v b="$czk_cpu" 'BEGIN { printf "%.1f", a / b }')
  pass=$(awk -v r="$ratio" -v t="$target" 'BEGIN { print (r >= t) ? "yes" : "NO" }')
  [ "$verified" = yes ] || pass=NO
  rows+=("$(printf '%-11s 2^%-3s %9s %8s (%6s) %8s (%6s) %6sx (%5sx) %5sx %-4s %-5s %s-%s %s/%s%%' \
      $c "$log_n" "$cons" "$czk_s" "$czk_cpu" "$sj_s" "$sj_cpu" "$ratio" "$cpu_ratio" \
      "$target" "$pass" "$verified" "$load_start" "$load_end" "$others_czk" "$others_sj")")
  rows+=("            czk stages: $stages")
  json+=("{\"case\":\"$c\",\"log2_domain\":$log_n,\"constraints\":$cons,\"czk_s\":$czk_s,\"czk_cpu_s\":$czk_cpu,\"czk_reps\":$CZK_REPS,\"snarkjs_s\":$sj_s,\"snarkjs_cpu_s\":$sj_cpu,\"snarkjs_reps\":$sj_reps,\"ratio\":$ratio,\"cpu_ratio\":$cpu_ratio,\"target\":$target,\"pass\":$([ "$pass" = yes ] && echo true || echo false),\"verified_by_snarkjs\":$([ "$verified" = yes ] && echo true || echo false),\"load1_start\":$load_start,\"load1_end\":$load_end,\"others_during_czk_pct\":$others_czk,\"others_during_snarkjs_pct\":$others_sj}")
done
[ "${PREPARE_ONLY:-0}" = 1 ] && exit 0

echo
echo "Groth16 prove, wall seconds of the CLI call (CPU seconds user+sys in parentheses), medians;"
echo "ratio = snarkjs / czk (the target applies to wall time); snjs? = both proofs pass snarkjs verify;"
echo "load1 = 1-min load average at start-end; others = % of the machine other jobs used during the czk/snarkjs runs"
printf '%-11s %-5s %9s %17s %17s %16s %6s %-4s %-5s %s\n' case size constr "czk s (cpu)" \
    "snarkjs s (cpu)" "ratio (cpu)" target pass snjs? "load1 others"
for r in "${rows[@]}"; do echo "$r"; done
echo
(IFS=,; echo "{\"bench\":\"groth16_prove_vs_snarkjs\",\"cpus\":$(nproc),\"results\":[${json[*]}]}")
