#!/usr/bin/env bash
# GPU checks and timings of `hmmgo papara` (issue 7, GPU part), in two steps:
#
#   here (Go, no GPU):  bash bench/papara_gpu.sh build
#   GPU host (no Go):   bash bench/papara_gpu.sh run
#                       (from the repository root, with .dev carried)
#
# build: CGO_ENABLED=0 binaries into .dev/ (hmmgo, paparagpu.test) and the
#        PaPaRa inputs and expected outputs of the shared data into
#        .dev/papara-data/ (laid out as ../shared/data is; about 2.5 MB).
#        The scaled-up read set is made by the test binary on the host.
# run:   0. `hmmgo papara --gpu -j 0` on rpsS with an empty kernel cache
#           (NVRTC compiles the kernels it needs), then again (cache hits);
#        1. the papara/gpu tests with -test.v: GPU = CPU on random jobs
#           (every kernel mode and length bin, both scoring schemes, DNA and
#           protein), and the five shared sets through the command on the
#           CPU, the GPU alone and both, with and without -r, each alignment
#           byte-identical to PaPaRa 2.5's;
#        2. the scoring phase of rpsS scaled up (its 2,101 reads and
#           mutated copies, x$SCALE, default 50: 105,050 reads, 3e13 cells)
#           on $THREADS CPU threads (default: all cores), the GPU alone and
#           both; results compared; GCUPS;
#        3. a sweep of the kernels' length bins (GPU alone, x$SCALE/5);
#        4. `hmmgo papara` on rpsS end to end: CPU, GPU, hybrid, outputs
#           compared.
#        Logs go to $OUT (default /tmp/hmmgo-papara-gpu); a short table is
#        printed last. Meant to finish within about 6 minutes on an H100.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dev=.dev
data=$dev/papara-data

build() {
	set -e
	local shared=${HMMGO_SHARED_DATA:-../shared/data}
	export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
	local flags=(-trimpath -ldflags=-s -ldflags=-w)
	mkdir -p $dev
	go build "${flags[@]}" -o $dev/hmmgo ./cmd/hmmgo
	go test -c "${flags[@]}" -o $dev/paparagpu.test ./papara/gpu
	rm -rf $data
	mkdir -p $data/epa-ng $data/sepp/rpsS $data/sepp/pyrg $data/sepp/q2-fragment-insertion $data/sepp/16S_bacteria $data/papara/expected
	cp "$shared"/epa-ng/{aln.phy,ref.tre,query.fasta} $data/epa-ng/
	cp "$shared"/sepp/rpsS/{sate.tre,sate.phy.gz,rpsS.even.fas.gz} $data/sepp/rpsS/
	cp "$shared"/sepp/pyrg/{sate.tre,sate.phy,pyrg.even.fas} $data/sepp/pyrg/
	cp "$shared"/sepp/q2-fragment-insertion/{reference_phylogeny_tiny.unrooted.nwk,ref_tiny.phy.gz,input_fragments.fasta} $data/sepp/q2-fragment-insertion/
	cp "$shared"/sepp/16S_bacteria/human_gut_16S.fas.gz $data/sepp/16S_bacteria/
	cp "$shared"/papara/expected/papara_alignment.* $data/papara/expected/
	ls -l $dev
	du -sh $dev $data
}

now() { date +%s.%N; }
work=
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

