#!/usr/bin/env bash
# The Pair-HMM CPU kernels on a machine with AVX-512 (the GPU host's Xeon),
# in one call of about 3 minutes:
#   1. the whole pairhmm test binary (-test.v; the AVX-512 tests skip
#      only where the CPU lacks it);
#   2. one-thread float-pass GCUPS (BenchmarkLaneKernels: go, avx2 and
#      avx512 at every strip height) and BenchmarkCPU on 10s and 1m (avx2,
#      avx512; one thread and all cores);
#   3. `hmmgo pairhmm --nogpu --threads N --kernel K` wall times on 10s and
#      1m, REPS (default 3) alternating runs per kernel, best kept, and a
#      cmp of the outputs of every kernel against avx2's.
# With D/pairhmmsynth (go build ./bench/pairhmmsynth), the synthetic sets
# of bench/pairhmm_gpu.sh named in SYNTH (default "mix equal100x300") are
# made there and timed too. TESTRUN, BENCH and CPUBENCH (-test.run and
# -test.bench patterns; BENCH or CPUBENCH "-" skips) narrow the steps;
# CPUS is passed as -test.cpu (BenchmarkCPU's "all cores" is GOMAXPROCS).
# The summary is also written to $OUT/summary.txt as it goes.
# With D/base-hmmgo and D/base-pairhmm.test (the same built from an earlier
# commit) the earlier AVX2 kernel is measured beside them ("base-avx2").
#
# Here (Go; D a git-ignored folder such as .dev/ph512):
#   CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o D/hmmgo ./cmd/hmmgo
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o D/pairhmm.test ./pairhmm
#   gzip -9 D/*hmmgo D/*.test
#   mkdir -p D/shared/PairHMM/generated
#   cp ../shared/data/PairHMM/{tiny.in,10s.in,1m.in.gz} D/shared/PairHMM/
#   cp ../shared/data/PairHMM/generated/* D/shared/PairHMM/generated/
# There, from the repository root with D carried:
#   bash bench/pairhmm_avx512.sh D
set -u
D=$(cd "${1:?usage: pairhmm_avx512.sh DIR}" && pwd)
R=$(pwd)
OUT=${OUT:-/tmp/hmmgo-ph512}
mkdir -p "$OUT"
export HMMGO_SHARED_DATA=$D/shared
B=${TMPDIR:-/tmp}/hmmgo-ph512-bin
mkdir -p "$B"
for f in "$D"/*.gz; do
	[ -e "$f" ] || continue
	b=$(basename "$f" .gz)
	case $b in *.in) continue ;; esac
	gunzip -c "$f" >"$B/$b" && chmod +x "$B/$b"
done
N=${THREADS:-$(nproc)}
T0=$SECONDS
exec > >(tee "$OUT/summary.txt") 2>&1
echo "== $(date -u +%FT%TZ) $(lscpu | grep -i 'model name' | sed 's/  */ /g') nproc=$(nproc)"
grep -o -w 'avx512f\|avx512bw\|avx512vl\|avx512dq' /proc/cpuinfo | sort -u | tr '\n' ' '
lscpu | grep -E '^(Thread|Core|Socket)' | sed 's/  */ /g' | tr '\n' ';'
echo

# 1. Tests.
(cd "$R/pairhmm" && timeout ${TESTTIME:-130} "$B/pairhmm.test" -test.count=1 -test.v -test.timeout=${TESTTIME:-130}s ${TESTRUN:+-test.run "$TESTRUN"}) >"$OUT/test.log" 2>&1
echo "test pairhmm: exit $?, $(grep -c '^--- PASS' "$OUT/test.log") passed, $(grep -c '^--- FAIL' "$OUT/test.log") failed, skipped: $(grep '^--- SKIP' "$OUT/test.log" | awk '{print $3}' | tr '\n' ' ') ($((SECONDS - T0)) s)"
grep -E -A3 '^--- FAIL|^panic|SIGILL' "$OUT/test.log" | head -20
grep -E '^(=== RUN|--- |    ).*(AVX512|KernelsIdentical|KernelsHard|KernelChoice|Flushes|MXCSR)|lanes_(ftz_amd64_)?test' "$OUT/test.log" | grep -v '^=== RUN' | head -16

# 2. Benchmarks, one thread unless named.
T1=$SECONDS
: >"$OUT/bench.log"
for pat in "${BENCH:-LaneKernels}" "${CPUBENCH:-CPU/(10s|1m)/(avx2|avx512)/}"; do
	[ "$pat" = - ] && continue
	(cd "$R/pairhmm" && "$B/pairhmm.test" -test.run '^$' -test.bench "$pat" -test.benchtime ${BT:-0.3s} ${CPUS:+-test.cpu "$CPUS"}) >>"$OUT/bench.log" 2>&1
done
if [ -x "$B/base-pairhmm.test" ] && [ "${CPUBENCH:-}" != - ]; then
	(cd "$R/pairhmm" && "$B/base-pairhmm.test" -test.run '^$' -test.bench 'CPU/(10s|1m)/avx2/|AVX2Kernels' -test.benchtime ${BT:-0.3s}) 2>&1 | sed 's/^Benchmark/base-Benchmark/' >>"$OUT/bench.log"
fi
grep -E 'Benchmark' "$OUT/bench.log" | awk '{ n = $1; sub(/-[0-9]+$/, "", n); for (i = 2; i < NF; i++) if ($(i+1) == "GCUPS") printf "%-52s %7s GCUPS\n", n, $i }'
echo "(benchmarks $((SECONDS - T1)) s)"

# 3. The command.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kernels="avx2 avx512"
[ -x "$B/base-hmmgo" ] && kernels="base-avx2 $kernels"
sets="$D/shared/PairHMM/10s.in $D/shared/PairHMM/1m.in.gz"
if [ -x "$B/pairhmmsynth" ]; then
	for s in ${SYNTH-mix equal100x300}; do
		case $s in
		mix) "$B/pairhmmsynth" -mix -records 300 -seed 2 >"$work/mix.in" ;;
		equal100x300) "$B/pairhmmsynth" -records 1200 -reads 64 -haps 16 -readlen 100 -haplen 300 >"$work/equal100x300.in" ;;
		*) continue ;;
		esac
		sets+=" $work/$s.in"
	done
fi
for in in $sets; do
	set=$(basename "$in")
	declare -A best=()
	reps=${REPS:-3}
	case $set in mix.in | equal100x300.in) reps=${SYNTHREPS:-$reps} ;; esac
	for rep in $(seq $reps); do
		for k in $kernels; do
			bin=$B/hmmgo kk=$k
			[ "$k" = base-avx2 ] && bin=$B/base-hmmgo kk=avx2
			s=$(date +%s.%N)
			"$bin" pairhmm --nogpu --threads "$N" --kernel "$kk" "$in" -o "$work/$k.out" 2>"$work/$k.err" || echo "$k $set: exit $? $(head -2 "$work/$k.err")"
			e=$(date +%s.%N)
			best[$k]=$(awk -v s="$s" -v e="$e" -v b="${best[$k]:-}" 'BEGIN { w = e - s; if (b == "" || w < b) b = w; printf "%.3f", b }')
		done
	done
	line="hmmgo pairhmm --nogpu --threads $N $set, best of $reps (s):"
	for k in $kernels; do
		same="output = avx2's"
		cmp -s "$work/avx2.out" "$work/$k.out" || same="OUTPUT DIFFERS from avx2's"
		line+=" $k ${best[$k]} ($same);"
	done
	echo "$line"
	unset best
done
echo "total $((SECONDS - T0)) s"
