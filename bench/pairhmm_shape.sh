#!/usr/bin/env bash
# Issue 6 kernel shapes (150- and 250-base reads), both arithmetics: the
# sweep run (one nvidia-h100-x1 call, under 230 s; run 2026-11-27T21:54Z,
# 123 s, binaries built at 704985d, whose gpuVariants had the candidates
# s25u4 ... s32u4; later commits drop them, so rerunning needs that
# commit's binaries or new names; docs/BENCHMARKS.md "Pair-HMM: kernel
# shapes").
#
#   here:      D=/work/main/.dev/phshape; mkdir -p $D/data
#              CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o $D/hmmgo ./cmd/hmmgo
#              CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $D/pairhmm.test ./pairhmm
#              cp bench/pairhmm_shape.sh $D/run.sh; data/{equal*.in.gz,PairHMM} and
#              gph-src/ as bench/pairhmm_fused.sh build makes them (.dev/phfused)
#   GPU host:  bash .dev/phshape/run.sh   (repository root, .dev/phshape carried)
#
# gpuPairHMM built in the background; BenchmarkGPUVariantBins for tuned,
# tuned2 and the candidates (names s<digit>...), fused and GKL's
# arithmetic, one process per batch (150x300 first); per equal file
# gpuPairHMM twice and hmmgo --arith fused with tuned2 and the fastest
# candidate; TestGPUFused and TestGPUVariants of the fastest candidates,
# then of the others while time is left.
set -uo pipefail
root=$(pwd); D=$root/.dev/phshape; O=${OUT:-/tmp/phshape-out}; mkdir -p $O
export HMMGO_SHARED_DATA=$D/data HMMGO_KERNEL_CACHE=/tmp/phk
W=$(mktemp -d)
left() { echo $((228 - SECONDS)); }
echo "host: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1); $(nproc) cores; $(date -u +%FT%TZ)"
cp -r $D/gph-src $W/gph
( cd $W/gph && timeout 150 make -j8 GPUARCH=90 TUNINGARCH=90 gpuPairHMM > $O/gph-build.log 2>&1; echo "gph build rc $? at ${SECONDS}s" >> $O/gph-build.log ) &
bpid=$!
pat=${PAT:-'^(tuned|tuned2|s[0-9].*)(\+fused)?$'}
for spec in 150x300:85 250x500:30 100x300:25; do
  b=${spec%:*}; t=${spec#*:}
  (cd pairhmm && HMMGO_BENCH_CELLS=1.5e11 timeout $t $D/pairhmm.test -test.run '^$' -test.bench "GPUVariantBins/$b/$pat" -test.benchtime 3x -test.timeout ${t}s) >> $O/bench.log 2>&1
  echo "bench $b: rc $? at ${SECONDS}s"
done
grep '^BenchmarkGPU' $O/bench.log | awk '{n=$1; sub(/^BenchmarkGPUVariantBins\//,"",n); sub(/-[0-9]+$/,"",n); k=e=r=l="?"; for(i=2;i<NF;i++){if($(i+1)=="TCUPS-kernel")k=$i; if($(i+1)=="TCUPS-e2e")e=$i; if($(i+1)=="float-regs")r=$i; if($(i+1)=="float-local-B")l=$i} printf "  %-30s %s (e2e %s) regs %s local %s\n", n, k, e, r, l}' | tee $O/bench.txt
grep -E 'FAIL|GPU .*CPU|panic' $O/bench.log | head -5
# per batch, the fastest fused variant
declare -A best; all=
for b in 100x300 150x300 250x500; do
  best[$b]=$(grep "^  $b/.*+fused" $O/bench.txt | sort -k2 -g -r | head -1 | awk '{split($1,a,"/"); sub(/\+fused/,"",a[2]); print a[2]}')
  all="$all ${best[$b]}"
  echo "best fused $b: ${best[$b]}; best gkl: $(grep "^  $b/" $O/bench.txt | grep -v fused | sort -k2 -g -r | head -1 | awk '{print $1, $2}')"
done
wait $bpid; tail -1 $O/gph-build.log
gph=$W/gph/gpuPairHMM; [ -x $gph ] || gph=
for f in 150x300 250x500 100x300; do
  [ $(left) -lt 70 ] && { echo "out of time before $f"; break; }
  zcat $D/data/equal$f.in.gz > $W/in; line="$f:"
  for v in tuned2 ${best[$f]}; do
    HMMGO_PAIRHMM_KERNEL=$v timeout 30 $D/hmmgo pairhmm --gpu --verbose --arith fused $W/in -o $W/$v.out 2> $O/cmd-$f-$v.txt
    t0=$(date +%s.%N); HMMGO_PAIRHMM_KERNEL=$v timeout 30 $D/hmmgo pairhmm --gpu --verbose --arith fused $W/in -o $W/$v.out 2> $O/cmd-$f-$v.txt; rc=$?; t1=$(date +%s.%N)
    line="$line $v $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s $(grep -o '([0-9.]* TCUPS)' $O/cmd-$f-$v.txt | head -1) rc $rc;"
  done
  cmp -s $W/tuned2.out $W/${best[$f]}.out || line="$line OUTPUTS-DIFFER"
  if [ -n "$gph" ]; then for rep in 1 2; do
    t0=$(date +%s.%N); timeout 30 $gph --inputfile $W/in --outputfile $W/gph.out --verbose > $O/gph-$f.txt 2>&1; t1=$(date +%s.%N)
    line="$line gph $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s [$(grep -iE 'GCUPS' $O/gph-$f.txt | head -1 | tr -s ' \n' ' ')]"
  done; fi
  echo "$line"
done
# GPU tests, bit for bit against the CPU: the fastest candidates, then the others
run_tests() { # pattern, skip pattern
  local t=$(( $(left) - 3 )); [ $t -gt 10 ] || return
  (cd pairhmm && timeout $t $D/pairhmm.test -test.v -test.count=1 -test.run "^(TestGPUFused|TestGPUVariants)\$/^($1)\$" ${2:+-test.skip "^(TestGPUFused|TestGPUVariants)\$/^($2)\$"} -test.timeout ${t}s) >> $O/test-gpu.log 2>&1
}
first=$(echo $all | tr ' ' '\n' | grep -E '^s[0-9]' | sort -u | tr '\n' '|' | sed 's/|$//')
[ -n "$first" ] && run_tests "$first"
run_tests 's[0-9].*' "$first"
echo "gpu tests at ${SECONDS}s: pass $(grep -E '^    --- PASS' $O/test-gpu.log | awk '{print $3}' | sort | uniq -c | awk '{print $2"x"$1}' | tr '\n' ' ')"
echo "  fail: $(grep -E -- '--- FAIL' $O/test-gpu.log | awk '{print $3}' | tr '\n' ' ')"; grep -E 'differ|Error|panic' $O/test-gpu.log | head -5
echo "done at ${SECONDS}s"
