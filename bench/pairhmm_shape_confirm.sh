#!/usr/bin/env bash
# Issue 6 kernel shapes, the confirming run (one nvidia-h100-x1 call, under
# 230 s) of tuned3 (then both arithmetics' default) against the old
# defaults (tuned: GKL's arithmetic, tuned2: fused), and of tuned3w and
# tuned3u8. Run 2026-11-27T22:03Z (227 s, step 4 cut short by its timeout
# before 700x1200) with binaries built at c3e0d44; later commits replace
# tuned3* by tuned4 (fused) and tuned4g (GKL's), whose every bin compiles
# as one of them (TestVariantBinTables), so rerunning needs that commit's
# binaries or the new names; docs/BENCHMARKS.md "Pair-HMM: kernel shapes".
#
#   here:      D=/work/main/.dev/phshape; as bench/pairhmm_shape.sh, plus
#              CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $D/pairhmmcmd.test ./internal/pairhmmcmd
#              cp bench/pairhmm_shape_confirm.sh $D/confirm.sh
#   GPU host:  bash .dev/phshape/confirm.sh   (repository root, .dev/phshape carried)
#
# 1. BenchmarkGPUVariantBins, tuned, tuned2 and tuned3 on the three equal
#    batches, both arithmetics; 2. per equal file hmmgo --gpu --arith
#    fused|gkl with the default and the old default (second of two runs,
#    outputs compared) and gpuPairHMM twice; 3. every GPU test of pairhmm
#    and pairhmmcmd; 4. tuned3 against tuned3w on reads whose bins it
#    changes (80x300: 4x20, 600x1200: 32x19, 630x1200: 32x20, 700x1200: 32x24).
set -uo pipefail
root=$(pwd); D=$root/.dev/phshape; O=${OUT:-/tmp/phshape-out}; mkdir -p $O
export HMMGO_SHARED_DATA=$D/data HMMGO_KERNEL_CACHE=/tmp/phk
W=$(mktemp -d)
left() { echo $((230 - SECONDS)); }
echo "host: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1); $(nproc) cores; $(date -u +%FT%TZ)"
cp -r $D/gph-src $W/gph
( cd $W/gph && timeout 150 make -j8 GPUARCH=90 TUNINGARCH=90 gpuPairHMM > $O/gph-build.log 2>&1; echo "gph build rc $? at ${SECONDS}s" >> $O/gph-build.log ) &
bpid=$!
summ() { grep '^BenchmarkGPU' $1 | awk '{n=$1; sub(/^BenchmarkGPUVariantBins\//,"",n); sub(/-[0-9]+$/,"",n); k=e=r=l="?"; for(i=2;i<NF;i++){if($(i+1)=="TCUPS-kernel")k=$i; if($(i+1)=="TCUPS-e2e")e=$i; if($(i+1)=="float-regs")r=$i; if($(i+1)=="float-local-B")l=$i} printf "  %-30s %s (e2e %s) regs %s local %s\n", n, k, e, r, l}'; grep -E 'FAIL|GPU .*CPU|panic' $1 | head -5; }
# 1.
(cd pairhmm && HMMGO_BENCH_CELLS=1.5e11 timeout 75 $D/pairhmm.test -test.run '^$' -test.bench 'GPUVariantBins/(100x300|150x300|250x500)/^(tuned|tuned2|tuned3|tuned3u8)(\+fused)?$' -test.benchtime 3x -test.timeout 75s) > $O/bench.log 2>&1
echo "bench: rc $? at ${SECONDS}s"; summ $O/bench.log
# 2.
wait $bpid; tail -1 $O/gph-build.log
gph=$W/gph/gpuPairHMM; [ -x $gph ] || gph=
for f in 100x300 150x300 250x500; do
  zcat $D/data/equal$f.in.gz > $W/in; line="$f:"
  for av in fused: fused:tuned2 fused:tuned3u8 gkl: gkl:tuned; do
    a=${av%:*}; v=${av#*:}; o=$W/$a-${v:-default}.out
    HMMGO_PAIRHMM_KERNEL=$v timeout 30 $D/hmmgo pairhmm --gpu --verbose --arith $a $W/in -o $o 2> $O/cmd-$f-$a-${v:-default}.txt
    t0=$(date +%s.%N); HMMGO_PAIRHMM_KERNEL=$v timeout 30 $D/hmmgo pairhmm --gpu --verbose --arith $a $W/in -o $o 2> $O/cmd-$f-$a-${v:-default}.txt; rc=$?; t1=$(date +%s.%N)
    line="$line $a ${v:-default} $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s $(grep -o '([0-9.]* TCUPS)' $O/cmd-$f-$a-${v:-default}.txt | head -1) rc $rc;"
  done
  cmp -s $W/fused-default.out $W/fused-tuned2.out && line="$line fused same;" || line="$line FUSED-OUTPUTS-DIFFER;"
  cmp -s $W/gkl-default.out $W/gkl-tuned.out && line="$line gkl same;" || line="$line GKL-OUTPUTS-DIFFER;"
  if [ -n "$gph" ]; then for rep in 1 2; do
    t0=$(date +%s.%N); timeout 30 $gph --inputfile $W/in --outputfile $W/gph.out --verbose > $O/gph-$f.txt 2>&1; t1=$(date +%s.%N)
    line="$line gph $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s [$(grep -iE 'GCUPS' $O/gph-$f.txt | head -1 | sed 's/Batch processing time: //' | tr -s ' \n' ' ')]"
  done; fi
  echo "$line"
done
grep -h -m1 -i "kernels" $O/cmd-150x300-*-default.txt | head -2
# 3.
t=$(( $(left) - 60 ))
(cd pairhmm && timeout $t $D/pairhmm.test -test.v -test.count=1 -test.run '^TestGPU' -test.timeout ${t}s) > $O/test-gpu.log 2>&1
echo "pairhmm gpu tests rc $? at ${SECONDS}s: $(grep -cE -- '--- PASS' $O/test-gpu.log) pass, $(grep -cE -- '--- SKIP' $O/test-gpu.log) skip; fail: $(grep -E -- '--- FAIL' $O/test-gpu.log | awk '{print $3}' | tr '\n' ' ')"
grep -E '^--- ' $O/test-gpu.log | awk '{printf "%s %s %s; ", $2, $3, $4} END {print ""}'
t=$(( $(left) - 50 ))
(cd internal/pairhmmcmd && timeout $t $D/pairhmmcmd.test -test.v -test.count=1 -test.run '^TestGPU' -test.timeout ${t}s) > $O/test-cmd.log 2>&1
echo "pairhmmcmd gpu tests rc $? at ${SECONDS}s: $(grep -E '^--- ' $O/test-cmd.log | awk '{printf "%s %s %s; ", $2, $3, $4}')"
# 4.
t=$(( $(left) - 3 ))
(cd pairhmm && HMMGO_BENCH_SHAPES=80x300,600x1200,630x1200,700x1200 HMMGO_BENCH_CELLS=1.5e11 timeout $t $D/pairhmm.test -test.run '^$' -test.bench 'GPUVariantBins/(80x300|600x1200|630x1200|700x1200)/^(tuned3|tuned3w)(\+fused)?$' -test.benchtime 3x -test.timeout ${t}s) > $O/bench-w.log 2>&1
echo "bench w: rc $? at ${SECONDS}s"; summ $O/bench-w.log
echo "done at ${SECONDS}s"
