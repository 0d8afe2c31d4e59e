#!/usr/bin/env bash
# Where a GPU search waits: one hmmgo hmmsearch run with HMMGO_STAGE_TIMES,
# the cores busy (from /proc/stat) and each GPU's utilisation (nvidia-smi,
# when present) sampled every 100 ms, then a table per quarter second:
# cores busy, each GPU's busy %, queries done so far, and queries still
# running. A bucket where both the cores and the GPUs idle is latency;
# full cores with idle GPUs is host-bound; the reverse device-bound.
# (docs/BENCHMARKS.md, "Two GPUs against two processes, and timelines".)
#
#   bash bench/gpu/timeline.sh HMMGO MODELS DB [hmmsearch options...]
#   e.g. bash bench/gpu/timeline.sh ./hmmgo all1k.hmm synth.hmmgo --gpu all --cpu 32
#
# nvidia-smi's utilisation is the share of its sample period (1/6 to 1 s)
# in which some kernel ran: not how full the multiprocessors were, nor
# when within the period.
set -u
[ $# -ge 3 ] || { sed -n 2,15p "$0" >&2; exit 2; }
hmmgo=$1 models=$2 db=$3; shift 3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
( while :; do
    read -r _ u n s idle w irq sirq _ < /proc/stat
    echo "$(date +%s.%N) $u $n $s $idle $w $irq $sirq"; sleep 0.1
  done > "$tmp/cpu" ) &
cpuPid=$!
gpuPid=""
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv,noheader,nounits -lms 100 > "$tmp/gpu" 2> /dev/null &
  gpuPid=$!
fi
sleep 0.3
t0=$(date +%s.%N)
HMMGO_STAGE_TIMES=1 "$hmmgo" hmmsearch "$@" -o /dev/null --tblout "$tmp/tbl" "$models" "$db" 2> "$tmp/err"
rc=$?
t1=$(date +%s.%N)
sleep 0.2
kill $cpuPid $gpuPid 2> /dev/null
wait 2> /dev/null
echo "# $(date -u '+%F %T') UTC; $(getconf _NPROCESSORS_ONLN) cores ($(nproc) ours); hmmsearch $*; exit $rc; wall $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}') s; $(grep -vc '^#' "$tmp/tbl") table rows, md5 $(grep -v '^#' "$tmp/tbl" | md5sum | cut -c1-12)"
grep -E 'start:|run done' "$tmp/err"
[ -s "$tmp/gpu" ] || : > "$tmp/gpu"
# nvidia-smi stamps its lines with the local date and time
# (2026/11/29 17:35:53.319): seconds since the first day's midnight.
g0=0
[ -s "$tmp/gpu" ] && g0=$(date -d "$(head -1 "$tmp/gpu" | cut -d' ' -f1 | tr / -)" +%s)
awk -v t0=$t0 -v t1=$t1 -v g0=$g0 -v B=0.25 -v ncpu=$(getconf _NPROCESSORS_ONLN) '
  FILENAME ~ /cpu$/ {
    busy = $2 + $3 + $4 + $7 + $8; tot = busy + $5 + $6
    if (pt != "") { k = int(($1 - t0) / B); if ($1 >= t0 && tot > ptot) { cs[k] += ncpu * (busy - pbusy) / (tot - ptot); cn[k]++ } }
    pt = $1; pbusy = busy; ptot = tot; next }
  FILENAME ~ /gpu$/ {
    split($0, f, ","); split(f[1], a, " "); split(a[2], h, ":"); t = g0 + h[1]*3600 + h[2]*60 + h[3]
    if (t < t0) next
    k = int((t - t0) / B); d = f[2] + 0; gs[k, d] += f[3]; gn[k, d]++; if (d + 1 > ngpu) ngpu = d + 1; next }
  /ran from \+/ {
    match($0, /ran from \+[0-9.]+ to \+[0-9.]+/); split(substr($0, RSTART, RLENGTH), r, "+")
    s = r[2] + 0; e = r[3] + 0; ks = int(s / B); ke = int(e / B)
    for (k = ks; k < ke; k++) run[k]++
    fin[ke]++; if (ke > last) last = ke }
  END {
    if (last == 0) last = int((t1 - t0) / B)
    printf "%6s %6s", "+s", "cores"; for (d = 0; d < ngpu; d++) printf "  gpu%d", d; printf " %6s %7s\n", "done", "running"
    for (k = 0; k <= last; k++) {
      done += fin[k]
      printf "%6.2f %6.1f", k * B, cn[k] ? cs[k] / cn[k] : 0
      for (d = 0; d < ngpu; d++) printf " %5.0f", gn[k, d] ? gs[k, d] / gn[k, d] : 0
      printf " %6d %7d\n", done, run[k] }
  }' "$tmp/cpu" "$tmp/gpu" "$tmp/err"
exit $rc
