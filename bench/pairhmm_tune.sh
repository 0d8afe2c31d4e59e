#!/usr/bin/env bash
# Issue 6 kernel tuning run (2026-11-27T20:45Z, H100, binaries built at
# 7ec0757, whose gpuVariants had the candidates named below: tuned-w1,
# tuned-w2, b25, b25-rows, b25-w2, rows2, vec4u, b32x8; later commits keep
# only tuned2, so rerunning needs that commit's binaries or new names).
#
#   here:        D=/work/main/.dev/phtune; mkdir -p $D
#                CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o $D/hmmgo ./cmd/hmmgo
#                CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $D/pairhmm.test ./pairhmm
#                cp pairhmm/pairhmm.cu $D/; cp bench/pairhmm_tune.sh $D/run.sh; and data/, gph-src/ as
#                bench/pairhmm_fused.sh build makes them (.dev/phfused)
#   GPU host:    bash .dev/phtune/run.sh   (repository root, .dev/phtune carried)
#
# One call, under 180 s: gpuPairHMM and ptxas register reports built in the
# background; the AVX-512 fused CPU kernel against the portable one and CPU
# GCUPS; BenchmarkGPUVariantBins (every variant in its bin, fused); per
# equal file hmmgo fused with tuned and the fastest variant, gpuPairHMM
# twice; TestGPUFused and TestGPUVariants of every candidate, fastest first.
set -uo pipefail
root=$(pwd); D=$root/.dev/phtune; O=${OUT:-/tmp/phtune-out}; mkdir -p $O
export HMMGO_SHARED_DATA=$D/data HMMGO_KERNEL_CACHE=/tmp/phk
W=$(mktemp -d)
left() { echo $((170 - SECONDS)); }
echo "host: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $(date -u +%FT%TZ)"
cp -r $D/gph-src $W/gph
( cd $W/gph && timeout 120 make -j8 GPUARCH=90 TUNINGARCH=90 gpuPairHMM > $O/gph-build.log 2>&1; echo "gph build rc $? at ${SECONDS}s" >> $O/gph-build.log
  # registers and spills of the candidate kernels (nvcc's ptxas; NVRTC's should match)
  cd $W && for spec in "8 13 1 2" "4 25 1 2" "4 25 0 1" "8 19 0 1" "8 19 0 2" "16 16 1 2" "16 16 1 4" "16 16 0 2" "32 8 1 2"; do
    set -- $spec
    ( timeout 60 nvcc -arch=sm_90 -cubin -o /dev/null -Xptxas -v --fmad=false --ftz=true -DPH_FUSED=1 -DPH_GROUP=$1 -DPH_ROWS=$2 -DPH_VEC=$3 -DPH_UNROLL=$4 -DPH_WARPS_F=4 -DPH_WARPS_D=2 -x cu $D/pairhmm.cu 2>&1 | grep -A1 "pairhmm_float" | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)" | tr '\n' ' ' | sed "s/^/  ptxas ${1}x${2} vec$3 unroll$4 float+fused: /"; echo ) > $O/ptxas-$1x$2-$3-$4.txt &
  done; wait ) &
bpid=$!
# CPU: the AVX-512 fused kernel bit for bit against the portable one, then one-thread GCUPS
( cd pairhmm && timeout 100 $D/pairhmm.test -test.v -test.count=1 -test.run '^(TestFusedKernelsIdentical|TestParseArith|TestFusedReferenceSets|TestFusedSynthetic)$' -test.timeout 99s > $O/cpu-test.log 2>&1; echo "cpu test rc $?" >> $O/cpu-test.log
  timeout 40 $D/pairhmm.test -test.run '^$' -test.bench 'CPU/(10s|1m)/avx.*/threads=1$' -test.benchtime 3x > $O/cpu-bench.log 2>&1 ) &
