#!/usr/bin/env bash
# The README's main-job command. It installs the dependencies, builds, runs the self-check
# (known answers, GPU discovery), then proves one real Filecoin job through the daemon:
#   1. czk test parameters for porep-2k (generated once, kept in the build tree);
#   2. a 2 KiB sector sealed on the CPU from fresh random data, ticket and seed, and its
#      C1 output (what lotus-worker's SealCommitPhase1 hands to a C2 prover);
#   3. czkd on a private unix socket, data and parameter directories; the engine picks
#      the GPU when there is one, the CPU otherwise;
#   4. the PoRep C2 submitted and awaited over gRPC with the czk client;
#   5. the 192-byte proof checked outside the daemon (`czk verify` with the .vk and public
#      inputs the client recomputed from the C1), and shown to fail with one input changed;
#   6. the job's stage timings as a table; czkd stopped with SIGTERM, which must exit 0.
# Exits non-zero, saying which step failed, when anything goes wrong.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$here/scripts/deps.sh"
bash "$here/scripts/build.sh"
build="${CZK_BUILD_DIR:-$here/build}"
czk="$build/bin/czk"
czkd="$build/bin/czkd"

step() { printf '\n== %s\n' "$*"; }
die() {
  printf '\nmain: FAILED: %s\n' "$*" >&2
  exit 1
}

step "self-check"
"$czk" selfcheck || die "czk selfcheck"

# Everything the job writes lives under the build tree. The parameters are kept between
# runs (they take a few minutes to generate on two cores); the rest is fresh each time,
# so that no journal of an earlier run re-queues old jobs.
work="$build/main-job"
params="$work/params"
run="$work/run"
rm -rf "$run"
mkdir -p "$params" "$run"

step "test parameters for porep-2k (kept in $params)"
"$czk" setup --circuit porep-2k --param-dir "$params" 2> "$run/setup.log" ||
  { cat "$run/setup.log" >&2; die "czk setup --circuit porep-2k"; }
tr '\r' '\n' < "$run/setup.log" | grep '^czk setup: \(wrote\|.*exist\)' || true
# The first line names the files: "czk setup: porep-2k -> DIR/NAME.{params,vk,meta}".
vk=$(sed -n 's/^czk setup: porep-2k -> \(.*\)\.{params,vk,meta}$/\1.vk/p' "$run/setup.log")
[ -n "$vk" ] && [ -s "$vk" ] || die "no verifying key after czk setup (looked for '$vk')"

step "seal a 2 KiB sector and write its C1 output"
hex32() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
ticket=$(hex32)
seed=$(hex32)
echo "ticket $ticket"
echo "seed   $seed"
"$czk" seal --registered-proof StackedDrg2KiBV1_1 --random "main-job-$ticket" --prover-id 1000 \
  --sector-id 1 --ticket "$ticket" --seed "$seed" --c1-out "$run/c1.json" --out-dir "$run/sector" ||
  die "czk seal"
[ -s "$run/c1.json" ] || die "czk seal wrote no C1 output"

step "start czkd"
sock="$run/czkd.sock"
addr="unix:$sock"
ready="$run/ready.json"
"$czkd" --listen "$addr" --metrics-listen 127.0.0.1:0 --data-dir "$run/data" --param-dir "$params" \
  --daemon-ready-file="$ready" > "$run/czkd.log" 2>&1 &
pid=$!
stop_daemon() {
  # On any exit before the orderly stop below: do not leave a daemon behind.
  if [ -n "${pid:-}" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    echo "main: czkd log (last lines):" >&2
    tail -n 20 "$run/czkd.log" >&2 || true
  fi
}
trap stop_daemon EXIT
for _ in $(seq 600); do
  [ -s "$ready" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$run/czkd.log" >&2; die "czkd exited at start"; }
  sleep 0.1
done
[ -s "$ready" ] || die "czkd did not become ready within 60 s (log: $run/czkd.log)"
echo "czkd pid $pid on $addr; $(cat "$ready")"
"$czk" status --addr "$addr" > "$run/status.txt" || die "czk status"
sed -n 1p "$run/status.txt"

step "submit the PoRep C2 over gRPC and await it"
sub=$("$czk" submit --addr "$addr" --kind porep --c1 "$run/c1.json" --registered-proof 5 \
  --miner-id 1000 --sector-number 1 --public-out "$run/public.bin") || die "czk submit"
echo "$sub"
job=$(sed -n 's/^job_id=\([^ ]*\).*/\1/p' <<< "$sub")
[ -n "$job" ] || die "czk submit printed no job id"
t0=$(date +%s%N)
rc=0
out=$("$czk" await "$job" --addr "$addr" --timeout 1200000 --proof-out "$run/proof.bin") || rc=$?
[ "$rc" -eq 0 ] || { echo "$out"; die "the job did not finish as done (czk await exit $rc)"; }
t1=$(date +%s%N)
echo "$out"
[ "$(stat -c %s "$run/proof.bin")" -eq 192 ] || die "the proof is not 192 bytes"

step "verify the proof outside the daemon"
"$czk" verify --vk "$vk" --proof "$run/proof.bin" --public "$run/public.bin" ||
  die "czk verify rejected the daemon's proof"
# The check must be able to fail: the same proof against one changed public input.
cp "$run/public.bin" "$run/public-bad.bin"
b=$(od -An -tu1 -N1 "$run/public-bad.bin" | tr -d ' ')
printf "$(printf '\\%03o' $(( b ^ 1 )))" | dd of="$run/public-bad.bin" bs=1 count=1 conv=notrunc status=none
rc=0
"$czk" verify --vk "$vk" --proof "$run/proof.bin" --public "$run/public-bad.bin" > /dev/null || rc=$?
[ "$rc" -eq 1 ] || die "czk verify did not reject the proof against a changed input (exit $rc)"
echo "rejected with one public input changed, as it must be"

step "stage timings of $job"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$out"; }
printf '%-20s %10s\n' stage ms
printf '%-20s %10s\n' "queue" "$(field queue_wait_ms)"
printf '%-20s %10s\n' "params load" "$(field srs_load_ms)"
printf '%-20s %10s\n' "synthesis" "$(field synthesis_ms)"
printf '%-20s %10s\n' "prover ($(field gpu))" "$(field gpu_compute_ms)"
printf '%-20s %10s\n' "finalize (verify)" "$(field finalize_ms)"
printf '%-20s %10s\n' "total (engine)" "$(field total_ms)"
printf '%-20s %10s\n' "await (client)" "$(( (t1 - t0) / 1000000 ))"

step "stop czkd with SIGTERM"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || { tail -n 20 "$run/czkd.log" >&2; die "czkd exited $rc after SIGTERM"; }
echo "czkd exited 0"
printf '\nmain: OK: a PoRep C2 of a freshly sealed 2 KiB sector, proved by czkd, verified outside it\n'
