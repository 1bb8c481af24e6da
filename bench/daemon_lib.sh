#!/usr/bin/env bash
# Shared by the czkd benchmark runs (bench/scale_run.sh, bench/real_path_run.sh): a daemon
# started with the run's options, its client, metrics, fixtures, awaits, the verification of
# every proof outside the daemon, the steady state read from its timeline, and the result
# table's rows. Sourced after the caller sets W (work dir), czk and czkd (binaries), T_START,
# DEADLINE_S, BUDGET, SYNTH_WORKERS and SYNTH_THREADS; start_daemon also reads PARAM_DIR
# (default \$W/params), TEST_GENERATE (default true), GPU_LIMIT and GPU_WORKERS (optional).

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
elapsed() { since "$T_START"; }
time_left() { awk -v e="$(elapsed)" -v d="$DEADLINE_S" 'BEGIN{exit !(e < d)}'; }
say() { printf '[%6ss] %s\n' "$(elapsed)" "$*"; }

# ---- the daemon ------------------------------------------------------------------------
pid=
sampler=
start_daemon() { # $1 tag, $2 pageable true|false
  local tag=$1
  cat > "$W/czkd-$tag.conf" <<EOF
[daemon]
listen = unix:$W/czkd.sock
metrics_listen = 127.0.0.1:0
data_dir = $W/data-$tag
param_dir = ${PARAM_DIR:-$W/params}
ready_file = $W/ready-$tag.json
max_message_size = 512MiB
[params]
test_generate = ${TEST_GENERATE:-true}
[memory]
budget = $BUDGET
pageable_buffers = $2
[synthesis]
workers = $SYNTH_WORKERS
threads = $SYNTH_THREADS
[timeline]
path = $W/timeline-$tag.jsonl
[gpus]
${GPU_WORKERS:+workers_per_device = $GPU_WORKERS}
${GPU_LIMIT:+memory_limit = $GPU_LIMIT}
EOF
  "$czkd" --config "$W/czkd-$tag.conf" > "$W/czkd-$tag.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do
    [ -s "$W/ready-$tag.json" ] && break
    kill -0 "$pid" 2>/dev/null || { tail -20 "$W/czkd-$tag.log"; echo "czkd exited at start"; return 1; }
    sleep 0.1
  done
  metrics_port=$(sed -n 's/.*"metrics_port":\([0-9]*\).*/\1/p' "$W/ready-$tag.json")
  # Peak RSS from /proc (VmHWM is read at the end too) and GPU utilisation, sampled.
  (
    while kill -0 "$pid" 2>/dev/null; do
      printf '%s %s\n' "$(date +%s.%N)" "$(awk '/^VmRSS/{print $2}' /proc/$pid/status 2>/dev/null)"
      sleep 0.5
    done
  ) > "$W/rss-$tag.txt" &
  sampler=$!
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits \
      -lms 200 > "$W/gpu-$tag.csv" 2>/dev/null &
    smi=$!
  fi
  say "czkd $tag up (pid $pid, pageable_buffers=$2)"
}
stop_daemon() { # $1 tag
  [ -n "$pid" ] || return 0
  hwm=$(awk '/^VmHWM/{print $2}' /proc/$pid/status 2>/dev/null)
  echo "${hwm:-0}" > "$W/hwm-$1.txt"
  curl -s "http://127.0.0.1:$metrics_port/metrics" > "$W/metrics-$1-end.txt" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ -n "${smi:-}" ] && kill "$smi" 2>/dev/null
  wait "$sampler" 2>/dev/null
  pid=
  smi=
}
C() { # czk client command against this run's daemon: C COMMAND ARGS...
  local cmd=$1
  shift
  "$czk" "$cmd" --addr "unix:$W/czkd.sock" "$@"
}
metric() { # $1 file, $2 metric name (with labels), sum of matching lines
  awk -v m="$2" 'index($0, m) == 1 { s += $NF } END { printf "%.6f", s }' "$1"
}
scrape() { curl -s "http://127.0.0.1:$metrics_port/metrics" > "$1"; }

preload() { # $1 circuit id; prints seconds
  local t0
  t0=$(now)
  C preload "$1" > "$W/preload-$1.txt" 2>&1 || { cat "$W/preload-$1.txt"; return 1; }
  since "$t0"
}

wait_fixtures() {
  while [ ! -e "$W/fx/done" ]; do sleep 0.2; done
  if [ -e "$W/fx/fail" ]; then cat "$W/fx/fail"; return 1; fi
}

# submit_porep TAG K: submit fixture K, print the job id
submit_porep() {
  C submit --kind porep --c1 "$W/fx/porep-$2.json" --registered-proof "$porep_num" \
    --request-id "$1-porep-$2" --public-out "$W/pub-$1-porep-$2" |
    sed -n 's/^job_id=\([^ ]*\).*/\1/p'
}