cpid=$!
# 1. kernels: every variant in its bin, fused (tuned also in GKL's arithmetic)
(cd pairhmm && HMMGO_BENCH_CELLS=1.5e11 timeout 80 $D/pairhmm.test -test.run '^$' -test.bench 'GPUVariantBins' -test.benchtime 3x -test.timeout 80s) > $O/bench.log 2>&1
echo "bench: rc $? at ${SECONDS}s"
grep '^BenchmarkGPU' $O/bench.log | awk '{n=$1; sub(/^BenchmarkGPUVariantBins\//,"",n); sub(/-[0-9]+$/,"",n); k=e="?"; for(i=2;i<NF;i++){if($(i+1)=="TCUPS-kernel")k=$i; if($(i+1)=="TCUPS-e2e")e=$i} printf "  %-34s %s (e2e %s)\n", n, k, e}' | tee $O/bench.txt
grep -E 'FAIL|GPU .*CPU' $O/bench.log | head -5
# per batch, the fastest fused variant
declare -A best
for b in 100x300 150x300 250x500; do best[${b}]=$(grep "^  $b/.*+fused" $O/bench.txt | sort -k2 -g -r | head -1 | awk '{split($1,a,"/"); sub(/\+fused/,"",a[2]); print a[2]}'); done
echo "best: 100x300 ${best[100x300]} 150x300 ${best[150x300]} 250x500 ${best[250x500]}"
# 2. whole commands: gpuPairHMM twice, hmmgo fused with tuned and with the best variant
wait $bpid; tail -1 $O/gph-build.log; cat $O/ptxas-*.txt
gph=$W/gph/gpuPairHMM; [ -x $gph ] || gph=
for f in 100x300 150x300 250x500; do
  [ $(left) -lt 60 ] && { echo "out of time before $f"; break; }
  zcat $D/data/equal$f.in.gz > $W/in; line="$f:"
  for v in tuned ${best[$f]}; do
    HMMGO_PAIRHMM_KERNEL=$v timeout 30 $D/hmmgo pairhmm --gpu --verbose --arith fused $W/in -o $W/$v.out 2> $O/cmd-$f-$v.txt
    t0=$(date +%s.%N); HMMGO_PAIRHMM_KERNEL=$v timeout 30 $D/hmmgo pairhmm --gpu --verbose --arith fused $W/in -o $W/$v.out 2> $O/cmd-$f-$v.txt; rc=$?; t1=$(date +%s.%N)
    line="$line $v $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s $(grep -o '([0-9.]* TCUPS)' $O/cmd-$f-$v.txt | head -1) rc $rc;"
  done
  cmp -s $W/tuned.out $W/${best[$f]}.out || line="$line OUTPUTS-DIFFER"
  if [ -n "$gph" ]; then for rep in 1 2; do
    t0=$(date +%s.%N); timeout 30 $gph --inputfile $W/in --outputfile $W/gph.out --verbose > $O/gph-$f.txt 2>&1; t1=$(date +%s.%N)
    line="$line gph $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s [$(grep -iE 'GCUPS' $O/gph-$f.txt | head -1 | tr -s ' \n' ' ')]"
  done; fi
  echo "$line"
done
# 3. GPU tests: every variant, fused and GKL's arithmetic, bit for bit against the CPU
t=$(( $(left) - 4 ))
if [ $t -gt 10 ]; then
  # the fastest variants first, then the others
  (cd pairhmm && timeout $t $D/pairhmm.test -test.v -test.count=1 -test.run "^(TestGPUFused|TestGPUVariants)\$/^(${best[100x300]}|${best[150x300]}|${best[250x500]})\$" -test.timeout ${t}s) > $O/test-gpu.log 2>&1
  t=$(( $(left) - 4 ))
  [ $t -gt 10 ] && (cd pairhmm && timeout $t $D/pairhmm.test -test.v -test.count=1 -test.run "^(TestGPUFused|TestGPUVariants)\$/^(tuned-w1|tuned-w2|b25|b25-rows|b25-w2|rows2|vec4u|b32x8)\$" -test.skip "^(TestGPUFused|TestGPUVariants)\$/^(${best[100x300]}|${best[150x300]}|${best[250x500]})\$" -test.timeout ${t}s) >> $O/test-gpu.log 2>&1
  echo "gpu tests rc $? at ${SECONDS}s: pass $(grep -E '^    --- PASS' $O/test-gpu.log | awk '{print $3}' | tr '\n' ' ')"
  echo "  fail: $(grep -E -- '--- FAIL' $O/test-gpu.log | awk '{print $3}' | tr '\n' ' ')"; grep -E 'differ|Error|panic' $O/test-gpu.log | head -5
fi
wait $cpid; tail -3 $O/cpu-test.log | head -2; grep -E -- '--- (PASS|FAIL|SKIP)|identical|fused avx' $O/cpu-test.log | head -8
grep -E '^BenchmarkCPU' $O/cpu-bench.log | awk '{print "  "$1, $(NF-1), $NF}'
echo "done at ${SECONDS}s"
