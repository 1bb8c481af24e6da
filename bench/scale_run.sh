#!/usr/bin/env bash
# The real-scale run (issue #8) in one call: czkd with the GPU backend and czk TEST
# parameters made in memory (resident on the GPU), synthetic 32 GiB fixtures submitted
# over gRPC like a client, every proof verified outside the daemon, and a table of what
# a storage provider buys a prover for:
#
#   PoRep C2 wall time per proof in steady state (several jobs queued), peak RSS, GPU busy,
#   per-partition GPU time, H2D rate from the pinned pool, WinningPoSt latency while PoRep
#   runs, SnapDeals wall time and memory, and PoRep again with pageable buffers.
#
# Binaries come from a CUDA build here (bench/scale_prep.sh puts them and the shared
# libraries a bare GPU image lacks into build-scale/), so the device call only runs:
#   device: carry build-scale; command: bash bench/scale_run.sh
# The same script runs anywhere for a dry run of the flow at a small size on the CPU:
#   SIZE=2KiB BIN=build/bin bash bench/scale_run.sh
#
# Knobs (environment): SIZE (32GiB, 64GiB, 512MiB, 8MiB, 2KiB), N_POREP (jobs queued at once,
# default 5), N_SNAP (2), N_PAGEABLE (1; 0 skips the pageable run), BUDGET (engine memory
# budget, default 80GiB), SYNTH_WORKERS (3), SYNTH_THREADS (6 per worker), WIN_DELAY (seconds after the PoRep submissions
# before the WinningPoSt, default 25), DEADLINE_S (phases not started after this many
# seconds are skipped, default 540), GPU_WORKERS (gpus.workers_per_device, default the
# daemon's), OUT (results; default build-bench/scale).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/build-bench/scale}
SIZE=${SIZE:-32GiB}
N_POREP=${N_POREP:-5}
N_SNAP=${N_SNAP:-2}
N_PAGEABLE=${N_PAGEABLE:-1}
BUDGET=${BUDGET:-80GiB}
SYNTH_WORKERS=${SYNTH_WORKERS:-3}
# Threads shared out among the synthesis workers: a 32 GiB PoRep partition is 18
# challenges, so 3 workers of 6 threads finish one in 3 rounds each.
SYNTH_THREADS=${SYNTH_THREADS:-$((SYNTH_WORKERS * 6))}
DEADLINE_S=${DEADLINE_S:-540}
BIN=${BIN:-build-scale/bin}
[ -d build-scale/lib ] && export LD_LIBRARY_PATH=$ROOT/build-scale/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
czk=$ROOT/$BIN/czk
czkd=$ROOT/$BIN/czkd
W=${WORK:-$ROOT/build-bench/scale-work}
rm -rf "$W"
mkdir -p "$OUT" "$W/params" "$W/fx"
T_START=$(date +%s.%N)
LOG=$OUT/scale.log
exec > >(tee "$LOG") 2>&1

. "$ROOT/bench/daemon_lib.sh"

case $SIZE in
  2KiB) porep_rp=StackedDrg2KiBV1_1 porep_num=5 snap_rp=StackedDrg2KiBV1 win_rp=StackedDrgWinning2KiBV1 id=2k porep_parts=1 ;;
  8MiB) porep_rp=StackedDrg8MiBV1_1 porep_num=6 snap_rp=StackedDrg8MiBV1 win_rp=StackedDrgWinning8MiBV1 id=8m porep_parts=1 ;;
  512MiB) porep_rp=StackedDrg512MiBV1_1 porep_num=7 snap_rp=StackedDrg512MiBV1 win_rp=StackedDrgWinning512MiBV1 id=512m porep_parts=1 ;;
  32GiB) porep_rp=StackedDrg32GiBV1_1 porep_num=8 snap_rp=StackedDrg32GiBV1 win_rp=StackedDrgWinning32GiBV1 id=32g porep_parts=10 ;;
  64GiB) porep_rp=StackedDrg64GiBV1_1 porep_num=9 snap_rp=StackedDrg64GiBV1 win_rp=StackedDrgWinning64GiBV1 id=64g porep_parts=10 ;;
  *) echo "SIZE=$SIZE: one of 2KiB 8MiB 512MiB 32GiB 64GiB"; exit 2 ;;
