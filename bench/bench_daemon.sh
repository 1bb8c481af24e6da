#!/usr/bin/env bash
# Daemon front-end benchmark (issue #7): starts czkd on a unix socket with a private data
# and parameter directory, then bench_daemon.mjs (node, @grpc/grpc-js from tests/peers)
# measures Submit latency, Submit → Await overhead beyond the engine's own work, accepted
# Submits/s with the queue blocked, RSS idle and with 1,000 queued jobs, and the pinned-pool
# reuse ratio; czkd is then stopped with SIGTERM and must exit 0.
#
# usage: bash bench/bench_daemon.sh [--quick]       (CZK_BUILD_DIR: default build/)
# CZK_BENCH_DATA_DIR puts the job journal elsewhere (e.g. /dev/shm/czk-bench, to see what
# the journal's fsync costs each Submit); default: a fresh directory in the build tree.
# Needs a build (scripts/build.sh) and the node test peers (scripts/deps.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${CZK_BUILD_DIR:-$here/build}"
czk="$build/bin/czk"
czkd="$build/bin/czkd"
for b in "$czk" "$czkd"; do
  [ -x "$b" ] || { echo "bench_daemon: $b is missing; run scripts/build.sh first" >&2; exit 2; }
done
[ -d "$here/tests/peers/node_modules/@grpc/grpc-js" ] ||
  { echo "bench_daemon: the node peers are missing; run scripts/deps.sh first" >&2; exit 2; }

work="$build/bench-daemon"
params="$work/params"
mkdir -p "$params"
data="${CZK_BENCH_DATA_DIR:-$work/data}"
rm -rf "$data" "$work/ready.json"

# Two circom circuits made by czk itself (kept between runs): a tiny one whose proving
# costs next to nothing, so that the figures are the front end's, and a larger one whose
# job keeps the single CPU prover busy for seconds while the queue fills.
circuit() { # NAME CONSTRAINTS
  if [ ! -s "$params/$1.zkey" ] || [ ! -s "$work/$1.wtns" ] || [ "$(cat "$work/$1.size" 2>/dev/null)" != "$2" ]; then
    "$czk" gen-circuit --kind power5 --constraints "$2" --r1cs "$work/$1.r1cs" --wtns "$work/$1.wtns" > /dev/null
    "$czk" setup --r1cs "$work/$1.r1cs" --zkey "$params/$1.zkey" > /dev/null 2>&1
    echo "$2" > "$work/$1.size"
  fi
}
circuit tiny 64
circuit block 524288

sock="$work/czkd.sock"
ready="$work/ready.json"
"$czkd" --listen "unix:$sock" --metrics-listen 127.0.0.1:0 --data-dir "$data" --param-dir "$params" \
  --daemon-ready-file="$ready" --log-level warn > "$work/czkd.log" 2>&1 &
pid=$!
trap 'kill -KILL $pid 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  [ -s "$ready" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/czkd.log" >&2; exit 1; }
  sleep 0.1
done
[ -s "$ready" ] || { echo "bench_daemon: czkd did not start" >&2; exit 1; }
mport=$(sed -n 's/.*"metrics_port":\([0-9]*\).*/\1/p' "$ready")

echo "czkd $pid on unix:$sock, journal in $data; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
node "$here/bench/bench_daemon.mjs" "$here/tests/peers" "$here/proto" "$sock" "$mport" "$pid" "$@" || rc=$?

kill -TERM "$pid"
drc=0
wait "$pid" || drc=$?
trap - EXIT
[ "$drc" -eq 0 ] || { echo "bench_daemon: czkd exited $drc after SIGTERM" >&2; tail -n 20 "$work/czkd.log" >&2; exit 1; }
exit "$rc"
