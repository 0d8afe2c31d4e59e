#!/usr/bin/env bash
# CPU profile of hmmsearch --gpu and --nogpu on the record workload (24 CUDAMPF models, 175M residues),
# on the GPU host with .dev/hmmgo and .dev/models carried; analyse here with go tool pprof.
out=${OUT:-/tmp/prof}; mkdir -p "$out"; w=/tmp/profw; mkdir -p $w
for f in .dev/models/*.hmm*; do case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac; echo; done | grep -v '^$' > $w/all24.hmm
.dev/hmmgo synthdb -n 175000000 --seed 1 --plant $w/all24.hmm --per-model 20 -o $w/db.fa && .dev/hmmgo makedb $w/db.fa $w/db.hmmgo && rm -f $w/db.fa
export HMMGO_KERNEL_CACHE=$w/kc
.dev/hmmgo hmmsearch --gpu --cpu 16 --noali -o /dev/null --tblout $w/warm.tbl $w/all24.hmm $w/db.hmmgo 2>/dev/null  # warm the kernel cache
for r in 1 2; do
a=$(date +%s%N)
HMMGO_STAGE_TIMES=1 HMMGO_CPUPROFILE=$out/gpu$r.prof .dev/hmmgo hmmsearch --gpu --cpu 16 --noali -o /dev/null --tblout $out/gpu.tbl $w/all24.hmm $w/db.hmmgo 2> $out/gpu$r.err
b=$(date +%s%N); echo "gpu run $r: $(awk -v a=$a -v b=$b 'BEGIN{printf "%.2f", (b-a)/1e9}') s"
done
a=$(date +%s%N)
HMMGO_STAGE_TIMES=1 HMMGO_CPUPROFILE=$out/cpu.prof .dev/hmmgo hmmsearch --nogpu --cpu 16 --noali -o /dev/null --tblout $out/cpu.tbl $w/all24.hmm $w/db.hmmgo 2> $out/cpu.err
b=$(date +%s%N); echo "cpu run: $(awk -v a=$a -v b=$b 'BEGIN{printf "%.2f", (b-a)/1e9}') s"
cmp <(grep -v '^#' $out/gpu.tbl) <(grep -v '^#' $out/cpu.tbl) && echo tables identical
tail -3 $out/gpu1.err
