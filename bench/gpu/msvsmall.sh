#!/usr/bin/env bash
# The MSV pass's cell and its long targets (issue 4; docs/BENCHMARKS.md,
# "The MSV pass's cell and its long targets"): exactness on the GPU, then
# alone on it the MSV filter at M = 10..47 in variants (twice) and base
# against new at M = 10..2405, steady and single. Build here first:
#   d=.dev/msvsmall; mkdir -p $d/new $d/base
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/new/msvfilter.test ./hmmer3/msvfilter
#   (the same from the base checkout into $d/base; the shared data set's
#   CUDAMPF and pyhmmer directories in $d/gpudata)
#   cp bench/gpu/msvsmall.sh $d/run.sh
# then on the GPU host, from the repository root, with $d carried:
#   bash .dev/msvsmall/run.sh
# V overrides the variants (TestGPUThroughput's setVariant: +lN LongRows,
# +kN LongNodes, +aN MSVApart, +qN MSVRows, ...); the measured calls
# also ran the one-warp-block variant +s2 since dropped.
set -u
R=$(pwd); D=$R/.dev/msvsmall; O=${OUT:-/tmp/msvsmall}; mkdir -p $O
export HMMGO_KERNEL_CACHE=/tmp/msvsmall-kc HMMGO_GPU_DATA=$D/gpudata HMMGO_GPU_BENCH_MSV=0
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
left() { local l=$(( 232 - ($(date +%s) - T0) )); echo $(( l / $1 < $2 ? l / $1 : $2 )); } # share of what is left, at most $2 s
S=$O/summary.txt
say() { echo "$*" | tee -a $S; }
say "$(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
cd hmmer3/msvfilter
V=${V:-auto,auto+l-1,auto+l800,auto+a2,auto+q1,auto+k12}
Small=10,16,25,28,32,40,47
Mid=50,63,100,200
All=10,16,25,28,32,40,47,50,63,100,800,2405
warm() { # log binary Ms variants
  HMMGO_GPU_BENCH=200000 HMMGO_GPU_BENCH_M=$3 HMMGO_SSV_VARIANTS=$4 timeout 100 $D/$2/msvfilter.test -test.v -test.run TestGPUThroughput -test.timeout 300s > /tmp/warm-$1.log 2>&1
  echo "warm $1 rc=$? $(el)" >> /tmp/warm-$1.log
}
(timeout 110 $D/new/msvfilter.test -test.v -test.run 'TestGPUMatchesCPU' -test.timeout 300s > $O/exact.log 2>&1; echo "rc=$? $(el)" >> $O/exact.log) &
(timeout 100 $D/new/msvfilter.test -test.v -test.run 'TestGPUConcurrentLaunches' -test.timeout 300s > $O/conc.log 2>&1; echo "rc=$? $(el)" >> $O/conc.log) &
warm 1 new 10,28,47 $V & warm 2 new 16,32 $V & warm 3 new 25,40 $V & warm 4 new $Mid auto,auto+l-1 & warm 6 new $All auto & warm 5 base $All auto &
wait
cat /tmp/warm-*.log > $O/warm.log
say "== A done $(el); warm: $(grep -c '^warm .* rc=0' $O/warm.log)/6 rc=0; $(grep -E '^(--- FAIL|FAIL)' $O/warm.log | head -3 | tr '\n' ' ')"
say "exact: $(grep -E '^(--- |ok|FAIL|PASS|rc=)' $O/exact.log | tr '\n' ' ')"
say "conc: $(grep -E '^(--- |ok|FAIL|PASS|rc=)' $O/conc.log | tr '\n' ' ')"
grep -E 'differ|GPU .* CPU|panic|error' $O/exact.log $O/conc.log | head -6 | tee -a $S
fmt() { grep -E '^[0-9]+ |FAIL|scores|targets' $1 | awk '/^[0-9]+ /{printf "%s %-16s tot=%s ms=%s ssv=%s ssvms=%s pass=%.3f\n", $1, $2, $5, $3, $8, $7, $3-$7; next} {print}'; }
bench() { # log binary timeout Ms variants [repeat]
  HMMGO_GPU_BENCH=100000000 HMMGO_GPU_BENCH_REPEAT=${6-auto} HMMGO_GPU_BENCH_M=$4 HMMGO_SSV_VARIANTS=$5 timeout $3 $D/$2/msvfilter.test -test.v -test.run TestGPUThroughput -test.timeout 300s > $O/$1.log 2>&1
  say "== $1 rc=$? $(el)"; fmt $O/$1.log | tee -a $S
}
bench sweep new $(left 6 30) $Small $V
bench sweep2 new $(left 5 30) $Small $V
bench mid new $(left 4 20) $Mid auto,auto+l-1
bench cmp-new new $(left 4 20) $All auto
bench cmp-base base $(left 3 20) $All auto
bench single-new new $(left 2 20) $All auto ""
bench single-base base $(left 1 20) $All auto ""
say "$(date -u) $(el)"
