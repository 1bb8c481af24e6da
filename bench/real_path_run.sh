#!/usr/bin/env bash
# The storage provider's path in one script: czkd on a real .params file from the parameter
# cache (made once by `czk setup`, kept in PARAM_DIR between device calls while the machine
# stays warm), for each GPU memory size in LIMITS, given to czkd as gpus.memory_limit and,
# with BALLAST=1, as another process holding the rest of the device; N_POREP synthetic PoRep
# C2 jobs over gRPC each time, every proof verified with `czk verify`; the parameter load
# cold (page cache dropped) against the disk's sequential read, and warm; a WinningPoSt
# under load at WIN_AT; SnapDeals at SNAP_AT. Prints the table with target, floor and peer
# beside each row as it goes (a call that times out keeps what it printed).
#
#   device: carry build-scale (bench/scale_prep.sh); command: bash bench/real_path_run.sh
#   LIMITS="24GiB 16GiB" BALLAST="0 1" bash bench/real_path_run.sh    (a subset)
#   SIZE=2KiB BIN=build/bin bash bench/real_path_run.sh               (the flow, on the CPU)
#
# Knobs: SIZE (32GiB; 2KiB for a dry run), LIMITS ("0 48GiB 32GiB 24GiB 16GiB 12GiB"; 0 = the
# whole device), BALLAST ("0": memory_limit only; "0 1": both ways; "1": ballast only),
# N_POREP (3), COLD (1; 0: the first load is from the page cache too), WIN_AT (16GiB), SNAP_AT ("": none; e.g. "24GiB 16GiB"), BUDGET (80GiB),
# SYNTH_WORKERS (3), SYNTH_THREADS (18), DEADLINE_S (560), PARAM_DIR, OUT, DISK_S (the disk's
# read time measured before: not read again).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/build-bench/real}
SIZE=${SIZE:-32GiB}
LIMITS=${LIMITS:-"0 48GiB 32GiB 24GiB 16GiB 12GiB"}
BALLAST=${BALLAST:-0}
N_POREP=${N_POREP:-3}
WIN_AT=${WIN_AT:-16GiB}
SNAP_AT=${SNAP_AT:-}
BUDGET=${BUDGET:-80GiB}
SYNTH_WORKERS=${SYNTH_WORKERS:-3}
SYNTH_THREADS=${SYNTH_THREADS:-$((SYNTH_WORKERS * 6))}
DEADLINE_S=${DEADLINE_S:-560}
BIN=${BIN:-build-scale/bin}
PARAM_DIR=${PARAM_DIR:-$ROOT/build-scale/params-real}
TEST_GENERATE=false
[ -d build-scale/lib ] && export LD_LIBRARY_PATH=$ROOT/build-scale/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
czk=$ROOT/$BIN/czk
czkd=$ROOT/$BIN/czkd
W=${WORK:-$ROOT/build-bench/real-work}
rm -rf "$W"
mkdir -p "$OUT" "$W/fx" "$PARAM_DIR"
T_START=$(date +%s.%N)
exec > >(stdbuf -oL tee "$OUT/real.log") 2>&1
. "$ROOT/bench/daemon_lib.sh"
trap 'stop_daemon end; stop_ballast' EXIT

case $SIZE in
  2KiB) porep_rp=StackedDrg2KiBV1_1 porep_num=5 snap_rp=StackedDrg2KiBV1 win_rp=StackedDrgWinning2KiBV1 id=2k parts=1 ;;
  32GiB) porep_rp=StackedDrg32GiBV1_1 porep_num=8 snap_rp=StackedDrg32GiBV1 win_rp=StackedDrgWinning32GiBV1 id=32g parts=10 ;;
  64GiB) porep_rp=StackedDrg64GiBV1_1 porep_num=9 snap_rp=StackedDrg64GiBV1 win_rp=StackedDrgWinning64GiBV1 id=64g parts=10 ;;
  *) echo "SIZE=$SIZE: one of 2KiB 32GiB 64GiB"; exit 2 ;;
esac

# Targets per GPU memory (issue: the real path): seconds per partition in steady state and
# per whole C2 with 16 vCPUs. The floor of a fully streamed 2^27 partition is its bases and
# a, b, c, witness over PCIe (47.4 + 17.1 GB at the measured rate); the peers: SupraSeal
# 2.85 s of GPU per partition on a 24 GB RTX 4090 (PCIe Gen4), cuzk 37.7 s per 32 GiB C2 on
# a 16 GB RTX 5070 Ti.
target() { # LIMIT -> "partition_s c2_s"
  case $1 in
    0) echo "1.2 12" ;; 48GiB) echo "1.3 13" ;; 32GiB) echo "1.4 14" ;;
    24GiB) echo "1.6 16" ;; 16GiB) echo "2.0 20" ;; 12GiB) echo "2.6 26" ;; *) echo "- -" ;;
  esac
}
bytes_of() { # 24GiB -> bytes
  awk -v s="$1" 'BEGIN{n=s+0; u=substr(s, length(n "")+1); m=1;
    if (u=="KiB") m=1024; else if (u=="MiB") m=1048576; else if (u=="GiB") m=1073741824;
    printf "%.0f", n*m}'
}

