#!/usr/bin/env bash
# The issue-5 memory A/B of docs/BENCHMARKS.md ("The 24-model run's start, exit and schedule"), run
# from /work/main with .dev/memab holding base-hmmgo (main), hmmgo (new), hmmsearch.test, models/ and e2edata/:
# main (base-hmmgo) vs new (hmmgo), 24 CUDAMPF models x 175M, --gpu --cpu 16, alternating.
set -u
R=$(pwd); O=${OUT:-/tmp/memab}; W=/tmp/memab-w; mkdir -p $O $W
B=$R/.dev/memab
date -u; nvidia-smi -L; nproc
export HMMGO_KERNEL_CACHE=/tmp/e2kc HMMGO_GPU_DATA=$B/e2edata
D=/tmp/e2db; mkdir -p $D
T=""; [ -x /usr/bin/time ] && T="/usr/bin/time -f %M,%U,%S -o"
if [ ! -s $D/synth.hmmgo ]; then
  for f in $B/models/*.hmm.gz; do zcat "$f"; echo; done > $D/all.hmm
  $B/hmmgo synthdb -n 175000000 --seed 1 --plant $D/all.hmm --per-model 20 -o $D/synth.fa >/dev/null 2>&1
  $B/hmmgo makedb $D/synth.fa $D/synth.hmmgo >/dev/null 2>&1
fi
echo "db ready at $SECONDS s: $(ls -la $D/synth.hmmgo | awk '{print $5}') bytes; time: ${T:-none}"
one() { # label binary [env...]
  local l=$1 b=$2; shift 2
  [ $SECONDS -gt 150 ] && { echo "$l: skipped (time)"; return; }
  local a=$(date +%s%N)
  env "$@" HMMGO_STAGE_TIMES=1 timeout 40 ${T:+$T $W/$l.time} $B/$b hmmsearch --gpu --cpu 16 --noali -o /dev/null --tblout $W/$l.tbl $D/all.hmm $D/synth.hmmgo 2> $W/$l.err
  local rc=$? e=$(date +%s%N)
  local done=$(grep -o 'run done at +[0-9.]*' $W/$l.err | cut -d+ -f2)
  local first=$(grep -o 'ran from +[0-9.]*' $W/$l.err | sort -t+ -k2 -n | head -1 | cut -d+ -f2)
  local rss="" ; [ -s $W/$l.time ] && rss=$(awk -F, '{printf "maxRSS %.1f GB, CPU user %.1f sys %.1f s", $1/1048576, $2, $3}' $W/$l.time)
  echo "$l: wall $(awk -v a=$a -v b=$e 'BEGIN{printf "%.2f", (b-a)/1e9}') s rc=$rc md5 $(grep -v '^#' $W/$l.tbl | md5sum | cut -c1-12) rows $(grep -vc '^#' $W/$l.tbl); first query +$first; done +$done; after done $(awk -v a=$a -v b=$e -v d=$done 'BEGIN{printf "%.2f", (b-a)/1e9-d}') s; $rss"
}
one warm-new hmmgo
one warm-base base-hmmgo
for r in 1 2 3; do one base-$r base-hmmgo; one new-$r hmmgo; done
one new-serialstart hmmgo HMMGO_START=serial
echo "== detail"
for l in base-1 new-1 new-2; do echo "[$l]"; grep -hE 'start:|memory at|device totals, GPU' $W/$l.err | sed 's/hmmgo hmmsearch: //' | cut -c1-260; done
for l in base-1 new-1; do echo "[$l last 3 queries]"; grep -o '^hmmgo hmmsearch: [^:]*:\|ran from.*' $W/$l.err | paste - - | sed 's/hmmgo hmmsearch: //' | sort -t+ -k3 -n | tail -3 | tr '\n' ' '; echo; done
echo "== e2e at $SECONDS s"
t=$(( 232 - SECONDS )); [ $t -gt 110 ] && t=110
(cd hmmer3/hmmsearch && HMMGO_E2E_OPTS=--gpu timeout $t $B/hmmsearch.test -test.run 'TestEndToEnd' > $W/e2e.log 2>&1; echo "e2e --gpu rc=$? $(grep -c -- '--- FAIL' $W/e2e.log) failures; $(tail -1 $W/e2e.log)")
tar czf $O/all.tgz -C $W .
echo "total $SECONDS s"