esac

{
  date -u
  echo "size=$SIZE porep_jobs=$N_POREP snap_jobs=$N_SNAP pageable_jobs=$N_PAGEABLE budget=$BUDGET synth_workers=$SYNTH_WORKERS"
  echo "cpus=$(nproc) $(grep MemTotal /proc/meminfo)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  df -h "$ROOT" | tail -1
} | tee "$W/env.txt"

# ---- fixtures (in the background while the first daemon makes parameters) ------------
say "fixtures: $N_POREP PoRep C1 ($porep_rp), $N_SNAP SnapDeals, 2 WinningPoSt"
(
  for k in $(seq 1 "$N_POREP"); do
    "$czk" fixture porep --registered-proof "$porep_rp" --seed "$k" --threads 4 \
      --out "$W/fx/porep-$k.json" > "$W/fx/porep-$k.log" 2>&1 || echo "porep fixture $k failed" >> "$W/fx/fail"
  done
  for k in $(seq 1 "$N_SNAP"); do
    "$czk" fixture snap --registered-proof "$snap_rp" --seed "$k" \
      --out "$W/fx/snap-$k.json" > "$W/fx/snap-$k.log" 2>&1 || echo "snap fixture $k failed" >> "$W/fx/fail"
  done
  for k in 1 2; do
    "$czk" fixture winning --registered-proof "$win_rp" --seed "$k" \
      --out "$W/fx/winning-$k.json" > "$W/fx/winning-$k.log" 2>&1 || echo "winning fixture $k failed" >> "$W/fx/fail"
  done
  touch "$W/fx/done"
) &
FX_PID=$!

trap 'stop_daemon end' EXIT


