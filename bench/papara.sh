#!/usr/bin/env bash
# Side by side: hmmgo papara and PaPaRa 2.5 on the rpsS set of the shared
# data (1,277 references x 1,072 columns, 2,101 reads), same options, same
# machine. Prints wall and CPU time, GCUPS of the whole run, the speed ratio
# per core (from CPU seconds, which other load on the machine disturbs
# least) and checks that the two alignments are identical.
#
# usage: bench/papara.sh /path/to/papara [threads] [reads]
#   papara   a PaPaRa 2.5 binary built from sim82/papara_nt (not shipped)
#   threads  -j for both tools (default 1)
#   reads    align only the first N reads (default: all)
# The data directory is $HMMGO_SHARED_DATA or ../shared/data.
set -euo pipefail

PAPARA=$(realpath "${1:?usage: bench/papara.sh /path/to/papara [threads] [reads]}")
THREADS=${2:-1}
READS=${3:-0}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${HMMGO_SHARED_DATA:-$ROOT/../shared/data}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

(cd "$ROOT" && go build -o "$WORK/hmmgo" ./cmd/hmmgo)
cd "$WORK"
# PaPaRa reads neither gzip nor FASTA references: give both plain PHYLIP.
zcat "$DATA/sepp/rpsS/sate.phy.gz" > sate.phy
cp "$DATA/sepp/rpsS/sate.tre" sate.tre
if [ "$READS" -gt 0 ]; then
  zcat "$DATA/sepp/rpsS/rpsS.even.fas.gz" | awk -v n="$READS" '/^>/{k++} k<=n' > reads.fa
else
  zcat "$DATA/sepp/rpsS/rpsS.even.fas.gz" > reads.fa
fi

# timed LABEL CMD...: runs CMD, writes "wall user sys" seconds to time.LABEL
timed() {
  local label=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%U %S" -o "cpu.$label" "$@" > "out.$label" 2>&1
  else
    ( TIMEFORMAT='%U %S'; time "$@" > "out.$label" 2>&1 ) 2> "cpu.$label"
  fi
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(cat "cpu.$label")" > "time.$label"
}

echo "rpsS: $(grep -c '>' reads.fa) reads, -j $THREADS, $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
timed papara "$PAPARA" -t sate.tre -s sate.phy -q reads.fa -n bench -j "$THREADS"
timed hmmgo ./hmmgo papara -t sate.tre -s sate.phy -q reads.fa -n hmmgo -j "$THREADS"

if cmp -s papara_alignment.bench papara_alignment.hmmgo; then
  same="identical"
else
  same="DIFFERENT"
fi
cells=$(sed -n 's/.* = \([0-9]*\) cells.*/\1/p' papara_log.hmmgo)
read -r pw pu ps < time.papara
read -r hw hu hs < time.hmmgo
awk -v c="$cells" -v pw="$pw" -v pu="$pu" -v ps="$ps" -v hw="$hw" -v hu="$hu" -v hs="$hs" -v same="$same" 'BEGIN {
  pc = pu + ps; hc = hu + hs
  printf "%-7s %9s %9s %13s %15s\n", "tool", "wall s", "CPU s", "GCUPS (wall)", "GCUPS per CPU s"
  printf "%-7s %9.2f %9.2f %13.2f %15.2f\n", "papara", pw, pc, c / pw / 1e9, c / pc / 1e9
  printf "%-7s %9.2f %9.2f %13.2f %15.2f\n", "hmmgo", hw, hc, c / hw / 1e9, c / hc / 1e9
  printf "speed ratio hmmgo/papara: %.2fx wall, %.2fx per core (CPU time); alignments %s\n", pw / hw, pc / hc, same
}'
grep -i "gncup\|scoring finished" papara_log.bench | tail -3 | sed 's/^/papara log: /'
grep -i "GCUPS\|alignment of" papara_log.hmmgo | sed 's/^/hmmgo log:  /'
