#!/usr/bin/env bash
# The filter-subset A/B of docs/BENCHMARKS.md ("Filter subsets packed on the device"), as run
# from /work/main with .dev/devsub/all.tgz holding base-hmmgo (main), hmmgo (new), the msvfilter,
# vitfilter, gpudb and hmmsearch test binaries, .dev/devsub/models and .dev/devsub/e2edata.
set -u
R=$(pwd); O=${OUT:-/tmp/devsub}; mkdir -p $O
tar xzf .dev/devsub/all.tgz
B=$R/.dev/devsub
date -u; nvidia-smi -L; nproc
export HMMGO_KERNEL_CACHE=/tmp/dskc HMMGO_GPU_DATA=$B/e2edata
D=/tmp/dsdb; mkdir -p $D
for f in $B/models/*.hmm.gz; do zcat "$f"; echo; done > $D/all.hmm
$B/hmmgo synthdb -n 175000000 --seed 1 --plant $D/all.hmm --per-model 20 -o $D/synth.fa >/dev/null 2>&1
$B/hmmgo makedb $D/synth.fa $D/synth.hmmgo >/dev/null 2>&1
echo "db ready at $SECONDS s: $(ls -la $D/synth.hmmgo | awk '{print $5}') bytes"
one() { # label binary [env...]
  local l=$1 b=$2; shift 2
  local a=$(date +%s%N)
  env "$@" HMMGO_STAGE_TIMES=1 timeout 40 $B/$b hmmsearch --gpu --cpu 16 --noali -o /dev/null --tblout $O/$l.tbl $D/all.hmm $D/synth.hmmgo 2> $O/$l.err
  local rc=$? e=$(date +%s%N)
  echo "$l: $(awk -v a=$a -v b=$e 'BEGIN{printf "%.2f", (b-a)/1e9}') s rc=$rc rows $(grep -vc '^#' $O/$l.tbl) md5 $(grep -v '^#' $O/$l.tbl | md5sum | cut -c1-12); $(grep -o 'run done at +[0-9.]*' $O/$l.err); first query from $(grep -o 'ran from +[0-9.]*' $O/$l.err | sort -t+ -k2 -n | head -1)"
}
one warm-new hmmgo
for r in 1 2; do one base-$r base-hmmgo; one new-$r hmmgo; done
one new-hostpack hmmgo HMMGO_GPUDB_PACK=host
for l in base-1 new-1 base-2 new-2 new-hostpack; do echo "[$l]"; grep -h 'device totals' $O/$l.err | cut -c1-420; done
echo "== tests at $SECONDS s"
t=$(( 160 - SECONDS )); [ $t -gt 110 ] && t=110
for p in msvfilter vitfilter; do
  (cd hmmer3/$p && timeout $t $B/$p.test -test.run 'TestGPUMatchesCPU' > $O/$p.log 2>&1; echo "$p TestGPUMatchesCPU rc=$? $(grep -E '^(--- FAIL|ok|FAIL|PASS)' $O/$p.log | tr '\n' ' ')") &
done
(cd hmmer3/gpudb && timeout $t $B/gpudb.test -test.v -test.run 'TestDevicePackMatchesHost|TestSubsetMatchesHost|TestPackInputs' > $O/gpudb.log 2>&1; echo "gpudb rc=$? $(grep -E '^(--- |ok|FAIL|PASS)' $O/gpudb.log | tr '\n' ' ')") &
(cd hmmer3/hmmsearch && HMMGO_E2E_OPTS=--gpu timeout $t $B/hmmsearch.test -test.run 'TestEndToEnd' > $O/e2e.log 2>&1; echo "e2e --gpu rc=$? $(grep -c -- '--- FAIL' $O/e2e.log) failures; $(tail -1 $O/e2e.log)") &
wait

echo "total $SECONDS s"