run() {
	local out=${OUT:-/tmp/hmmgo-papara-gpu}
	local scale=${SCALE:-50} threads=${THREADS:-$(nproc)}
	mkdir -p "$out"
	for f in $dev/hmmgo $dev/paparagpu.test $data/sepp/rpsS/sate.phy.gz $data/papara/expected/papara_alignment.rpsS.gz; do
		[ -e "$f" ] || { echo "papara_gpu: $f missing: run 'bash bench/papara_gpu.sh build' where Go is, and carry .dev" >&2; exit 2; }
	done
	export HMMGO_KERNEL_CACHE="$out/kernel-cache"
	rm -rf "$HMMGO_KERNEL_CACHE"
	export HMMGO_GPU_DATA="$root/$data"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	local summary=()
	note() { summary+=("$1"); echo "$1"; }
	local rps=(-t $data/sepp/rpsS/sate.tre -s $data/sepp/rpsS/sate.phy.gz -q $data/sepp/rpsS/rpsS.even.fas.gz)

	{ uname -a; nproc; lscpu 2>&1 | head -20; nvidia-smi 2>&1; } > "$out/host.txt"
	note "host: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1); $(nproc) CPU cores ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)); $(date -u +%FT%TZ)"
	$dev/hmmgo gpuinfo > "$out/gpuinfo.txt" 2>&1
	note "gpuinfo: $(grep -E '^(NVRTC|Commands use)' "$out/gpuinfo.txt" | tr '\n' ' ')"

	# 0. First GPU use: NVRTC compiles the kernels rpsS needs; then from the cache.
	local t0 t1 rc
	for pass in cold cached; do
		t0=$(now)
		timeout 120 $dev/hmmgo papara "${rps[@]}" --gpu -j 0 -n first-$pass -o "$work/first-$pass.phy" --placement "$work/first-$pass.pl" -f > "$out/first-$pass.txt" 2>&1
		rc=$?
		t1=$(now)
		note "hmmgo papara --gpu -j 0 rpsS ($pass kernel cache): exit $rc, $(secs "$t0" "$t1") s"
		cp papara_log.first-$pass "$out/" 2>/dev/null
		rm -f papara_log.first-$pass
	done

	# 1. Tests.
	(cd papara/gpu && timeout 300 "$root/$dev/paparagpu.test" -test.v -test.count=1 -test.timeout=290s) > "$out/test-paparagpu.log" 2>&1
	rc=$?
	local pass fail skip
	pass=$(grep -c -- '^--- PASS' "$out/test-paparagpu.log")
	fail=$(grep -c -- '^--- FAIL' "$out/test-paparagpu.log")
	skip=$(grep -- '^--- SKIP' "$out/test-paparagpu.log" | awk '{print $3}' | tr '\n' ' ')
	note "test paparagpu: exit $rc, $pass passed, $fail failed${skip:+, skipped: $skip}"
	grep -E '^\s+--- (PASS|FAIL): TestGPU' "$out/test-paparagpu.log" | sed 's/^ *//' | head -30
	grep -E '^\s+gpu_test.go:[0-9]+: ' "$out/test-paparagpu.log" | sed 's/^ *gpu_test.go:[0-9]*: /  /' | head -20

	# 2. The scoring phase on rpsS scaled up, and 3. the bin sweep.
	(cd papara/gpu && HMMGO_PAPARA_BENCH=1 HMMGO_PAPARA_SCALE=$scale HMMGO_PAPARA_THREADS=$threads \
		timeout 330 "$root/$dev/paparagpu.test" -test.run '^TestGPUBenchScaled$' -test.v -test.count=1 -test.timeout=320s) > "$out/bench-scaled.log" 2>&1
	note "bench scaled x$scale: exit $?"
	grep '^BENCH' "$out/bench-scaled.log" | grep -v 'BENCH table'
	(cd papara/gpu && HMMGO_PAPARA_BENCH=1 HMMGO_PAPARA_SCALE=$scale \
		timeout 150 "$root/$dev/paparagpu.test" -test.run '^TestGPUBinSweep$' -test.v -test.count=1 -test.timeout=140s) > "$out/bench-sweep.log" 2>&1
	note "bench bin sweep: exit $?"

	# 4. The command end to end on rpsS (parsing, scoring, alignment, output).
	local rows=()
	for mode in cpu gpu hybrid; do
		local args
		case $mode in
		cpu) args=(--no-gpu -j "$threads") ;;
		gpu) args=(--gpu -j 0) ;;
		hybrid) args=(--gpu -j "$threads") ;;
		esac
		t0=$(now)
		timeout 120 $dev/hmmgo papara "${rps[@]}" "${args[@]}" -n e2e-$mode -o "$work/$mode.phy" --placement "$work/$mode.pl" -f > "$out/e2e-$mode.txt" 2>&1
		rc=$?
		t1=$(now)
		local same=identical
		zcat $data/papara/expected/papara_alignment.rpsS.gz | cmp -s - "$work/$mode.phy" || same=DIFFERENT
		[ $rc -eq 0 ] || same="exit $rc"
		cmp -s "$work/cpu.pl" "$work/$mode.pl" || same="$same, placements DIFFERENT"
		local sc
		sc=$(grep -o 'scoring: .*' papara_log.e2e-$mode 2>/dev/null | sed 's/.* cells, //')
		rows+=("$(printf '%-7s %7s s wall; scoring %s; alignment vs PaPaRa 2.5: %s' "$mode" "$(secs "$t0" "$t1")" "$sc" "$same")")
		echo "${rows[-1]}"
		cp papara_log.e2e-$mode "$out/" 2>/dev/null
		rm -f papara_log.e2e-$mode
	done

	echo
	echo "== hmmgo papara GPU summary (logs in $out) =="
	printf '%s\n' "${summary[@]}"
	echo "-- scoring phase, rpsS x$scale (Go test in paparagpu.test; setup outside the timings) --"
	grep '^BENCH' "$out/bench-scaled.log" | grep -vE 'BENCH (table|set)' | sed 's/^BENCH //'
	grep -h '^BENCH sweep' "$out/bench-sweep.log" | sed 's/^BENCH //'
	echo "-- hmmgo papara on rpsS (2,101 reads), whole command --"
	printf '%s\n' "${rows[@]}"
	echo "-- table: scoring phase, rpsS x$scale --"
	grep -h '^BENCH set' "$out/bench-scaled.log" | sed 's/^BENCH //'
	grep -h '^BENCH table' "$out/bench-scaled.log" | sed 's/^BENCH table //'
}

case "${1:-}" in
build) build ;;
run) run ;;
*)
	echo "usage: bash bench/papara_gpu.sh build | run   (run: SCALE=50 THREADS=\$(nproc) OUT=/tmp/hmmgo-papara-gpu)" >&2
	exit 2
	;;
esac
