#!/usr/bin/env bash
# The stored-GPU-plan measurement of docs/BENCHMARKS.md ("Databases": the GPU plan), run from /work/main
# with .dev/dblayout holding hmmgo and the gpudb, msvfilter, vitfilter, hmmsearch test binaries (built
# from branch dblayout) and testdata/seqdb/globins45-v1-noplan.hmmgo, carried with .dev/models and
# .dev/e2edata: run carry [".dev/dblayout", ".dev/models", ".dev/e2edata"], "bash .dev/dblayout/run.sh".
# makedb with and without the plan on a 175M synthetic db, time to the first query with each
# (alternating), 24-model tblouts compared, then the exactness tests with --gpu.
set -u
R=$(pwd); O=${OUT:-/tmp/dbl}; mkdir -p $O
B=$R/.dev/dblayout
date -u; nvidia-smi -L; nproc
export HMMGO_KERNEL_CACHE=/tmp/dskc HMMGO_GPU_DATA=$R/.dev/e2edata HMMGO_SHARED_DATA=$R/.dev/e2edata
mkdir -p $R/testdata/seqdb && cp $B/globins45-v1-noplan.hmmgo $R/testdata/seqdb/
D=/tmp/dldb; mkdir -p $D
for f in $R/.dev/models/*.hmm.gz; do zcat "$f"; echo; done > $D/all.hmm
zcat $R/.dev/models/200.hmm.gz > $D/one.hmm
$B/hmmgo synthdb -n 175000000 --seed 1 --plant $D/all.hmm --per-model 20 -o $D/synth.fa >/dev/null 2>&1
for r in 1 2; do
  for v in noplan plan; do
    a=$(date +%s%N)
    if [ $v = plan ]; then $B/hmmgo makedb $D/synth.fa $D/$v.hmmgo; else $B/hmmgo makedb --gpu-layouts none $D/synth.fa $D/$v.hmmgo; fi
    e=$(date +%s%N); echo "makedb $v run $r: $(( (e-a)/1000000 )) ms, $(stat -c %s $D/$v.hmmgo) bytes"
  done
done
one() { # label db hmm
  local l=$1 db=$2 q=$3
  local a=$(date +%s%N)
  HMMGO_STAGE_TIMES=1 timeout 60 $B/hmmgo hmmsearch --gpu --cpu 16 --noali -o /dev/null --tblout $O/$l.tbl $q $D/$db.hmmgo 2> $O/$l.err
  local rc=$? e=$(date +%s%N)
  echo "$l: $(( (e-a)/1000000 )) ms rc=$rc rows $(grep -vc '^#' $O/$l.tbl) md5 $(grep -v '^#' $O/$l.tbl | md5sum | cut -c1-12); first query $(grep -o 'ran from +[0-9.]* to +[0-9.]*' $O/$l.err | head -1); $(grep -o '[0-9]* layouts made in [0-9.]* ([0-9]* planned by makedb)' $O/$l.err)"
}
one warm plan $D/one.hmm
for r in 1 2 3; do one noplan-$r noplan $D/one.hmm; one plan-$r plan $D/one.hmm; done
one all-noplan noplan $D/all.hmm
one all-plan plan $D/all.hmm
echo "== tests at $SECONDS s"
t=$(( 185 - SECONDS )); [ $t -gt 120 ] && t=120
for p in msvfilter vitfilter; do
  (cd hmmer3/$p && timeout $t $B/$p.test -test.run 'TestGPUMatchesCPU' > $O/$p.log 2>&1; echo "$p TestGPUMatchesCPU rc=$? $(grep -E '^(--- FAIL|ok|FAIL|PASS)' $O/$p.log | tr '\n' ' ')") &
done
(cd hmmer3/gpudb && timeout $t $B/gpudb.test -test.v -test.run 'TestDevicePackMatchesHost|TestSubsetMatchesHost|TestStoredPlan' > $O/gpudb.log 2>&1; echo "gpudb rc=$? $(grep -E '^(--- |ok|FAIL|PASS)' $O/gpudb.log | tr '\n' ' ')") &
(cd hmmer3/hmmsearch && HMMGO_E2E_OPTS=--gpu timeout $t $B/hmmsearch.test -test.v -test.run 'TestEndToEnd|TestPreformattedDatabase|TestStoredPlanOnly' > $O/e2e.log 2>&1; echo "e2e --gpu rc=$? $(grep -c -- '--- FAIL' $O/e2e.log) failures, $(grep -c -- '--- PASS' $O/e2e.log) passes, $(grep -c -- '--- SKIP' $O/e2e.log) skips; $(tail -1 $O/e2e.log)") &
wait
grep -h -A5 -- '--- FAIL' $O/*.log | head -30
echo "total $SECONDS s"