{
  date -u
  echo "size=$SIZE limits=\"$LIMITS\" ballast=\"$BALLAST\" porep_jobs=$N_POREP budget=$BUDGET synth_workers=$SYNTH_WORKERS synth_threads=$SYNTH_THREADS (shared)"
  echo "cpus=$(nproc) $(grep MemTotal /proc/meminfo)"
  nvidia-smi --query-gpu=name,memory.total,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  df -h "$PARAM_DIR" | tail -1
} | tee "$W/env.txt"

# ---- fixtures, beside the parameter file ---------------------------------------------
say "fixtures: $N_POREP PoRep C1 ($porep_rp), WinningPoSt, SnapDeals"
(
  for k in $(seq 1 "$N_POREP"); do
    "$czk" fixture porep --registered-proof "$porep_rp" --seed "$k" --threads 4 \
      --out "$W/fx/porep-$k.json" > "$W/fx/porep-$k.log" 2>&1 || echo "porep fixture $k failed" >> "$W/fx/fail"
  done
  "$czk" fixture winning --registered-proof "$win_rp" --seed 1 --out "$W/fx/winning-1.json" \
    > "$W/fx/winning-1.log" 2>&1 || echo "winning fixture failed" >> "$W/fx/fail"
  if [ -n "$SNAP_AT" ]; then
    "$czk" fixture snap --registered-proof "$snap_rp" --seed 1 --out "$W/fx/snap-1.json" \
      > "$W/fx/snap-1.log" 2>&1 || echo "snap fixture failed" >> "$W/fx/fail"
  fi
  touch "$W/fx/done"
) &
FX_PID=$!

