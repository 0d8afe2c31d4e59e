#!/usr/bin/env bash
# Where a GPU worker's time per task goes (issue 9), on the GPU host: one
# worker on GPU 0 (--cpu = all cores), the baseline build against this
# one, over the queue_scaling.sh workload (5 models x 200M residues).
# Build here with bench/gpu/build_queue_ab.sh BASE OUTDIR, carry OUTDIR,
# then on the GPU host: bash OUTDIR/bench/gpu/queue_overhead.sh
#   $RUNS: the runs, "label:build:task-cells:worker options:env", default
#          below; build is new or base; env is VAR=VALUE,VAR=VALUE, or
#          prof for a CPU profile of the worker (cpu.prof); _ in worker
#          options stands for a space
#   LOCAL_AB=1: the local search (hmmsearch on the GPU, all cores) with the
#          baseline build too, timed, outputs compared
#   TESTS=1: then the GPU tests of the filters and the task runner, when
#          build_queue_ab.sh built their binaries (tests/)
# Output in $OUT (default /tmp/qover): logs.tgz with each run's worker log
# (with HMMGO_TASK_TRACE lines when set) and submitter trace; a line per
# run on stdout: wall time, the worker's own account, the submitter's
# trace.
set -u
d=$(cd "$(dirname "$0")/../.." && pwd) # OUTDIR of build_queue_ab.sh
out=${OUT:-/tmp/qover}
mkdir -p "$out"
w=/tmp/qover-work
mkdir -p "$w"
export HMMGO_KERNEL_CACHE=$w/kernel-cache
ncpu=$(nproc)
echo "host: $ncpu cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); $(cat "$d/builds.txt")"

export LD_LIBRARY_PATH="$d/redis/lib"
port=$((20000 + RANDOM % 30000))
"$d/redis/bin/redis-server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$w" --logfile "$w/redis.log" &
rpid=$!
unset LD_LIBRARY_PATH
trap 'kill $rpid 2>/dev/null' EXIT
url=redis://127.0.0.1:$port

for m in Caudal_act LuxC Patched RRM_1 SMC_N; do zcat "$d/testdata/hmmer3/models/$m.hmm.gz"; done > "$w/models.hmm"
[ -s "$w/db.fa" ] || "$d/new/hmmgo" synthdb -n "${RESIDUES:-200M}" --seed 1 --plant "$w/models.hmm" --per-model 20 -o "$w/db.fa"
now() { date +%s.%N; }
norm() { grep -v -E '^# (CPU time|Mc/sec|Date|Current dir):' "$1"; }
localrun() { # BUILD DIR
	mkdir -p "$w/$2"
	local t0
	t0=$(now)
	(cd "$w/$2" && "$d/$1/hmmgo" hmmsearch -o out.txt --tblout out.tbl ../models.hmm ../db.fa 2> err.txt)
	echo "local hmmsearch, $1 build (--cpu $ncpu, GPU when present): $(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}') s"
}
localrun new local # the first compiles the kernels into the cache
if [ -n "${LOCAL_AB:-}" ]; then
	localrun base local-base
	localrun new local-new
	for f in out.txt out.tbl; do
		cmp -s <(norm "$w/local/$f") <(norm "$w/local-base/$f") && echo "local $f: base = new" || echo "local $f: base and new DIFFER"
	done
fi

# one LABEL BUILD CELLS WORKER_OPTS ENV
one() {
	local label=$1 bin=$d/$2/hmmgo size=$3 wopts=$4 envs=$5 r=$out/$1
	mkdir -p "$r"
	local -a ev=()
	[ -n "$envs" ] && IFS=, read -r -a ev <<< "${envs//prof/HMMGO_CPUPROFILE=$r/cpu.prof}"
	env "${ev[@]}" "$bin" worker --redis "$url" --db "$w/db.fa" ${WGPU---gpu 0} --cpu "$ncpu" --name "$label" $wopts 2> "$r/worker.log" &
	local wpid=$!
	for _ in $(seq 600); do
		grep -q 'waiting for tasks' "$r/worker.log" && break
		kill -0 $wpid 2>/dev/null || { echo "$label: worker exited: $(tail -3 "$r/worker.log")"; return; }
		sleep 0.1
	done
	mkdir -p "$w/q"
	local t0 t1
	t0=$(now)
	(cd "$w/q" && HMMGO_QUEUE_TRACE=1 "$bin" hmmsearch --redis "$url" --task-cells "$size" -o out.txt --tblout out.tbl ../models.hmm ../db.fa 2> "$r/submit.log") || echo "$label: submit failed: $(tail -3 "$r/submit.log")"
	t1=$(now)
	kill -TERM $wpid
	wait $wpid 2>/dev/null
	local same=identical
	cmp -s <(norm "$w/local/out.txt") <(norm "$w/q/out.txt") || same=DIFFERENT
	cmp -s <(norm "$w/local/out.tbl") <(norm "$w/q/out.tbl") || same=DIFFERENT
	printf '%-22s wall %.2f s, output %s; %s\n' "$label" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$same" \
		"$(sed -n 's/.*done: //p' "$r/worker.log")"
	grep -h 'queue trace' "$r/submit.log" | sed 's/^hmmgo hmmsearch: /    /'
}

runs=${RUNS:-"warm:new:5e10:: base-2e10:base:2e10:: new-2e10:new:2e10:: base-2e9:base:2e9:: new-2e9:new:2e9::"}
for spec in $runs; do
	IFS=: read -r label build size wopts envs <<< "$spec"
	one "$label" "$build" "$size" "${wopts//_/ }" "$envs"
done

if [ -n "${TESTS:-}" ] && [ -d "$d/tests" ]; then
	# Within $BUDGET seconds of the script's start (default 225).
	for p in hmmsearch msvfilter vitfilter biasfilter; do
		[ -x "$d/tests/$p.test" ] || continue
		left=$((${BUDGET:-225} - SECONDS))
		[ "$left" -gt 10 ] || { echo "GPU tests $p: skipped (no time left)"; continue; }
		(cd "hmmer3/$p" && timeout "$left" "$d/tests/$p.test" -test.v -test.run 'TestGPUMatchesCPU|TestGPUConcurrentLaunches|TestGPUTasksMatchCPU|TestTasksAtOnce') > "$out/test-$p.log" 2>&1
		echo "GPU tests $p: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/test-$p.log" | tr '\n' ' ')"
	done
fi
tar -C "$out" -czf "$out/logs.tgz" --exclude logs.tgz . 2>/dev/null && find "$out" -mindepth 1 ! -name logs.tgz -delete
