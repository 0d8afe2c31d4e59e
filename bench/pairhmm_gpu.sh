#!/usr/bin/env bash
# GPU checks and timings for `hmmgo pairhmm`, once pairhmm's CUDA backend is
# wired to gpu/cuda and the command has --gpu (docs/pairhmm.md says how).
#
# Here (has Go):      bash bench/pairhmm_gpu.sh build
# On the GPU host:    bash bench/pairhmm_gpu.sh run [path/to/gpuPairHMM]
#
# build: CGO_ENABLED=0 binaries into .dev/ (hmmgo, pairhmmsynth) and the
#        synthetic inputs into .dev/pairhmm/.
# run:   for 10s, 1m, equal-length batches (read 64/128/150/250 against
#        haplotypes twice as long) and a realistic mix: CPU output, GPU output,
#        `cmp` of the two (must be identical), wall times and GCUPS/TCUPS; with
#        gpuPairHMM's binary given, the same files through it side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${HMMGO_SHARED_DATA:-../shared/data}
dev=.dev
mode=${1:-}

cells() {
	zcat -f "$1" | awk '
		NF == 2 && left == 0 { total += rl * hl; r = $1; h = $2; left = r + h; rl = 0; hl = 0; next }
		left > 0 { if (left > h) rl += length($1); else hl += length($1); left-- }
		END { total += rl * hl; print total }'
}

case "$mode" in
build)
	mkdir -p $dev/pairhmm
	CGO_ENABLED=0 go build -o $dev/hmmgo ./cmd/hmmgo
	CGO_ENABLED=0 go build -o $dev/pairhmmsynth ./bench/pairhmmsynth
	for L in 64 128 150 250; do
		$dev/pairhmmsynth -records 400 -reads 128 -haps 16 -readlen $L -haplen $((2 * L)) > $dev/pairhmm/equal$L.in
	done
	$dev/pairhmmsynth -mix -records 3000 > $dev/pairhmm/mix.in
	cp "$data/PairHMM/10s.in" $dev/pairhmm/10s.in
	zcat "$data/PairHMM/1m.in.gz" > $dev/pairhmm/1m.in
	ls -la $dev/pairhmm
	;;
run)
	gpuph=${2:-}
	echo "host: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); $(date -u +%F)"
	for set in 10s 1m equal64 equal128 equal150 equal250 mix; do
		in=$dev/pairhmm/$set.in
		c=$(cells "$in")
		t0=$(date +%s.%N); $dev/hmmgo pairhmm --threads "$(nproc)" "$in" -o $dev/pairhmm/$set.cpu; t1=$(date +%s.%N)
		$dev/hmmgo pairhmm --gpu "$in" -o $dev/pairhmm/$set.gpu; t2=$(date +%s.%N)
		same=identical
		cmp -s $dev/pairhmm/$set.cpu $dev/pairhmm/$set.gpu || same=DIFFERENT
		awk -v s="$set" -v c="$c" -v a="$t0" -v b="$t1" -v d="$t2" -v same="$same" 'BEGIN {
			printf "%-9s cells=%-12d cpu %7.3fs %7.2f GCUPS | gpu %7.3fs %8.3f TCUPS | outputs %s\n", s, c, b - a, c / (b - a) / 1e9, d - b, c / (d - b) / 1e12, same }'
		if [ -n "$gpuph" ]; then
			t3=$(date +%s.%N); "$gpuph" --inputfile "$in" --outputfile $dev/pairhmm/$set.gpupairhmm; t4=$(date +%s.%N)
			$dev/hmmgo pairhmm --gpu --format matrix "$in" -o $dev/pairhmm/$set.matrix
			awk -v s="$set" -v c="$c" -v a="$t3" -v b="$t4" 'BEGIN { printf "%-9s gpuPairHMM %7.3fs %8.3f TCUPS\n", s, b - a, c / (b - a) / 1e12 }'
			paste -d' ' $dev/pairhmm/$set.matrix $dev/pairhmm/$set.gpupairhmm | awk '
				{ n = NF / 2; for (i = 1; i <= n; i++) { d = $i - $(i + n); if (d < 0) d = -d; if ($(i + n) ~ /inf|nan/) bad++; if (d > m) m = d } }
				END { printf "          vs gpuPairHMM: max |diff| %.2g, non-finite gpuPairHMM values %d\n", m, bad }'
		fi
	done
	;;
*)
	echo "usage: bash bench/pairhmm_gpu.sh build | run [gpuPairHMM binary]" >&2
	exit 2
	;;
esac