# ---- the parameter files, as a storage provider's cache holds them ---------------------
make_params() { # circuit id (czk setup keeps a file that exists)
  local t0
  t0=$(now)
  "$czk" setup --circuit "$1" --param-dir "$PARAM_DIR" > "$W/setup-$1.txt" 2>&1 ||
    { tail -5 "$W/setup-$1.txt"; return 1; }
  if grep -q "exist; kept" "$W/setup-$1.txt"; then
    say "$1: .params already in $PARAM_DIR"
  else
    row "czk setup --circuit $1 (made once, kept between calls)" "$(since "$t0") s" "upstream: downloaded"
  fi
}
make_params "porep-$id" || exit 1
make_params "winning-$id" || exit 1
[ -n "$SNAP_AT" ] && { make_params "snap-$id" || exit 1; }
porep_file=$(ls -S "$PARAM_DIR"/*stacked-proof-of-replication*.params | head -1)

# The disk: sequential read of the file with the page cache dropped (direct I/O).
disk_s=${DISK_S:-$( { /usr/bin/time -f %e dd if="$porep_file" of=/dev/null bs=64M iflag=direct status=none; } 2>&1 | tail -1)}
[ -n "${DISK_S:-}" ] || row "disk sequential read of the porep-$id .params ($(du -h "$porep_file" | cut -f1), direct I/O)" "$disk_s s" "cold load ≤ 1.2 × this"

# ---- another process holding device memory ---------------------------------------------
ballast_pid=
start_ballast() { # LIMIT: leave LIMIT of the device free for czkd
  local total free keep
  total=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
  keep=$(( $(bytes_of "$1") / 1048576 ))
  free=$((total - keep - 600)) # the ballast's own CUDA context
  python3 -u -c "
import torch, time, sys
x = torch.empty($free * (1 << 20), dtype=torch.uint8, device='cuda')
print('ballast holds', $free, 'MiB', flush=True)
time.sleep(1e6)" > "$W/ballast.log" 2>&1 &
  ballast_pid=$!
  for _ in $(seq 200); do grep -q holds "$W/ballast.log" 2>/dev/null && break; sleep 0.1; done
  say "ballast: $(cat "$W/ballast.log" | tail -1); nvidia-smi free: $(nvidia-smi --query-gpu=memory.free --format=csv,noheader | head -1)"
}
stop_ballast() {
  [ -n "${ballast_pid:-}" ] || return 0
  kill "$ballast_pid" 2>/dev/null
  wait "$ballast_pid" 2>/dev/null
  ballast_pid=
}

# ---- one memory size ---------------------------------------------------------------------
first_load=${COLD:-1} # COLD=0: the page cache is not dropped before the first load
run_limit() { # LIMIT HOW (limit | ballast)
  local lim=$1 how=$2 tag="$1-$2"
  GPU_LIMIT=
  if [ "$lim" != 0 ]; then
    if [ "$how" = limit ]; then GPU_LIMIT=$lim; else start_ballast "$lim"; fi
  fi
  if [ "$first_load" = 1 ]; then
    sync
    echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || say "cannot drop the page cache: the first load is not cold"
  fi
  start_daemon "$tag" false || { stop_ballast; return 1; }
  local load_s
  load_s=$(preload "porep-$id") || { stop_daemon "$tag"; stop_ballast; return 1; }
  if [ "$first_load" = 1 ]; then
    row "porep-$id parameters loaded cold ($tag)" "$load_s s" "≤ 1.2 × $disk_s s = $(awk -v d="$disk_s" 'BEGIN{printf "%.1f", 1.2*d}') s"
    first_load=0
  else
    row "porep-$id parameters loaded from the page cache ($tag)" "$load_s s" "≤ 10 s"
  fi
  C status > "$W/status-$tag.txt" 2>&1
  grep -E "plan:|resident|HOST|$id" "$W/status-$tag.txt" | head -12
  local rss_load
  rss_load=$(awk '/^VmRSS/{printf "%.1f GiB", $2/1048576}' /proc/$pid/status)
  local plan
  plan=$(sed -n 's/^ *plan: //p' "$W/status-$tag.txt" | head -1)
  row "$tag plan" "${plan:-none}" ""
  row "$tag czkd RSS after the load" "$rss_load" "partitions + streamed bases only"
  local with_win=0
  [ "$lim" = "$WIN_AT" ] && { preload "winning-$id" > /dev/null; with_win=1; }
  wait_fixtures || return 1
  scrape "$W/metrics-$tag-0.txt"
  local t_sub ids=() subs=() k
  t_sub=$(now)
  for k in $(seq 1 "$N_POREP"); do
    submit_porep "$tag" "$k" > "$W/id-$tag-$k.txt" &
    subs+=($!)
  done
  for sp in "${subs[@]}"; do wait "$sp"; done
  for k in $(seq 1 "$N_POREP"); do ids+=("$(cat "$W/id-$tag-$k.txt")"); done
  if [ "$with_win" = 1 ]; then
    sleep 20
    local wt0 wrc
    wt0=$(now)
    C run-job --fixture "$W/fx/winning-1.json" --request-id "$tag-winning" \
      --public-out "$W/pub-$tag-winning" --proof-out "$W/proof-$tag-win.bin" --timeout 60000 \
      > "$W/win-$tag.txt" 2>&1
    wrc=$?
    local wlat wv
    wlat=$(since "$wt0")
    wv=$("$czk" verify --vk "$(vk_of "winning-$id")" --proof "$W/proof-$tag-win.bin" --public "$W/pub-$tag-winning" 2>&1 | tail -1)
    row "$tag WinningPoSt while PoRep runs: submit to proof" "$wlat s (rc $wrc, $wv)" "≤ 3 s"
  fi
  await_all "$tag" "${ids[@]}"
  scrape "$W/metrics-$tag-1.txt"
  if [ "$with_win" = 1 ]; then
    # The WinningPoSt's own events (queued, synthesis, GPU, verified): where its time went.
    local wjob
    wjob=$(grep "\"circuit\":\"winning-$id\"" "$W/timeline-$tag.jsonl" | tail -1 |
      sed -n 's/.*"job":"\([^"]*\)".*/\1/p')
    [ -n "$wjob" ] && grep "\"job\":\"$wjob\"" "$W/timeline-$tag.jsonl" > "$OUT/win-events-$tag.jsonl"
  fi
  local ok fails
  ok=$(verify_all "$tag" porep "$(vk_of "porep-$id")" "$N_POREP")
  fails=$(for k in $(seq 1 "$N_POREP"); do awk '{print $2}' "$W/done-$tag-$k.txt"; done | grep -vc '^0$')
  timeline_stats "$W/timeline-$tag.jsonl" "$W/gpu-$tag.csv" "porep-$id" "$parts" > "$W/steady-$tag.txt"
  st() { awk -v k="$1" '$1 == k {print $2}' "$W/steady-$tag.txt"; }
  local tp tc
  read -r tp tc <<< "$(target "$lim")"
  local hb hs gbps
  hb=$(awk -v a="$(metric "$W/metrics-$tag-0.txt" czk_h2d_bytes_total)" -v b="$(metric "$W/metrics-$tag-1.txt" czk_h2d_bytes_total)" 'BEGIN{print b-a}')
  local nparts
  nparts=$(awk -v a="$(metric "$W/metrics-$tag-0.txt" czk_gpu_partitions_total)" -v b="$(metric "$W/metrics-$tag-1.txt" czk_gpu_partitions_total)" 'BEGIN{print b-a}')
  gbps=$(awk -v h="$(sed -n 's/.*h2d_gbps=\([0-9.]*\).*/\1/p' "$W/czkd-$tag.log" | head -1)" 'BEGIN{print (h > 0) ? h : 25}')
  local floor
  floor=$(awk -v g="$gbps" -v l="$lim" 'BEGIN{printf "%.2f", (l == "0") ? 1.0 : (47.4 + 17.1) / g}')
  row "$tag PoRep $SIZE partition, steady state (interval over $(awk '$1=="interval"{print $4}' "$W/steady-$tag.txt") partitions, $ok/$N_POREP verified, $fails failed)" \
      "$(st interval) s" "≤ $tp s; floor $floor s (fully streamed at $gbps GB/s); SupraSeal 2.85 s (RTX 4090)"
  row "$tag PoRep $SIZE C2, whole (10 × interval)" "$(st steady_per_proof) s" "≤ $tc s; cuzk 37.7 s (RTX 5070 Ti, 16 GB)"
  row "$tag a partition's prover call (median; lock held)" "$(st median_call_s) s (lock $(st held_median) s; H2D $(st median_h2d_s), NTT $(st median_ntt_s), MSM H $(st median_msm_h_s), L $(st median_msm_l_s), A $(st median_msm_a_s), B1 $(st median_msm_b1_s), B2 $(st median_msm_b2_s))" ""
  row "$tag host-to-device bytes per partition (bases streamed + a, b, c, witness)" "$(awk -v b="$hb" -v p="$nparts" 'BEGIN{printf "%.1f GB", (p > 0) ? b/p/1e9 : 0}')" ""
  row "$tag GPU busy (a proof on it / wall); peak device memory" "$(st inflight_busy) %; $(st smi_mem_gib) GiB" "≥ 90 %"
  row "$tag czkd peak RSS (sampled)" "$(awk -v a="$t_sub" '$1 >= a && $2 > m {m = $2} END {printf "%.1f GiB", m/1048576}' "$W/rss-$tag.txt")" "≤ 88 GiB at budget 80GiB"
  if echo " $SNAP_AT " | grep -q " $lim "; then
    C evict "porep-$id" > /dev/null 2>&1
    local ss sid
    ss=$(preload "snap-$id")
    sid=$(C submit --fixture "$W/fx/snap-1.json" --request-id "$tag-snap" --public-out "$W/pub-$tag-snap-1" | sed -n 's/^job_id=\([^ ]*\).*/\1/p')
    await_all "$tag-snap" "$sid"
    local sok
    sok=$(verify_all "$tag-snap" snap "$(vk_of "snap-$id")" 1)
    timeline_stats "$W/timeline-$tag.jsonl" "$W/gpu-$tag.csv" "snap-$id" 16 > "$W/steady-$tag-snap.txt"
    row "$tag SnapDeals $SIZE (load $ss s; $sok/1 verified)" "partition $(awk '$1=="interval"{print $2}' "$W/steady-$tag-snap.txt") s" "report"
  fi
  stop_daemon "$tag"
  stop_ballast
  print_table
}

print_table() {
  echo
  echo "== czk on the real path: $SIZE, $(sed -n 4p "$W/env.txt"), $(nproc) CPUs, $(date -u +%FT%TZ)"
  printf '%-96s %-40s %s\n' "measure" "czk" "target / floor / peer"
  awk -F'\t' '{printf "%-96s %-40s %s\n", $1, $2, $3}' "$RESULTS"
} > "$OUT/table.txt"

for lim in $LIMITS; do
  for b in $BALLAST; do
    time_left || { say "out of time before $lim"; break 2; }
    how=limit
    [ "$b" = 1 ] && how=ballast
    [ "$lim" = 0 ] && [ "$how" = ballast ] && continue
    say "=== GPU memory $lim ($how)"
    run_limit "$lim" "$how" || say "$lim ($how) failed"
    cat "$OUT/table.txt"
  done
done
wait "$FX_PID" 2>/dev/null
print_table
cat "$OUT/table.txt"
for f in "$W"/czkd-*.log; do tail -c 300000 "$f" > "$OUT/$(basename "$f")"; done
cp "$W"/steady-*.txt "$W"/status-*.txt "$OUT/" 2>/dev/null
true