# ---- phase 1: PoRep steady state + WinningPoSt under load (pinned pool) ------------------
run_porep_phase() { # TAG NJOBS WITH_WINNING
  local tag=$1 n=$2 with_win=$3
  say "[$tag] preload porep-$id (test parameters made in memory: QAP + fixed-base on the GPU)"
  local gen_s
  gen_s=$(preload "porep-$id") || return 1
  say "[$tag] porep-$id parameters ready in ${gen_s}s"
  row "$tag porep-$id parameters made (QAP on CPU, fixed-base into the GPU SRS)" "${gen_s} s" "once per daemon start"
  if [ "$with_win" = 1 ]; then
    local ws
    ws=$(preload "winning-$id") || return 1
    say "[$tag] winning-$id parameters ready in ${ws}s"
  fi
  wait_fixtures || return 1
  scrape "$W/metrics-$tag-0.txt"
  local t_sub ids=() k subs=()
  t_sub=$(now)
  # All jobs at once, as a client with a backlog would send them (each Submit parses and
  # checks a 39 MB C1 on the daemon, a few seconds of one core).
  for k in $(seq 1 "$n"); do
    submit_porep "$tag" "$k" > "$W/id-$tag-$k.txt" &
    subs+=($!)
  done
  for sp in "${subs[@]}"; do wait "$sp"; done
  for k in $(seq 1 "$n"); do ids+=("$(cat "$W/id-$tag-$k.txt")"); done
  say "[$tag] submitted $n PoRep jobs in $(since "$t_sub")s: ${ids[*]}"
  if [ "$with_win" = 1 ]; then
    # WinningPoSt while PoRep partitions occupy the GPU: after the first partitions prove.
    sleep "${WIN_DELAY:-25}"
    local wt0 wout wrc
    wt0=$(now)
    wout=$(C run-job --fixture "$W/fx/winning-1.json" --request-id "$tag-winning-1" \
      --public-out "$W/pub-$tag-winning-1" --proof-out "$W/proof-$tag-win-1.bin" --timeout 60000 2>&1)
    wrc=$?
    local wlat
    wlat=$(since "$wt0")
    say "[$tag] WinningPoSt under PoRep load: rc=$wrc ${wlat}s ($wout)"
    local wvk wv
    wvk=$(vk_of "winning-$id")
    wv=$("$czk" verify --vk "$wvk" --proof "$W/proof-$tag-win-1.bin" --public "$W/pub-$tag-winning-1" 2>&1 | tail -1)
    row "WinningPoSt submitted while PoRep runs: submit to proof (client side)" "${wlat} s (rc $wrc, $wv)" "≤ 3 s"
  fi
  await_all "$tag" "${ids[@]}"
  scrape "$W/metrics-$tag-1.txt"
  # Completion times, sorted.
  local times
  times=$(for k in $(seq 1 "$n"); do awk '{print $1, $2}' "$W/done-$tag-$k.txt"; done | sort -n)
  local fails
  fails=$(awk '$2 != 0' <<< "$times" | wc -l)
  local first last
  first=$(awk 'NR==1{print $1}' <<< "$times")
  last=$(awk 'END{print $1}' <<< "$times")
  local vk ok
  vk=$(vk_of "porep-$id")
  ok=$(verify_all "$tag" porep "$vk" "$n")
  say "[$tag] $n jobs done ($fails failed), $ok verified with czk verify"
  local total
  total=$(awk -v a="$t_sub" -v b="$last" 'BEGIN{printf "%.1f", b-a}')
  row "$tag PoRep $SIZE C2: $n jobs submitted at once, all done" "${total} s ($ok/$n verified)" ""
  row "$tag czkd peak RSS during the PoRep jobs (sampled every 0.5 s)" "$(awk -v a="$t_sub" '$1 >= a && $2 > m {m = $2} END {printf "%.1f GiB", m/1048576}' "$W/rss-$tag.txt")" "≤ 96 GiB"
  # Steady state from the daemon's timeline: PoRep partitions leave the GPU at a steady
  # rate once the pipeline is full (the first SKIP are its filling: pinned buffers being
  # allocated, the first synthesis); per proof = 10 × the mean interval after them. GPU
  # busy = the GPU lock's held time (gpu_end's held_s) over the same window.
  timeline_stats "$W/timeline-$tag.jsonl" "$W/gpu-$tag.csv" "porep-$id" "$porep_parts" > "$W/steady-$tag.txt"
  cat "$W/steady-$tag.txt"
  st() { awk -v k="$1" '$1 == k {print $2}' "$W/steady-$tag.txt"; }
  row "$tag PoRep $SIZE C2 wall per proof, steady state ($porep_parts × partition interval over $(awk '$1=="interval"{print $4}' "$W/steady-$tag.txt") partitions)" "$(st steady_per_proof) s" "≤ 20 s; cuzk 37.7 s (RTX 5070 Ti), SupraSeal 138–143 s"
  row "$tag GPU busy, steady state (a proof on the GPU / wall; lock held / wall)" "$(st inflight_busy) % ($(st held_busy) % lock; nvidia-smi: $(st smi_busy) % of samples busy, mean util $(st smi_util) %)" "≥ 90 %"
  # Proofs overlap on the GPU (a proof hands it on once only its MSMs are left), so a call's
  # length counts the overlap twice: the GPU's time per partition is the steady interval
  # times the share of it the GPU had a proof (equal to the interval when the GPU is the
  # bottleneck).
  row "$tag GPU time per partition, steady state (partition interval × GPU busy)" "$(awk -v i="$(awk '$1=="interval"{print $2}' "$W/steady-$tag.txt")" -v b="$(st inflight_busy)" 'BEGIN{printf "%.3f s", i*b/100}')" "≤ 1.2 s"
  row "$tag a proof's czk_gpu_prove call, steady state (median; lock held; device span)" "$(st median_call_s) s (lock $(st held_median) s, overlapped with the next: $(st median_overlap); $(st median_gpu_s) s: H2D $(st median_h2d_s), NTT $(st median_ntt_s), MSM H $(st median_msm_h_s), L $(st median_msm_l_s), A $(st median_msm_a_s), B1 $(st median_msm_b1_s), B2 $(st median_msm_b2_s))" ""
  row "$tag peak GPU memory (nvidia-smi)" "$(st smi_mem_gib) GiB" "141 GB H200"
  # Device time per partition and H2D rate from the daemon's counters over the run.
  local m0=$W/metrics-$tag-0.txt m1=$W/metrics-$tag-1.txt
  local dev parts hb hs
  dev=$(awk -v a="$(metric "$m0" czk_gpu_device_seconds_total)" -v b="$(metric "$m1" czk_gpu_device_seconds_total)" 'BEGIN{print b-a}')
  parts=$(awk -v a="$(metric "$m0" czk_gpu_partitions_total)" -v b="$(metric "$m1" czk_gpu_partitions_total)" 'BEGIN{print b-a}')
  hb=$(awk -v a="$(metric "$m0" czk_h2d_bytes_total)" -v b="$(metric "$m1" czk_h2d_bytes_total)" 'BEGIN{print b-a}')
  hs=$(awk -v a="$(metric "$m0" czk_h2d_seconds_total)" -v b="$(metric "$m1" czk_h2d_seconds_total)" 'BEGIN{print b-a}')
  if awk -v p="$parts" 'BEGIN{exit !(p > 0)}'; then
    row "$tag GPU lock held per partition over the whole run (incl. warm-up; $parts partitions)" "$(awk -v d="$dev" -v p="$parts" 'BEGIN{printf "%.2f s", d/p}')" ""
  fi
  if awk -v s="$hs" 'BEGIN{exit !(s > 0)}'; then
    row "$tag H2D effective (a, b, c, witness; bytes / copy time)" "$(awk -v b="$hb" -v s="$hs" 'BEGIN{printf "%.1f GB/s (%.0f GB)", b/s/1e9, b/1e9}')" "≥ 50 GB/s"
  fi
  row "$tag pinned pool: allocations / reuses / fallbacks" "$(metric "$m1" czk_pinned_allocations_total | cut -d. -f1) / $(metric "$m1" czk_pinned_reuses_total | cut -d. -f1) / $(metric "$m1" czk_pinned_fallbacks_total | cut -d. -f1)" ""
}