# await_all TAG JOB...: await in parallel, record each completion time; verify each proof.
await_all() {
  local tag=$1
  shift
  local k=0 waits=()
  for j in "$@"; do
    k=$((k + 1))
    (
      out=$(C await "$j" --timeout 1200000 --proof-out "$W/proof-$tag-$k.bin" 2>&1)
      rc=$?
      echo "$(now) $rc $j $out" > "$W/done-$tag-$k.txt"
    ) &
    waits+=($!)
  done
  for w in "${waits[@]}"; do wait "$w"; done
}

verify_all() { # TAG KIND VK N: every proof of the run checked with czk verify
  local tag=$1 kind=$2 vk=$3 n=$4 ok=0
  for k in $(seq 1 "$n"); do
    if "$czk" verify --vk "$vk" --proof "$W/proof-$tag-$k.bin" --public "$W/pub-$tag-$kind-$k" \
      > "$W/verify-$tag-$k.txt" 2>&1; then
      ok=$((ok + 1))
    else
      say "VERIFY FAILED: $tag job $k: $(cat "$W/verify-$tag-$k.txt")"
    fi
  done
  echo "$ok"
}

vk_of() { # circuit id -> .vk path (beside the .params, or written by czkd beside the missing one)
  ls "${PARAM_DIR:-$W/params}"/*.vk 2>/dev/null | while read -r f; do
    case $1 in
      porep-*) case $f in *stacked-proof-of-replication*) echo "$f" ;; esac ;;
      snap-*) case $f in *empty-sector-update*) echo "$f" ;; esac ;;
      winning-*) case $f in *proof-of-spacetime-fallback*) echo "$f" ;; esac ;;
    esac
  done | head -1
}

# timeline_stats TIMELINE NVSMI_CSV CIRCUIT [PARTITIONS_PER_PROOF]: the steady state of one circuit's partitions on
# the GPU, from the daemon's timeline (gpu_end events and their stage notes) and nvidia-smi.
timeline_stats() {
  python3 - "$@" <<'PY'
import json, sys, datetime
tl, smi, circuit = sys.argv[1:4]
per_proof = int(sys.argv[4]) if len(sys.argv) > 4 else 10
jobs, ends = set(), []
for line in open(tl):
    e = json.loads(line)
    if e['event'] == 'queued' and e.get('circuit') == circuit:
        jobs.add(e['job'])
for line in open(tl):
    e = json.loads(line)
    if e['event'] == 'gpu_end' and e['job'] in jobs:
        note = dict(kv.split('=', 1) for kv in (e.get('message') or '').split() if '=' in kv)
        ends.append((e['t_us'] / 1e6, float(note.get('held_s', 0)), note))
ends.sort()
skip = min(5, max(0, len(ends) - 3))
w = ends[skip:]
if len(w) < 2:
    print('steady n/a'); sys.exit()
a, b = w[0][0], w[-1][0]
interval = (b - a) / (len(w) - 1)
held = sum(x[1] for x in w[1:])
print('steady_per_proof %.2f' % (per_proof * interval))
print('interval %.3f partitions %d window %.1f' % (interval, len(w) - 1, b - a))
print('held_busy %.1f' % (100 * held / (b - a)))
# A proof hands the GPU lock on once only its MSMs are left (proofs overlap), so the lock
# no longer measures device use: busy = the union of the proofs' call spans [end − call_s,
# end] (any proof on the GPU) over the window.
spans = sorted((max(a, t - float(n.get('call_s', h))), t) for t, h, n in ends if t > a)
union, cur_s, cur_e = 0.0, None, None
for s0, e0 in spans:
    if cur_e is None or s0 > cur_e:
        if cur_e is not None:
            union += cur_e - cur_s
        cur_s, cur_e = s0, e0
    else:
        cur_e = max(cur_e, e0)
if cur_e is not None:
    union += cur_e - cur_s
print('inflight_busy %.1f' % (100 * union / (b - a)))
med = sorted(x[1] for x in w)[len(w) // 2]
print('held_median %.3f' % med)
for key in ('call_s', 'overlap', 'gpu_s', 'h2d_s', 'ntt_s', 'msm_h_s', 'msm_l_s', 'msm_a_s', 'msm_b1_s', 'msm_b2_s'):
    v = sorted(float(x[2].get(key, 0)) for x in w)
    print('median_%s %.3f' % (key, v[len(v) // 2]))
try:
    vals = []
    for line in open(smi):
        p = [q.strip() for q in line.split(',')]
        try:
            ts = datetime.datetime.strptime(p[0], '%Y/%m/%d %H:%M:%S.%f').timestamp()
            vals.append((ts, float(p[1]), float(p[2])))
        except (ValueError, IndexError):
            pass
    win = [v for v in vals if a <= v[0] <= b]
    if win:
        print('smi_busy %.1f' % (100 * sum(1 for v in win if v[1] > 0) / len(win)))
        print('smi_util %.1f' % (sum(v[1] for v in win) / len(win)))
    if vals:
        print('smi_mem_gib %.1f' % (max(v[2] for v in vals) / 1024))
except OSError:
    pass
PY
}

RESULTS=$W/results.txt
: > "$RESULTS"
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$RESULTS"; }
