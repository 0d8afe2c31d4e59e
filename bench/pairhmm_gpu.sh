#!/usr/bin/env bash
# GPU checks and timings of `hmmgo pairhmm` (issue 6), in two steps:
#
#   here (Go, no GPU):  bash bench/pairhmm_gpu.sh build
#   GPU host (no Go):   bash bench/pairhmm_gpu.sh run [path/to/gpuPairHMM]
#                       (from the repository root, with .dev carried; without
#                       a binary, gpuPairHMM is built from .dev/gph-src when
#                       that holds its source: never commit it)
#   REPS=3 (runs per set and program), CONFIGS=1 adds the bin-tuning sweep.
#
# build: CGO_ENABLED=0 binaries into .dev/ (hmmgo, pairhmm.test,
#        pairhmmcmd.test) and the inputs into .dev/pairhmm-data/ (the shared
#        PairHMM sets, laid out as ../shared/data is, and gzip'd synthetic
#        sets); about 35 MB in all.
# run:   1. the test binaries with -test.v (GPU = CPU bit for bit on tiny, 10s,
#           1m and synthetic sets; the GPU tests skip only without a GPU);
#        2. for 10s, 1m and the synthetic sets: `hmmgo pairhmm` on the CPU
#           (all cores) and on the GPU, `cmp` of the two outputs, wall times;
#           hmmgo --gpu and gpuPairHMM alternately, REPS times each: median
#           wall times and the speed-up (goal: 1.2x);
#        3. peak TCUPS on equal-length batches for every kernel variant
#           (BenchmarkGPUVariants: float kernels timed by CUDA events, and
#           end to end: packing, copies both ways, kernels, double pass,
#           log10), with the ratio to gpuPairHMM's figure;
#        4. without gpuPairHMM, its paper's figure is printed as the reference.
#        Logs go to $OUT (default /tmp/hmmgo-pairhmm-gpu); a short table is
#        printed last. Meant to finish in about 3-4 minutes on an H100.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dev=.dev
data=$dev/pairhmm-data

