#!/usr/bin/env bash
# Scaling of the Redis work queue (hmmgo worker / hmmsearch --redis) with
# the number of workers on one machine, and the queue's overhead per task.
# Needs no Go: give it a built hmmgo (and a redis-server binary when none
# is on PATH).
#
#   bench/queue_scaling.sh cpu HMMGO [REDIS_SERVER]
#       1, 2, 4 ... nproc workers, each --cpu $CPU_PER_WORKER (default 1)
#   bench/queue_scaling.sh gpu HMMGO [REDIS_SERVER]
#       one GPU worker (--gpu 0), then one per GPU (--gpu 0, --gpu 1, ...),
#       each --cpu $CPU_PER_WORKER (default: nproc / number of GPUs), and
#       the ratio of their throughputs (issue 9's goal: 2 workers >= 1.9x)
#
# Run from anywhere; it reads the models in testdata/. REDIS_SERVER may be
# a copied binary with its shared libraries in a lib/ directory beside it
# (bench/gpu/build_queue.sh prepares Debian's for the GPU host).
#
# Environment:
#   RESIDUES    synthetic database size (hmmgo synthdb, seed 1, 20 homologs
#               of each model planted; default cpu 400M, gpu 200M)
#   TASK_CELLS  task sizes to run, e.g. "2e9 2e10" (default cpu 2e9, the
#               default of --task-cells; gpu "2e10 2e9")
#   WORKERS     worker counts (default: as above)
#   CPU_PER_WORKER  --cpu of each worker
#   WORKER_OPTS more options for every worker (e.g. "--tasks 3")
#   MODELS      an HMMER3 model file (plain or gzipped) to search instead of
#               the five below, e.g. the 24 CUDAMPF models concatenated: a
#               workload long enough that start-up costs (worker contexts,
#               the submitter's index, the first result) do not weigh
#   STORED=1    also run with the database stored in Redis (makedb --redis;
#               workers --db redis:bench) instead of read from the file
#   OUT         directory for the database, logs and outputs (default: a
#               new temporary directory, removed at the end unless KEEP=1)
#
# Workload: the five HMMER3/e models of testdata/hmmer3/models (Caudal_act,
# LuxC, Patched, RRM_1, SMC_N: 2,559 nodes) against the synthetic database.
# Each run's report and table are compared with a local run's (the lines
# that differ between any two runs aside). Prints one line per run: wall
# time (submission to the last line printed), GCUPS (model nodes x
# residues / wall), speedup over one worker, the workers' time in tasks,
# and the queue's overhead per task as the workers measured it (fetching
# the task and its job, posting the result, acknowledging; waiting for
# work is not counted) and as a share of task time.
set -euo pipefail
usage() { sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mode=${1:-}
[ "$mode" = cpu ] || [ "$mode" = gpu ] || usage
[ -x "${2:-}" ] || { echo "queue_scaling.sh: HMMGO (the hmmgo binary) is required" >&2; usage; }
hmmgo=$(realpath "$2")
redis=${3:-$(command -v redis-server || true)}
[ -x "$redis" ] || { echo "queue_scaling.sh: no redis-server; give its path as the third argument" >&2; exit 2; }
# Absolute, but not resolved: Debian's redis-server is a link to a binary
# that decides what it is by the name it is called with.
redis=$(cd "$(dirname "$redis")" && pwd)/$(basename "$redis")
repo=$(cd "$(dirname "$0")/.." && pwd)
ncpu=$(nproc)

if [ "$mode" = gpu ]; then
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
	[ "$ngpu" -ge 1 ] || { echo "queue_scaling.sh gpu: nvidia-smi lists no GPU" >&2; exit 1; }
	residues=${RESIDUES:-200M}
	sizes=${TASK_CELLS:-"2e10 2e9"}
	counts=${WORKERS:-"1 $ngpu"}
	per=${CPU_PER_WORKER:-$((ncpu / ngpu))}
else
	residues=${RESIDUES:-400M}
	sizes=${TASK_CELLS:-2e9}
	if [ -z "${WORKERS:-}" ]; then
		counts=""
		for ((n = 1; n < ncpu; n *= 2)); do counts="$counts $n"; done
		counts="$counts $ncpu"
	else
		counts=$WORKERS
	fi
	per=${CPU_PER_WORKER:-1}
fi

work=${OUT:-$(mktemp -d)}
mkdir -p "$work"
work=$(realpath "$work")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ -z "${OUT:-}" ] && [ -z "${KEEP:-}" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
export HMMGO_KERNEL_CACHE=${HMMGO_KERNEL_CACHE:-$work/kernel-cache}

# Redis on a free loopback port, without persistence.
[ -d "$(dirname "$redis")/lib" ] && export LD_LIBRARY_PATH="$(dirname "$redis")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for try in 1 2 3 4 5 6; do
	port=$((20000 + RANDOM % 30000))
	: > "$work/redis.log"
	"$redis" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --logfile "$work/redis.log" &
	rpid=$!
	for _ in $(seq 100); do
		grep -q 'Ready to accept' "$work/redis.log" && break
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.05
	done
	if grep -q 'Ready to accept' "$work/redis.log"; then break; fi
	kill "$rpid" 2>/dev/null || true
	wait "$rpid" 2>/dev/null || true
	rpid=
done
[ -n "$rpid" ] || { echo "queue_scaling.sh: redis-server did not start:" >&2; cat "$work/redis.log" >&2; exit 1; }
pids+=("$rpid")
url=redis://127.0.0.1:$port
unset LD_LIBRARY_PATH

# Inputs.
if [ -n "${MODELS:-}" ]; then
	zcat -f "$MODELS" > "$work/models.hmm"
else
	for m in Caudal_act LuxC Patched RRM_1 SMC_N; do zcat "$repo/testdata/hmmer3/models/$m.hmm.gz"; done > "$work/models.hmm"
fi
nmodels=$(grep -c '^HMMER3' "$work/models.hmm")
if [ ! -s "$work/db.fa" ]; then
	"$hmmgo" synthdb -n "$residues" --seed 1 --plant "$work/models.hmm" --per-model 20 -o "$work/db.fa"
fi
nres=$(awk '!/^>/ {n += length($0)} END {print n}' "$work/db.fa")
nseq=$(grep -c '^>' "$work/db.fa")
nodes=$(awk '$1 == "LENG" {n += $2} END {print n}' "$work/models.hmm")

echo "host: $(hostname), $ncpu cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))$([ "$mode" = gpu ] && echo ", $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')")"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); $hmmgo ($(wc -c < "$hmmgo") bytes); $("$redis" --version | cut -d' ' -f1-3); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "workload: $nmodels models ($nodes nodes) x $nseq targets ($nres residues) = $(awk -v a="$nodes" -v b="$nres" 'BEGIN {printf "%.3g", a * b}') cells; workers --cpu $per"

norm() { grep -v -E '^# (CPU time|Mc/sec|Date|Current dir):' "$1"; }
now() { date +%s.%N; }

# The reference: a local run (on this machine's GPU when it has one).
mkdir -p "$work/local"
t0=$(now)
(cd "$work/local" && "$hmmgo" hmmsearch -o out.txt --tblout out.tbl ../models.hmm ../db.fa 2> err.txt)
t1=$(now)
awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" -v c="$nodes" -v r="$nres" \
	'BEGIN {printf "local hmmsearch (default --cpu %s): wall %.2f s, %.1f GCUPS\n", "'"$ncpu"'", w, c * r / w / 1e9}'

# run N SIZE SERVE LABEL [FASTA]: one queued search of FASTA (default
# db.fa) with N workers serving SERVE (the file or redis:NAME); prints its
# line and records its wall time in walls[LABEL/N].
declare -A walls
run() {
	local n=$1 size=$2 serve=$3 label=$4 fasta=${5:-db.fa} wpids=() i
	rm -f "$work"/w*.log
	for ((i = 1; i <= n; i++)); do
		local gpu=()
		[ "$mode" = gpu ] && gpu=(--gpu $((i - 1)))
		"$hmmgo" worker --redis "$url" --db "$serve" --cpu "$per" --name "w$i" "${gpu[@]}" ${WORKER_OPTS:-} 2> "$work/w$i.log" &
		wpids+=($!)
		pids+=($!)
	done
	for ((i = 1; i <= n; i++)); do
		for _ in $(seq 1200); do
			grep -q 'waiting for tasks' "$work/w$i.log" && break
			kill -0 "${wpids[i - 1]}" 2>/dev/null || { echo "worker w$i exited:" >&2; cat "$work/w$i.log" >&2; exit 1; }
			sleep 0.1
		done
	done
	rm -rf "$work/q"
	mkdir -p "$work/q"
	local t0 t1
	t0=$(now)
	(cd "$work/q" && "$hmmgo" hmmsearch --redis "$url" --task-cells "$size" -o out.txt --tblout out.tbl ../models.hmm "../$fasta" 2> err.txt) ||
		{ echo "queued search failed:" >&2; cat "$work/q/err.txt" "$work"/w*.log >&2; exit 1; }
	t1=$(now)
	kill -TERM "${wpids[@]}"
	wait "${wpids[@]}" 2>/dev/null || true
	local wall
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
	walls[$label/$n]=$wall
	local same=identical
	cmp -s <(norm "$work/local/out.txt") <(norm "$work/q/out.txt") || same=DIFFERENT
	cmp -s <(norm "$work/local/out.tbl") <(norm "$work/q/out.tbl") || same=DIFFERENT
	local devs
	devs=$(sed -n 's/.*running tasks on \(.*\); waiting.*/\1/p' "$work"/w*.log | sort | uniq -c | sed 's/^ *//' | paste -sd, -)
	# Each worker's closing line: "done: T tasks, W cells in B s (R
	# Gcells/s); queue overhead O s, X ms per task, P% of task time".
	sed -n 's/.*done: \([0-9]*\) tasks, \([0-9.e+]*\) cells in \([0-9.]*\) s ([0-9.]* Gcells\/s); queue overhead \([0-9.]*\) s.*/\1 \2 \3 \4/p' \
		"$work"/w*.log > "$work/sums.txt"
	awk -v n="$n" -v size="$size" -v wall="$wall" -v base="${walls[$label/1]:-$wall}" -v label="$label" -v same="$same" -v devs="$devs" '
		{ t += $1; w += $2; busy += $3; o += $4 }
		END {
			if (t == 0) { printf "%s %d worker(s): no task was done\n", label, n; exit }
			printf "%-13s %d worker(s): %d tasks, wall %.2f s, %.1f GCUPS, speedup %.2f; in tasks %.2f s (%.1f GCUPS per worker), queue overhead %.3f ms per task = %.3f%% of task time; output %s [%s]\n",
				label, n, t, wall, w / wall / 1e9, base / wall, busy, w / busy / 1e9, 1e3 * o / t, 100 * o / busy, same, devs
		}' "$work/sums.txt"
	# The submitter's account when it gives one ($HMMGO_QUEUE_TRACE).
	grep -h 'queue trace' "$work/q/err.txt" | sed 's/^hmmgo hmmsearch: /    /' || true
}

most=$(echo "$counts" | tr ' ' '\n' | sort -n | tail -1)
if [ "$mode" = gpu ]; then
	# Warm-up, not measured: every GPU compiles (or loads) the models'
	# kernels into the cache once, so that no measured run pays NVRTC.
	awk '/^>/ && n > 2000000 {exit} !/^>/ {n += length($0)} {print}' "$work/db.fa" > "$work/warm.fa"
	echo "warm-up (kernel cache $HMMGO_KERNEL_CACHE): $(run "$most" 5e8 "$work/warm.fa" warmup warm.fa | cut -d';' -f1)"
fi

stored=""
if [ -n "${STORED:-}" ]; then
	t0=$(now)
	"$hmmgo" makedb --redis "$url" "$work/db.fa" bench
	echo "makedb --redis: $(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}') s"
	stored=redis:bench
fi
for size in $sizes; do
	for n in $counts; do run "$n" "$size" "$work/db.fa" "file-$size"; done
	if [ -n "$stored" ]; then
		for n in $counts; do run "$n" "$size" "$stored" "redis-$size"; done
	fi
	if [ "$mode" = gpu ]; then
		# One worker again, after: the ratio uses the faster of the two
		# one-worker runs, so that drift cannot inflate it.
		first=${walls[file-$size/1]}
		run 1 "$size" "$work/db.fa" "file-$size"
		best=$(awk -v a="$first" -v b="${walls[file-$size/1]}" 'BEGIN {print (a < b ? a : b)}')
		awk -v b="$best" -v w="${walls[file-$size/$most]}" -v n="$most" -v s="$size" \
			'BEGIN {printf "ratio, --task-cells %s: %d GPU workers vs 1: %.2fx the throughput (wall %.2f s vs the better one-worker %.2f s; goal >= 1.9)\n", s, n, b / w, w, b}'
	fi
done
