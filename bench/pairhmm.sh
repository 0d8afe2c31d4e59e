#!/usr/bin/env bash
# Times `hmmgo pairhmm` on the shared 10s and 1m sets (CPU backend) and
# prints GCUPS (cells = read length x haplotype length, summed over pairs).
#
#   bash bench/pairhmm.sh [threads...]      (default: 1 and all cores)
#
# Needs ../shared/data beside the checkout (or $HMMGO_SHARED_DATA). Each
# run is repeated 3 times; the best wall time is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${HMMGO_SHARED_DATA:-../shared/data}
bin=$(mktemp -d)/hmmgo
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/hmmgo
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 "$(nproc)")

# cells of a record file: sum over records of (sum read lengths) x (sum hap lengths)
cells() {
	zcat -f "$1" | awk '
		function flush() { total += rl * hl }
		NF == 2 && left == 0 { flush(); r = $1; h = $2; left = r + h; rl = 0; hl = 0; next }
		left > 0 { if (left > h) rl += length($1); else hl += length($1); left-- }
		END { flush(); print total }'
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $(date -u +%F)"
for set in 10s.in 1m.in.gz; do
	in=$data/PairHMM/$set
	c=$(cells "$in")
	for t in "${threads[@]}"; do
		for kernel in auto go; do
			best=
			for rep in 1 2 3; do
				s=$(date +%s.%N)
				"$bin" pairhmm --threads "$t" --kernel "$kernel" "$in" -o /dev/null
				e=$(date +%s.%N)
				best=$(awk -v s="$s" -v e="$e" -v b="$best" 'BEGIN { w = e - s; if (b == "" || w < b) b = w; print b }')
			done
			awk -v set="$set" -v t="$t" -v k="$kernel" -v c="$c" -v w="$best" 'BEGIN {
				printf "%-8s threads=%-3s kernel=%-5s cells=%-10s wall=%7.3fs %7.2f GCUPS %7.2f GCUPS/thread\n", set, t, k, c, w, c / w / 1e9, c / w / 1e9 / t }'
		done
	done
done
