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
# needs `powersoftau prepare phase2`, hours at 2^16 (specs/snarkjs.md §3.1). snarkjs proves
# and verifies with these keys like with its own (tests/peers/snarkjs_interop.sh checks it).
#
# Timed: the wall clock of the whole CLI call on both sides (load the zkey and witness,
# prove, write the JSON; czk also checks its proof before writing it), median of CZK_REPS
# runs for czk and of SJ_REPS_16 / SJ_REPS_20 runs for snarkjs (one run at 2^20 takes about
# four minutes). Both proofs are then verified with `snarkjs groth16 verify`.
#
# Usage: bench/bench_prove.sh WORK_DIR [CZK_BINARY]
#   Generated circuits, witnesses and keys are cached in WORK_DIR (about 1.5 GB for all
#   cases). Environment: CASES, CZK_REPS (3), SJ_REPS_16 (3), SJ_REPS_20 (1), and
#   PREPARE_ONLY=1 to only generate the inputs, WAIT_IDLE=1 (WAIT_BUSY=10, WAIT_MAX=1800) to
#   wait before each case until other jobs leave the CPUs under WAIT_BUSY % busy.
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
# busy: percent of all CPUs busy over the next 3 s (others' work, when we are idle). The
# load average lags by minutes and counts our own previous run; this does not.
busy() {
  local a b
  a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
  sleep 3
  b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
  echo "$a $b" | awk '{ u = $3 - $1; i = $4 - $2; printf "%.0f", (u + i) ? 100 * u / (u + i) : 0 }'
}
# quiet: with WAIT_IDLE=1, wait (at most WAIT_MAX s, default 1800) until the machine is
# under WAIT_BUSY % busy (default 10), so that others' jobs do not inflate the timings.
quiet() {
  [ "${WAIT_IDLE:-0}" = 1 ] || return 0
  local waited=0 b
  while b=$(busy); [ "$b" -ge "${WAIT_BUSY:-10}" ] && [ $waited -lt "${WAIT_MAX:-1800}" ]; do
    log "machine ${b}% busy, waiting"
    sleep 20
    waited=$((waited + 23))
  done
}

# timed OUT_PREFIX cmd...: runs the command, writes OUT_PREFIX.time = "wall cpu maxrss_kb"
# and OUT_PREFIX.log = its output; fails when the command fails.
timed() {
  local out=$1
  shift
  if ! /usr/bin/time -f "%e %U %S %M" -o "$out.rawtime" "$@" >"$out.log" 2>&1; then
    echo "bench_prove: failed: $*" >&2
    tail -5 "$out.log" >&2
    return 1
  fi
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out.rawtime" >"$out.time"
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
  quiet
  load_start=$(load1)
  busy_czk=$(busy)

  log "$c: czk prove x$CZK_REPS (load $(load1), others ${busy_czk}% busy)"
  : >$c.czk.runs
  for i in $(seq 1 "$CZK_REPS"); do
    timed run.$c.czk.$i "$czk" prove --zkey $c.zkey --wtns $c.wtns --proof $c.czk.proof.json \
        --public $c.czk.public.json --timings
    echo "$(cut -d' ' -f1-2 run.$c.czk.$i.time) $i" >>$c.czk.runs
  done
  quiet
  busy_sj=$(busy)
  log "$c: snarkjs groth16 prove x$sj_reps (load $(load1), others ${busy_sj}% busy)"
  : >$c.sj.runs
  for i in $(seq 1 "$sj_reps"); do
    timed run.$c.sj.$i node "$nm/snarkjs/build/cli.cjs" groth16 prove $c.zkey $c.wtns \
        $c.sj.proof.json $c.sj.public.json
    echo "$(cut -d' ' -f1-2 run.$c.sj.$i.time) $i" >>$c.sj.runs
  done
  load_end=$(load1)

  czk_s=$(cut -d' ' -f1 $c.czk.runs | median)
  czk_cpu=$(cut -d' ' -f2 $c.czk.runs | median)
  sj_s=$(cut -d' ' -f1 $c.sj.runs | median)
  sj_cpu=$(cut -d' ' -f2 $c.sj.runs | median)
  # The stage timings of the czk run whose wall time is the median.
  mid=$(sort -g $c.czk.runs | sed -n "$(((CZK_REPS + 1) / 2))p" | cut -d' ' -f3)
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
      "$target" "$pass" "$verified" "$load_start" "$load_end" "$busy_czk" "$busy_sj")")
  rows+=("            czk stages: $stages")
  json+=("{\"case\":\"$c\",\"log2_domain\":$log_n,\"constraints\":$cons,\"czk_s\":$czk_s,\"czk_cpu_s\":$czk_cpu,\"czk_reps\":$CZK_REPS,\"snarkjs_s\":$sj_s,\"snarkjs_cpu_s\":$sj_cpu,\"snarkjs_reps\":$sj_reps,\"ratio\":$ratio,\"cpu_ratio\":$cpu_ratio,\"target\":$target,\"pass\":$([ "$pass" = yes ] && echo true || echo false),\"verified_by_snarkjs\":$([ "$verified" = yes ] && echo true || echo false),\"load1_start\":$load_start,\"load1_end\":$load_end,\"busy_before_czk_pct\":$busy_czk,\"busy_before_snarkjs_pct\":$busy_sj}")
done
[ "${PREPARE_ONLY:-0}" = 1 ] && exit 0

echo
echo "Groth16 prove, wall seconds of the CLI call (CPU seconds user+sys in parentheses), medians;"
echo "ratio = snarkjs / czk (the target applies to wall time); snjs? = both proofs pass snarkjs verify;"
echo "load1 = 1-min load average at start-end; busy = % of the CPUs others used just before czk/snarkjs ran"
printf '%-11s %-5s %9s %17s %17s %16s %6s %-4s %-5s %s\n' case size constr "czk s (cpu)" \
    "snarkjs s (cpu)" "ratio (cpu)" target pass snjs? "load1 busy"
for r in "${rows[@]}"; do echo "$r"; done
echo
(IFS=,; echo "{\"bench\":\"groth16_prove_vs_snarkjs\",\"cpus\":$(nproc),\"results\":[${json[*]}]}")