build() {
	set -e
	local shared=${HMMGO_SHARED_DATA:-../shared/data}
	export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
	local flags=(-trimpath -ldflags=-s -ldflags=-w)
	mkdir -p $dev
	go build "${flags[@]}" -o $dev/hmmgo ./cmd/hmmgo
	go test -c "${flags[@]}" -o $dev/pairhmm.test ./pairhmm
	go test -c "${flags[@]}" -o $dev/pairhmmcmd.test ./internal/pairhmmcmd
	rm -rf $data
	mkdir -p $data/PairHMM/generated $data/gpuPairHMM $data/synthetic
	cp "$shared"/PairHMM/{tiny.in,10s.in,1m.in.gz} $data/PairHMM/
	cp "$shared"/PairHMM/generated/* $data/PairHMM/generated/
	cp "$shared"/gpuPairHMM/readme_example.{in,out} $data/gpuPairHMM/
	mkdir -p $data/gpuPairHMM/expected_H200_cuda13
	cp "$shared"/gpuPairHMM/expected_H200_cuda13/10s.gpuPairHMM.out $data/gpuPairHMM/expected_H200_cuda13/
	local synth=$dev/pairhmmsynth
	go build -o $synth ./bench/pairhmmsynth
	# equal: peak-style batch through the command (37 G cells); mix: realistic
	# lengths (reads 10-250, haplotypes 150-500); hard: long reads and
	# haplotypes, low qualities, many errors (double pass on the GPU, reads
	# over 512 bases on the CPU).
	$synth -records 1200 -reads 64 -haps 16 -readlen 100 -haplen 300 | gzip -6 > $data/synthetic/equal100x300.in.gz
	$synth -mix -records 300 -seed 2 | gzip -6 > $data/synthetic/mix.in.gz
	$synth -records 40 -reads 8 -haps 4 -readlen 500 -haplen 2000 -qlo 2 -qhi 20 -gapq 10 -errors 0.1 -seed 3 | gzip -6 > $data/synthetic/hard500x2000.in.gz
	$synth -records 30 -reads 6 -haps 3 -readlen 600 -haplen 1200 -qlo 10 -qhi 30 -seed 4 | gzip -6 > $data/synthetic/long600x1200.in.gz
	rm -f $synth
	ls -l $dev $data/*
	du -sh $dev
}

# cells of a record file: sum over records of (sum of read lengths) x
# (sum of haplotype lengths)
cells() {
	awk '
		NF == 2 && left == 0 { total += rl * hl; left = $1 + $2; h = $2; rl = 0; hl = 0; next }
		left > 0 { if (left > h) rl += length($1); else hl += length($1); left-- }
		END { total += rl * hl; printf "%.0f\n", total }' "$1"
}

now() { date +%s.%N; }

work=

# median of the numbers on standard input
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# wall seconds of one command (its output and errors go where the caller says)
timed() {
	local t0 t1
	t0=$(now)
	"$@"
	local rc=$?
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >&3
	return $rc
}

run() {
	local gpuph=${1:-}
	local out=${OUT:-/tmp/hmmgo-pairhmm-gpu}
	local reps=${REPS:-3}
	mkdir -p "$out"
	for f in $dev/hmmgo $dev/pairhmm.test $dev/pairhmmcmd.test $data/PairHMM/10s.in; do
		[ -e "$f" ] || { echo "pairhmm_gpu: $f missing: run 'bash bench/pairhmm_gpu.sh build' where Go is, and carry .dev" >&2; exit 2; }
	done
	# A fresh kernel cache: the first GPU use compiles every length bin
	# (timed below), later ones load the cached CUBINs.
	export HMMGO_KERNEL_CACHE="$out/kernel-cache"
	rm -rf "$HMMGO_KERNEL_CACHE"
	export HMMGO_SHARED_DATA="$root/$data"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	local summary=()
	note() { summary+=("$1"); echo "$1"; }

	{ uname -a; nproc; nvidia-smi 2>&1; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm,power.limit --format=csv 2>&1; } > "$out/host.txt"
	note "host: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1); $(nproc) CPU cores; $(date -u +%FT%TZ)"
	$dev/hmmgo gpuinfo > "$out/gpuinfo.txt" 2>&1
	note "gpuinfo: $(grep -E '^(NVRTC|Commands use)' "$out/gpuinfo.txt" | tr '\n' ' ')"

	# gpuPairHMM: a given binary, else built from its source in .dev/gph-src
	# (never committed; built in a scratch copy).
	if [ -z "$gpuph" ] && [ -d $dev/gph-src ]; then
		cp -r $dev/gph-src "$work/gph"
		if (cd "$work/gph" && timeout 240 make -j4 GPUARCH=90 TUNINGARCH=90 gpuPairHMM) > "$out/gpupairhmm-build.log" 2>&1; then
			gpuph="$work/gph/gpuPairHMM"
			note "gpuPairHMM: built from $dev/gph-src (make GPUARCH=90 TUNINGARCH=90)"
		else
			note "gpuPairHMM: build FAILED (see $out/gpupairhmm-build.log)"
		fi
	fi

	# 0. First GPU use: compiles the kernels (NVRTC), then from the cache;
	#    --verbose splits the set-up (devices, GPU backend, kernel modules).
	for pass in cold cached cached; do
		timed $dev/hmmgo pairhmm --gpu --verbose $data/PairHMM/tiny.in -o "$work/tiny.gpu" 2> "$out/first-$pass.txt" 3> "$work/t"
		note "hmmgo pairhmm --gpu tiny ($pass kernel cache): exit $?, $(cat "$work/t") s; $(grep -o 'set-up: .*' "$out/first-$pass.txt")"
	done
	if [ -n "$gpuph" ]; then
		timed "$gpuph" --inputfile $data/PairHMM/tiny.in --outputfile "$work/tiny.gph" > /dev/null 2>&1 3> "$work/t"
		note "gpuPairHMM tiny: $(cat "$work/t") s (its start-up, for comparison)"
	fi

	# 1. Tests (all of both packages; the GPU ones compare with the CPU bit
	#    for bit, TestGPUVariants every kernel variant).
	for p in pairhmm:pairhmm internal/pairhmmcmd:pairhmmcmd; do
		local dir=${p%%:*} bin=${p##*:}
		(cd "$dir" && timeout 200 "$root/$dev/$bin.test" -test.v -test.count=1 -test.timeout=190s) > "$out/test-$bin.log" 2>&1
		local rc=$?
		local pass fail skip
		pass=$(grep -c -- '^--- PASS' "$out/test-$bin.log")
		fail=$(grep -c -- '^--- FAIL' "$out/test-$bin.log")
		skip=$(grep -- '^--- SKIP' "$out/test-$bin.log" | awk '{print $3}' | tr '\n' ' ')
		note "test $bin: exit $rc, $pass passed, $fail failed${skip:+, skipped: $skip}"
		grep -E '^\s+gpu_test.go:[0-9]+: .* on cuda' "$out/test-$bin.log" | sed 's/^ *gpu_test.go:[0-9]*: /  /' | head -12
	done

	# 2. The command on each set: CPU once (outputs must be identical), then
	#    hmmgo --gpu and gpuPairHMM $reps times each, alternating; medians.
	local rows=()
	for src in $data/PairHMM/10s.in $data/PairHMM/1m.in.gz $data/synthetic/*.in.gz; do
		local name in c
		name=$(basename "$src" | sed 's/\.in.*//')
		in="$work/$name.in"
		zcat -f "$src" > "$in"
		c=$(cells "$in")
		timed timeout 300 $dev/hmmgo pairhmm --nogpu "$in" -o "$work/$name.cpu" 2> "$out/cmd-$name-cpu.txt" 3> "$work/tcpu"
		local hm=() gp=() grc=0 same=identical
		for ((i = 0; i < reps; i++)); do
			timed timeout 300 $dev/hmmgo pairhmm --gpu --verbose "$in" -o "$work/$name.gpu" 2> "$out/cmd-$name-gpu.txt" 3> "$work/t" || grc=$?
			hm+=("$(cat "$work/t")")
			cmp -s "$work/$name.cpu" "$work/$name.gpu" || same=DIFFERENT
			if [ -n "$gpuph" ]; then
				timed timeout 300 "$gpuph" --inputfile "$in" --outputfile "$work/$name.gpupairhmm" --verbose > "$out/gpupairhmm-$name.txt" 2>&1 3> "$work/t"
				gp+=("$(cat "$work/t")")
			fi
		done
		[ $grc -eq 0 ] || same="GPU exit $grc"
		local hmed gmed ktcups setup
		hmed=$(printf '%s\n' "${hm[@]}" | median)
		ktcups=$(grep -o '([0-9.]* TCUPS)' "$out/cmd-$name-gpu.txt" | tr -d '()' | awk '{print $1}')
		setup=$(grep -o 'GPU backend [0-9.]* ms' "$out/cmd-$name-gpu.txt" | awk '{print $3}')
		rows+=("$(awk -v s="$name" -v c="$c" -v t="$(cat "$work/tcpu")" -v h="$hmed" -v all="${hm[*]}" -v k="${ktcups:-?}" -v su="${setup:-?}" -v same="$same" 'BEGIN {
			printf "%-14s %7.2f Gcells | CPU %6.3f s | hmmgo --gpu %6.3f s (runs %s; kernels %s TCUPS; GPU set-up %s ms) | %s",
				s, c / 1e9, t, h, all, k, su, same }')")
		echo "${rows[-1]}"
		if [ -n "$gpuph" ]; then
			gmed=$(printf '%s\n' "${gp[@]}" | median)
			$dev/hmmgo pairhmm --gpu --format matrix "$in" -o "$work/$name.matrix" 2>/dev/null
			local cmpres own
			cmpres=$(paste -d' ' "$work/$name.matrix" "$work/$name.gpupairhmm" | awk '
				{ n = NF / 2; for (i = 1; i <= n; i++) { if ($(i + n) ~ /inf|nan/) { bad++; continue } d = $i - $(i + n); if (d < 0) d = -d; if (d > m) m = d } }
				END { printf "max |diff| from hmmgo %.2g, non-finite %d", m, bad }')
			own=$(grep -iE 'GCUPS|Batch processing time' "$out/gpupairhmm-$name.txt" | head -2 | tr -s ' \n' ' ')
			rows+=("$(awk -v s="$name" -v g="$gmed" -v h="$hmed" -v all="${gp[*]}" -v own="$own" -v r="$cmpres" 'BEGIN {
				printf "%-14s gpuPairHMM   %6.3f s (runs %s) => hmmgo speed-up %.2fx (goal >= 1.20) | its own: %s| %s", s, g, all, g / h, own, r }')")
			echo "${rows[-1]}"
		fi
	done

	# 3. Peak throughput on equal-length batches, every kernel variant
	#    (the default one is the one the command uses), and optionally the
	#    configuration sweep (CONFIGS=1).
	(cd pairhmm && timeout 200 "$root/$dev/pairhmm.test" -test.run '^$' -test.bench 'GPUVariants' -test.benchtime 3x -test.timeout 190s) > "$out/bench-variants.log" 2>&1
	note "benchmark GPUVariants: exit $?"
	if [ "${CONFIGS:-0}" = 1 ]; then
		(cd pairhmm && timeout 200 "$root/$dev/pairhmm.test" -test.run '^$' -test.bench 'GPUConfigs' -test.benchtime 2x -test.timeout 190s) > "$out/bench-configs.log" 2>&1
		note "benchmark GPUConfigs: exit $?"
	fi
	local bench=()
	while read -r line; do bench+=("$line"); done < <(cat "$out"/bench-*.log | grep -h '^BenchmarkGPU' | awk '{
		name = $1; sub(/^BenchmarkGPU/, "", name); sub(/-[0-9]+$/, "", name)
		k = e = g = "?"
		for (i = 2; i < NF; i++) { if ($(i+1) == "TCUPS-kernel") k = $i; if ($(i+1) == "TCUPS-e2e") e = $i; if ($(i+1) == "Gcells") g = $i }
		ref = 2.055 # gpuPairHMM on equal 100x300, H200 (its own batch figure, 2026-11-22)
		printf "%-32s %8s Gcells  kernels %6s TCUPS (%.2fx gpuPairHMM H200 batch 2.055)  end to end %6s TCUPS\n", name, g, k, k / ref, e }')

	echo
	echo "== hmmgo pairhmm GPU summary (logs in $out) =="
	printf '%s\n' "${summary[@]}"
	echo "-- whole command, wall seconds (median of $reps; parsing, scoring, printing, start-up included) --"
	printf '%s\n' "${rows[@]}"
	echo "-- peak (Go benchmark: batch in memory; kernels by CUDA events; end to end = Compute call) --"
	printf '%s\n' "${bench[@]}"
	echo "   gpuPairHMM's own peak: 2.37 TCUPS on an H100 (paper); 1.2x = 2.84 TCUPS. Its batch figure on equal100x300 is in the rows above."
	if [ -z "$gpuph" ]; then
		echo "-- gpuPairHMM: not measured side by side (no binary given and no $dev/gph-src)."
	fi
}

case "${1:-}" in
build) build ;;
run) run "${2:-}" ;;
*)
	echo "usage: bash bench/pairhmm_gpu.sh build | run [gpuPairHMM binary]" >&2
	exit 2
	;;
esac
