#!/usr/bin/env bash
# Whole-command A/B of `hmmgo pairhmm --gpu` (start-up, long reads; issue 6)
# between two builds, with gpuPairHMM beside them, in two steps:
#
#   here (Go, no GPU):  bash bench/pairhmm_gpu_setup.sh build [BASE_COMMIT]
#   GPU host (no Go):   bash bench/pairhmm_gpu_setup.sh run
#                       (from the repository root with .dev/phsetup carried)
#
# build: .dev/phsetup/{hmmgo,pairhmm.test,pairhmmcmd.test} from the work
#        tree, .dev/phsetup/base/hmmgo from BASE_COMMIT (default origin of
#        the branch: main), the inputs (tiny, 10s, 1m and the synthetic
#        long600x1200, hard500x2000 and mix sets of bench/pairhmm_gpu.sh)
#        and, when gpuPairHMM's source is given as GPH_SRC (a checkout;
#        never committed), a copy of it to build there.
# run:   the GPU tests of both packages (beside the gpuPairHMM build), then
#        per set REPS (5) runs of base, new (--verbose) and gpuPairHMM,
#        alternating: median wall times, cmp of new against base and
#        against the CPU, and new's --verbose breakdown (timeline, set-up
#        steps, host work); the slowest driver/NVRTC calls once.
#        About 3 minutes on an H100 host.
set -uo pipefail
cd "$(dirname "$0")/.."
D=.dev/phsetup

build() {
	set -e
	local base=${1:-main} shared=${HMMGO_SHARED_DATA:-../shared/data}
	export CGO_ENABLED=0
	local flags=(-trimpath -ldflags=-s -ldflags=-w)
	mkdir -p $D/base $D/data $D/shared
	go build "${flags[@]}" -o $D/hmmgo ./cmd/hmmgo
	go test -c "${flags[@]}" -o $D/pairhmm.test ./pairhmm
	go test -c "${flags[@]}" -o $D/pairhmmcmd.test ./internal/pairhmmcmd
	local src
	src=$(mktemp -d)
	git archive "$base" | tar -x -C "$src"
	(cd "$src" && go build "${flags[@]}" -o "$OLDPWD/$D/base/hmmgo" ./cmd/hmmgo)
	rm -rf "$src"
	cp "$shared"/PairHMM/{tiny.in,10s.in,1m.in.gz} $D/data/
	rm -rf $D/shared/PairHMM && cp -r "$shared"/PairHMM $D/shared/ && chmod -R u+w $D/shared
	go build -o $D/synth ./bench/pairhmmsynth
	$D/synth -mix -records 300 -seed 2 | gzip -6 > $D/data/mix.in.gz
	$D/synth -records 40 -reads 8 -haps 4 -readlen 500 -haplen 2000 -qlo 2 -qhi 20 -gapq 10 -errors 0.1 -seed 3 | gzip -6 > $D/data/hard500x2000.in.gz
	$D/synth -records 30 -reads 6 -haps 3 -readlen 600 -haplen 1200 -qlo 10 -qhi 30 -seed 4 | gzip -6 > $D/data/long600x1200.in.gz
	rm -f $D/synth
	if [ -n "${GPH_SRC:-}" ]; then
		rm -rf $D/gph-src && mkdir -p $D/gph-src
		git -C "$GPH_SRC" archive HEAD | tar -x -C $D/gph-src
	fi
	du -sh $D
}

run() {
	local O=${OUT:-/tmp/hmmgo-pairhmm-setup} reps=${REPS:-5} root
	root=$(pwd)
	mkdir -p "$O"
	local W
	W=$(mktemp -d)
	trap 'rm -rf "$W"' EXIT
	export HMMGO_KERNEL_CACHE=$W/kcache
	echo "host: $(nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.max.sm --format=csv,noheader | head -1); $(nproc) cores; $(date -u +%FT%TZ)"
	local BPID=
	if [ -d $D/gph-src ]; then
		cp -r $D/gph-src "$W/gph"
		(cd "$W/gph" && timeout 150 make -j8 GPUARCH=90 TUNINGARCH=90 gpuPairHMM > "$O/gph-build.log" 2>&1; echo "build rc $?" >> "$O/gph-build.log") &
		BPID=$!
	fi
	for p in pairhmm internal/pairhmmcmd; do
		local b
		b=$(basename $p)
		(cd $p && HMMGO_SHARED_DATA=$root/$D/shared timeout 100 "$root/$D/$b.test" -test.run '^TestGPU' -test.v -test.count=1) > "$O/test-$b.log" 2>&1
		echo "test $b (^TestGPU): exit $?, $(grep -c -- '--- PASS' "$O/test-$b.log") passed, $(grep -c -- '--- FAIL' "$O/test-$b.log") failed, $(grep -c -- '--- SKIP' "$O/test-$b.log") skipped"
	done
	local GPH=
	if [ -n "$BPID" ]; then
		wait "$BPID"
		echo "gpuPairHMM $(tail -1 "$O/gph-build.log")"
		[ -x "$W/gph/gpuPairHMM" ] && GPH=$W/gph/gpuPairHMM
	fi
	med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	tm() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }'; }
	# quiet runs a command with its output discarded (a redirection after
	# tm would discard tm's own output, the time).
	quiet() { "$@" > /dev/null 2>&1; }
	echo "first runs (kernel cache as the tests left it): base $(tm $D/base/hmmgo pairhmm --gpu $D/data/tiny.in -o "$W/t1" 2>/dev/null) s, new $(tm $D/hmmgo pairhmm --gpu $D/data/tiny.in -o "$W/t2" 2>/dev/null) s"
	for set in tiny 10s 1m long600x1200 hard500x2000 mix; do
		zcat -f $D/data/$set.in* > "$W/$set.in"
		local ba=() nw=() gp=()
		for ((r = 0; r < reps; r++)); do
			ba+=("$(tm $D/base/hmmgo pairhmm --gpu "$W/$set.in" -o "$W/$set.base" 2>/dev/null)")
			nw+=("$(tm $D/hmmgo pairhmm --gpu --verbose "$W/$set.in" -o "$W/$set.new" 2> "$O/$set-new.txt")")
			[ -n "$GPH" ] && gp+=("$(tm quiet "$GPH" --inputfile "$W/$set.in" --outputfile "$W/$set.gph")")
		done
		$D/hmmgo pairhmm --nogpu "$W/$set.in" -o "$W/$set.cpu" 2>/dev/null
		local c1=same c2=same
		cmp -s "$W/$set.base" "$W/$set.new" || c1=DIFFERENT
		cmp -s "$W/$set.cpu" "$W/$set.new" || c2=DIFFERENT
		echo "== $set: base $(printf '%s\n' "${ba[@]}" | med) (${ba[*]}) | new $(printf '%s\n' "${nw[@]}" | med) (${nw[*]}) | gpuPairHMM $(printf '%s\n' "${gp[@]:-nan}" | med) (${gp[*]:-}) | new vs base: $c1; new GPU vs CPU: $c2"
		grep -E "wall time|timeline|steps|host work|GPU:" "$O/$set-new.txt" | sed 's/^hmmgo pairhmm: //' | cut -c1-300
	done
	grep -E "slowest" "$O/10s-new.txt" | cut -c1-500
}

case "${1:-}" in
build) build "${2:-}" ;;
run) run ;;
*)
	echo "usage: bash bench/pairhmm_gpu_setup.sh build [BASE_COMMIT] | run" >&2
	exit 2
	;;
esac