run_snap_phase() {
  local tag=snap
  say "[$tag] evict porep-$id, preload snap-$id"
  C evict "porep-$id" > /dev/null 2>&1
  local gen_s
  gen_s=$(preload "snap-$id") || return 1
  row "snap-$id parameters made" "${gen_s} s" ""
  local rss0
  rss0=$(awk '/^VmRSS/{print $2}' /proc/$pid/status)
  local ids=() k t_sub
  t_sub=$(now)
  for k in $(seq 1 "$N_SNAP"); do
    ids+=("$(C submit --fixture "$W/fx/snap-$k.json" --request-id "snap-$k" --public-out "$W/pub-$tag-snap-$k" |
      sed -n 's/^job_id=\([^ ]*\).*/\1/p')")
  done
  await_all "$tag" "${ids[@]}"
  local last
  last=$(for k in $(seq 1 "$N_SNAP"); do awk '{print $1}' "$W/done-$tag-$k.txt"; done | sort -n | tail -1)
  local vk ok total
  vk=$(vk_of "snap-$id")
  ok=$(verify_all "$tag" snap "$vk" "$N_SNAP")
  total=$(awk -v a="$t_sub" -v b="$last" 'BEGIN{printf "%.1f", b-a}')
  row "SnapDeals $SIZE: $N_SNAP jobs queued at once, all done" "${total} s ($ok/$N_SNAP verified)" "report"
  row "SnapDeals $SIZE wall per proof (total / jobs)" "$(awk -v t="$total" -v n="$N_SNAP" 'BEGIN{printf "%.1f s", t/n}')" "report"
  local peak
  peak=$(awk -v a="$t_sub" '$1 >= a && $2 > m {m = $2} END {printf "%.1f GiB", m/1048576}' "$W/rss-main.txt")
  row "SnapDeals peak RSS while proving (sampled)" "$peak" "report"
  timeline_stats "$W/timeline-main.jsonl" "$W/gpu-main.csv" "snap-$id" > "$W/steady-snap.txt"
  cat "$W/steady-snap.txt"
  st() { awk -v k="$1" '$1 == k {print $2}' "$W/steady-snap.txt"; }
  row "SnapDeals a partition's czk_gpu_prove call (median; lock held; device span)" "$(st median_call_s) s (lock $(st held_median) s; $(st median_gpu_s) s: H2D $(st median_h2d_s), NTT $(st median_ntt_s), MSM H $(st median_msm_h_s))" "report"
  row "SnapDeals partition interval on the GPU, steady state" "$(awk '$1=="interval"{print $2}' "$W/steady-snap.txt") s" "report"
  scrape "$W/metrics-snap-1.txt"
  row "snap pinned pool: allocations / reuses / fallbacks (cumulative)" "$(metric "$W/metrics-snap-1.txt" czk_pinned_allocations_total | cut -d. -f1) / $(metric "$W/metrics-snap-1.txt" czk_pinned_reuses_total | cut -d. -f1) / $(metric "$W/metrics-snap-1.txt" czk_pinned_fallbacks_total | cut -d. -f1)" ""
}

