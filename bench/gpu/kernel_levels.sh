#!/usr/bin/env bash
# On the GPU host: the hmmsearch and fwdback test suites there, then the 24-model search with
# HMMGO_KERNEL=avx2 and the default (avx512) level, --nogpu and --gpu, two rounds, tables compared.
# Carry .dev/hmmgo, .dev/{hmmsearch,fwdback}.test, .dev/e2edata, .dev/models.
set -u
R=$(pwd); O=${OUT:-/tmp/o27}; mkdir -p $O; W=/tmp/w27; mkdir -p $W
export HMMGO_GPU_DATA=$R/.dev/e2edata HMMGO_KERNEL_CACHE=$W/kc
lscpu | grep -i "model name"
for f in .dev/models/*.hmm.gz; do zcat "$f"; echo; done > $W/all.hmm
(.dev/hmmgo synthdb -n 175000000 --seed 1 --plant $W/all.hmm --per-model 20 -o $W/s.fa >/dev/null 2>&1 && .dev/hmmgo makedb $W/s.fa $W/s.hmmgo >/dev/null 2>&1 && rm -f $W/s.fa) &
(cd hmmer3/hmmsearch && timeout 200 $R/.dev/hmmsearch.test > $O/hs.log 2>&1; echo "hmmsearch tests (GPU host, default level): rc=$? $(grep -c -- '--- FAIL' $O/hs.log) failures")
for l in avx512 avx2; do (cd hmmer3/fwdback && HMMGO_KERNEL=$l timeout 150 $R/.dev/fwdback.test > $O/fb-$l.log 2>&1; echo "fwdback tests HMMGO_KERNEL=$l: rc=$? $(tail -1 $O/fb-$l.log)"); done
wait
.dev/hmmgo hmmsearch --gpu --cpu 16 --noali -o /dev/null --tblout /dev/null $W/all.hmm $W/s.hmmgo 2>/dev/null # warm kernel cache
for r in 1 2; do for mode in nogpu gpu; do for l in avx2 avx512; do
a=$(date +%s%N); HMMGO_KERNEL=$l .dev/hmmgo hmmsearch --$mode --cpu 16 --noali -o /dev/null --tblout $O/$mode-$l.tbl $W/all.hmm $W/s.hmmgo 2>/dev/null; rc=$?
b=$(date +%s%N); echo "round $r --$mode HMMGO_KERNEL=$l: $(awk -v a=$a -v b=$b 'BEGIN{printf "%.2f", (b-a)/1e9}') s rc=$rc"
done; done; done
for f in $O/*.tbl; do grep -v '^#' $f | md5sum | sed "s#-#$(basename $f)#"; done
