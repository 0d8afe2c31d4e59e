#!/usr/bin/env bash
# Benchmark: Debian's hmm2search (HMMER 2.3.2) against `hmmgo hmm2search`
# on a synthetic protein database, same model, same options. Prints wall
# time, CPU time, the speed ratio and GCUPS (model nodes x residues per
# second) for each, and checks that the two reports are identical.
#
#   usage: bench/hmm2search.sh [-r residues] [-c cpus] [-m model.hmm2]... [-L]
#     -r N   database size in residues (default 20000000)
#     -c N   threads for both programs (default: all CPUs)
#     -m F   model(s) to search with (default: the globin, fn3 and
#            pkinase fixtures in testdata/hmmer2/models; .gz is unpacked)
#     -L     also the 2,940-node pkinase10 fixture
#
# The database is random protein sequence (Swiss-Prot-like composition,
# log-normal lengths around 350) with 1% of the sequences emitted from
# the models by hmm2emit, so that there are hits to align and report.
# Without hmm2search (a GPU host, say) only hmmgo is timed; without
# hmm2emit the database is random only.
set -euo pipefail
cd "$(dirname "$0")/.."
residues=20000000
cpus=$(nproc)
models=()
large=no
while getopts "r:c:m:L" o; do
	case $o in
	r) residues=$OPTARG ;;
	c) cpus=$OPTARG ;;
	m) models+=("$OPTARG") ;;
	L) large=yes ;;
	*) sed -n '2,20p' "$0"; exit 2 ;;
	esac
done
if [ ${#models[@]} = 0 ]; then
	models=(testdata/hmmer2/models/globin.hmm2 testdata/hmmer2/models/fn3.hmm2 testdata/hmmer2/models/pkinase.hmm2)
fi
if [ $large = yes ]; then models+=(testdata/hmmer2/models/pkinase10.hmm2.gz); fi
work=${TMPDIR:-/tmp}/hmm2bench
mkdir -p "$work"
for i in "${!models[@]}"; do
	if [[ ${models[$i]} == *.gz ]]; then
		out=$work/$(basename "${models[$i]}" .gz)
		gunzip -c "${models[$i]}" > "$out"
		models[$i]=$out
	fi
done
have_c=yes
command -v hmm2search >/dev/null || { have_c=no; echo "hmm2search not found: timing hmmgo only"; }
go build -o "$work/hmmgo" ./cmd/hmmgo

db=$work/synthetic-$residues.fa
if [ ! -s "$db" ]; then
	: > "$work/emitted.fa"
	if command -v hmm2emit >/dev/null; then
		for m in "${models[@]}"; do hmm2emit -q --seed 5 -n $((residues / 35000 + 1)) "$m"; done > "$work/emitted.fa"
	fi
	python3 - "$residues" "$work/emitted.fa" > "$db" <<'PY'
import random, sys
target = int(sys.argv[1])
r = random.Random(42)
aa = "ACDEFGHIKLMNPQRSTVWY"
w = [8.3,1.4,5.5,6.8,3.9,7.1,2.3,5.9,5.8,9.7,2.4,4.1,4.7,3.9,5.5,6.6,5.4,6.9,1.1,2.9]
emitted = open(sys.argv[2]).read().split(">")[1:]
n = 0
i = 0
out = sys.stdout
while n < target:
    if emitted and r.random() < 0.01:
        rec = emitted.pop()
        head, _, seq = rec.partition("\n")
        seq = seq.replace("\n", "")
        out.write(">hom%06d emitted %s\n" % (i, head.split()[0]))
    else:
        L = int(r.lognormvariate(5.7, 0.55)) + 20
        seq = "".join(r.choices(aa, w, k=L))
        out.write(">rnd%06d random\n" % i)
    for j in range(0, len(seq), 60):
        out.write(seq[j:j+60] + "\n")
    n += len(seq)
    i += 1
PY
fi
nres=$(grep -v '>' "$db" | tr -d '\n' | wc -c)
nseq=$(grep -c '>' "$db")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "database: $db ($nseq sequences, $nres residues); threads: $cpus; $(date -u +%Y-%m-%dT%H:%MZ)"
# GCUPS are per wall second; "cpu ratio" compares CPU seconds, which is
# the fairer number on a machine shared with other jobs.
printf '%-14s %6s %9s %9s %8s %9s %9s %8s %7s %9s %s\n' model M "C wall" "C cpu" "C GCUPS" "Go wall" "Go cpu" "Go GCUPS" ratio "cpu ratio" report
for m in "${models[@]}"; do
	M=$(awk '$1=="LENG"{print $2; exit}' "$m")
	name=$(basename "$m" .hmm2)
	t2=$( { /usr/bin/time -f "%e %U %S" "$work/hmmgo" hmm2search --cpu "$cpus" "$m" "$db" > "$work/g.out"; } 2>&1 | tail -1)
	if [ $have_c = no ]; then
		read gw gu gs <<< "$t2"
		awk -v n="$name" -v M="$M" -v r="$nres" -v gw="$gw" -v gu="$gu" -v gs="$gs" \
			'BEGIN { printf "%-14s %6d %9s %9s %8s %8.2fs %8.2fs %8.3f\n", n, M, "-", "-", "-", gw, gu+gs, M*r/gw/1e9 }'
		continue
	fi
	t1=$( { /usr/bin/time -f "%e %U %S" hmm2search --cpu "$cpus" "$m" "$db" > "$work/c.out"; } 2>&1 | tail -1)
	# hmm2search with several threads may order equal scores differently;
	# compare with a one-thread run when the reports differ.
	same=identical
	if ! cmp -s "$work/c.out" "$work/g.out"; then
		hmm2search --cpu 1 "$m" "$db" > "$work/c1.out"
		cmp -s "$work/c1.out" "$work/g.out" && same="identical(--cpu 1)" || same=DIFFERENT
	fi
	read cw cu cs <<< "$t1"
	read gw gu gs <<< "$t2"
	awk -v n="$name" -v M="$M" -v r="$nres" -v cw="$cw" -v cu="$cu" -v cs="$cs" -v gw="$gw" -v gu="$gu" -v gs="$gs" -v s="$same" \
		'BEGIN { printf "%-14s %6d %8.2fs %8.2fs %8.3f %8.2fs %8.2fs %8.3f %6.1fx %8.1fx %s\n", n, M, cw, cu+cs, M*r/cw/1e9, gw, gu+gs, M*r/gw/1e9, cw/gw, (cu+cs)/(gu+gs), s }'
done
