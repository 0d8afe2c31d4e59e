#!/usr/bin/env bash
# One GPU worker against one per GPU (issue 9: two workers >= 1.9x one),
# the baseline build against this one, in one session on a multi-GPU
# host. Build here with bench/gpu/build_queue_ab.sh BASE OUTDIR, carry
# OUTDIR, then on the host, from the repository root:
#   bash OUTDIR/bench/gpu/queue_ab.sh
# Each build runs bench/queue_scaling.sh gpu (5 models x 200M residues;
# --task-cells 2e10 and 2e9; one worker, one per GPU, one again; every
# queued output compared with that build's local run) on the same
# database. Then the two builds' local outputs are compared, the GPU
# tests run (TESTS=1, within BUDGET seconds of the start), and $VARIANTS
# ("label:task-cells:worker options", _ for spaces) run with the new
# build. Output: a summary on stdout, logs.tgz in $OUT.
set -u
d=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/qab}
mkdir -p "$out"
w=/tmp/qab-work
mkdir -p "$w/base" "$w/new"
echo "builds: $(cat "$d/builds.txt")"
for m in Caudal_act LuxC Patched RRM_1 SMC_N; do zcat "$d/testdata/hmmer3/models/$m.hmm.gz"; done > "$w/models.hmm"
[ -s "$w/db.fa" ] || "$d/new/hmmgo" synthdb -n "${RESIDUES:-200M}" --seed 1 --plant "$w/models.hmm" --per-model 20 -o "$w/db.fa"
export HMMGO_KERNEL_CACHE=$w/kernel-cache HMMGO_QUEUE_TRACE=1
for b in base new; do
	ln -f "$w/db.fa" "$w/$b/db.fa"
	echo "== $b"
	OUT=$w/$b bash "$d/bench/queue_scaling.sh" gpu "$d/$b/hmmgo" "$d/redis/redis-server" 2>&1 | tee "$out/$b.txt" | grep -v '^warm-up'
done
norm() { grep -v -E '^# (CPU time|Mc/sec|Date|Current dir):' "$1"; }
for f in out.txt out.tbl; do
	cmp -s <(norm "$w/base/local/$f") <(norm "$w/new/local/$f") && echo "local $f: base = new" || echo "local $f: base and new DIFFER"
done
for v in ${VARIANTS:-}; do
	IFS=: read -r label size opts <<< "$v"
	mkdir -p "$w/$label"
	ln -f "$w/db.fa" "$w/$label/db.fa"
	echo "== new, $label"
	OUT=$w/$label TASK_CELLS=$size WORKER_OPTS="${opts//_/ }" bash "$d/bench/queue_scaling.sh" gpu "$d/new/hmmgo" "$d/redis/redis-server" 2>&1 |
		tee "$out/$label.txt" | grep -v -E '^(warm-up|host|date|workload|local)'
done
if [ -n "${TESTS:-}" ] && [ -d "$d/tests" ]; then
	for p in hmmsearch vitfilter msvfilter biasfilter; do
		left=$((${BUDGET:-225} - SECONDS))
		[ "$left" -gt 10 ] || { echo "GPU tests $p: skipped (no time left)"; continue; }
		(cd "hmmer3/$p" && timeout "$left" "$d/tests/$p.test" -test.v -test.run 'TestGPUMatchesCPU|TestGPUConcurrentLaunches|TestGPUTasksMatchCPU|TestTasksAtOnce') > "$out/test-$p.log" 2>&1
		echo "GPU tests $p: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/test-$p.log" | tr '\n' ' ')"
	done
fi
for b in base new ${VARIANTS:-}; do
	b=${b%%:*}
	mkdir -p "$out/logs/$b"
	cp "$w/$b"/w*.log "$w/$b"/q/err.txt "$out/logs/$b/" 2>/dev/null
done
tar -C "$out" -czf "$out/logs.tgz" --exclude logs.tgz . 2>/dev/null && rm -rf "$out/logs"