# ---- run ------------------------------------------------------------------------------
start_daemon main false || exit 1
run_porep_phase main "$N_POREP" 1 || say "PoRep phase failed"
if [ "$N_SNAP" -gt 0 ] && time_left; then
  run_snap_phase || say "Snap phase failed"
else
  say "SnapDeals phase skipped (N_SNAP=$N_SNAP, ${DEADLINE_S}s deadline)"
fi
peak_main=$(awk '$2 > m {m = $2} END {printf "%.1f", m/1048576}' "$W/rss-main.txt")
stop_daemon main
row "czkd peak RSS, pinned run (VmHWM / sampled max)" "$(awk '{printf "%.1f GiB", $1/1048576}' "$W/hwm-main.txt") / ${peak_main} GiB" "≤ 96 GiB"
cp "$W/timeline-main.jsonl" "$OUT/timeline-main.jsonl" 2>/dev/null
"$czk" timeline --in "$W/timeline-main.jsonl" --out "$OUT/timeline-main.svg" --min-gap 100 \
  > /dev/null 2>&1 || say "czk timeline failed"

if [ "$N_PAGEABLE" -gt 0 ] && time_left; then
  start_daemon pageable true || exit 1
  run_porep_phase pageable "$N_PAGEABLE" 0 || say "pageable phase failed"
  stop_daemon pageable
else
  say "pageable phase skipped (N_PAGEABLE=$N_PAGEABLE, ${DEADLINE_S}s deadline)"
fi
wait "$FX_PID" 2>/dev/null

{
  echo
  echo "== czk real-scale run: $SIZE, $(sed -n 4p "$W/env.txt"), $(nproc) CPUs, $(date -u +%FT%TZ)"
  printf '%-88s %-44s %s\n' "measure" "czk" "target / peer"
  awk -F'\t' '{printf "%-88s %-44s %s\n", $1, $2, $3}' "$RESULTS"
  echo "total script time: $(elapsed) s"
} | tee "$OUT/table.txt"
for t in main pageable; do
  [ -f "$W/czkd-$t.log" ] && tail -c 2000000 "$W/czkd-$t.log" > "$OUT/czkd-$t.log"
done
cat "$W"/steady-*.txt > "$OUT/steady.txt" 2>/dev/null
cp "$W/metrics-main-end.txt" "$OUT/metrics-main.txt" 2>/dev/null
true
