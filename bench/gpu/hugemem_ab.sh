#!/usr/bin/env bash
# The huge-page scratch A/B of docs/BENCHMARKS.md ("Domain definition's matrices in huge pages"), run
# from /work/main with .dev/hugescr holding base (main's hmmgo), new (this change's) and models/ (the
# 24 CUDAMPF *.hmm.gz): 24 models x 175M, hmmsearch --gpu --cpu 16 --noali, warm kernel cache,
# alternating; then HMMGO_HUGEMEM=off, HMMGO_SCRATCH_KEEP_MB=256 and one --nogpu pair.
set -u
R=$(pwd); O=${OUT:-/tmp/hsout}; W=/tmp/hs-w; mkdir -p $O $W
B=$R/.dev/hugescr
date -u; nvidia-smi -L; nproc; uname -r
for f in enabled defrag khugepaged/defrag; do echo "thp $f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>&1)"; done
grep -E 'MemTotal|MemFree|AnonHugePages' /proc/meminfo | tr -s ' ' | tr '\n' ';'; echo
export HMMGO_KERNEL_CACHE=/tmp/hskc
D=/tmp/hsdb; mkdir -p $D
T=""; [ -x /usr/bin/time ] && T="/usr/bin/time -f %M,%U,%S,%R -o"
for f in $B/models/*.hmm.gz; do zcat "$f"; echo; done > $D/all.hmm
$B/new synthdb -n 175000000 --seed 1 --plant $D/all.hmm --per-model 20 -o $D/synth.fa >/dev/null 2>&1
$B/new makedb $D/synth.fa $D/synth.hmmgo >/dev/null 2>&1
echo "db ready at $SECONDS s: $(stat -c %s $D/synth.hmmgo) bytes; time: ${T:-none}"
vm() { awk '$1=="thp_fault_alloc"{a=$2} $1=="thp_fault_fallback"{f=$2} $1=="compact_stall"{c=$2} END{printf "%d %d %d", a, f, c}' /proc/vmstat; }
one() { # label binary gpuflag [env...]
  local l=$1 b=$2 g=$3; shift 3
  [ $SECONDS -gt 185 ] && { echo "$l: skipped (time)"; return; }
  local v0=$(vm) a=$(date +%s%N)
  env "$@" HMMGO_STAGE_TIMES=1 timeout 40 ${T:+$T $W/$l.time} $B/$b hmmsearch $g --cpu 16 --noali -o /dev/null --tblout $W/$l.tbl $D/all.hmm $D/synth.hmmgo 2> $W/$l.err
  local rc=$? e=$(date +%s%N) v1=$(vm)
  local done=$(grep -o 'run done at +[0-9.]*' $W/$l.err | cut -d+ -f2)
  local rss="" ; [ -s $W/$l.time ] && rss=$(awk -F, '{printf "maxRSS %.2f GB, user %.1f sys %.1f s, minflt %d", $1/1048576, $2, $3, $4}' $W/$l.time)
  echo "$l: wall $(awk -v a=$a -v b=$e 'BEGIN{printf "%.2f", (b-a)/1e9}') rc=$rc md5 $(grep -v '^#' $W/$l.tbl | md5sum | cut -c1-12) rows $(grep -vc '^#' $W/$l.tbl); done +${done:-?}; after $(awk -v a=$a -v b=$e -v d=${done:-0} 'BEGIN{printf "%.2f", (b-a)/1e9-d}'); $rss; thp/fallback/stall $(echo $v0 $v1 | awk '{printf "%d/%d/%d", $4-$1, $5-$2, $6-$3}')"
}
one warm-new new --gpu
one warm-base base --gpu
for r in 1 2 3; do one base-$r base --gpu; one new-$r new --gpu; done
one new-off new --gpu HMMGO_HUGEMEM=off
one new-keep256 new --gpu HMMGO_SCRATCH_KEEP_MB=256
one base-nogpu base --nogpu
one new-nogpu new --nogpu
echo "== memory at the end"
for l in base-1 new-1 new-2 new-off new-keep256 base-nogpu new-nogpu; do echo "[$l] $(grep -h 'memory at' $W/$l.err 2>/dev/null | sed 's/hmmgo hmmsearch: memory at the end: //' | cut -c1-300)"; done
grep -h 'device totals' $W/new-1.err | cut -c1-200
tar czf $O/all.tgz -C $W .
echo "total $SECONDS s"
