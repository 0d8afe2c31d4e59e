#!/usr/bin/env bash
# Scaling of `hmmgo hmmsearch --redis` with the number of workers on one
# machine, against local runs, plus the queue's own cost per task.
#
#   bench/distributed.sh [copies] [task-cells...]
#
# Workload: the 10 RREFam models (947 nodes) of the shared pyhmmer data
# against <copies> (default 8) concatenated copies of its 2,100-protein
# proteome. Needs redis-server and ../shared/data. Each worker runs with
# --cpu 1, so N workers use N cores; on a machine with fewer cores than
# workers the extra workers only compete. Prints one line per run.
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-8}
shift || true
if [ $# -eq 0 ]; then set -- 2e9 5e8; fi
sizes=("$@")
data=${HMMGO_SHARED_DATA:-../shared/data}
hmmf=$(realpath "$data/pyhmmer/hmms/RREFam.hmm")
prot=$(realpath "$data/pyhmmer/seqs/938293.PRJEB85.HG003687.faa")
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/hmmgo" ./cmd/hmmgo
for _ in $(seq "$copies"); do cat "$prot"; done > "$work/db.fa"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --logfile "$work/redis.log" &
sleep 0.5
url=redis://127.0.0.1:$port
hmmgo=$work/hmmgo
norm() { grep -v '^# CPU time\|^# Mc/sec\|^# Date\|^# Current dir\|^# number of worker threads' "$1"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "workload: $(grep -c '^HMMER3' "$hmmf") models x $(grep -c '>' "$work/db.fa") targets"
# CPU seconds (user+system) of a live process, from /proc.
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14+$15)/hz}' "/proc/$1/stat"; }
TIMEFORMAT='%R %U %S'
for cpu in 1 2; do
  t=$( { time (mkdir -p "$work/local$cpu" && cd "$work/local$cpu" && "$hmmgo" hmmsearch --cpu "$cpu" -o out.txt "$hmmf" "$work/db.fa"); } 2>&1 )
  read -r wall u s <<<"$t"
  printf 'local --cpu %d: wall %.2f s, CPU %.2f s\n' "$cpu" "$wall" "$(echo "$u + $s" | bc)"
done
for size in "${sizes[@]}"; do
  for n in 1 2 3; do
    pids=()
    for i in $(seq "$n"); do
      "$hmmgo" worker --redis "$url" --db "$work/db.fa" --cpu 1 --name "w$i" -v 2> "$work/w$i.log" &
      pids+=($!)
    done
    until grep -q 'waiting for tasks' "$work/w$n.log" 2>/dev/null; do sleep 0.1; done
    t=$( { time (mkdir -p "$work/q" && cd "$work/q" && "$hmmgo" hmmsearch --redis "$url" --task-cells "$size" -o out.txt "$hmmf" "$work/db.fa"); } 2>&1 )
    read -r wall u s <<<"$t"
    wcpu=0
    for p in "${pids[@]}"; do wcpu=$(echo "$wcpu + $(cpu_of "$p")" | bc); done
    kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
    same=$(cmp -s <(norm "$work/local1/out.txt") <(norm "$work/q/out.txt") && echo identical || echo DIFFERENT)
    tasks=$(cat "$work"/w*.log | grep -c 'task of' || true)
    printf -- '--redis, %d worker(s), --task-cells %s: wall %.2f s, %d tasks, CPU: submitter %.2f s + workers %.2f s, output %s\n' \
      "$n" "$size" "$wall" "$tasks" "$(echo "$u + $s" | bc)" "$wcpu" "$same"
    rm -f "$work"/w*.log
  done
done
echo "queue overhead per task (empty tasks, 10 kB results, loopback Redis):"
go test ./internal/queue -run XXX -bench TaskOverhead -benchtime 2000x -count 3 | grep ns/op
