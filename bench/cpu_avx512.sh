#!/usr/bin/env bash
# The AVX-512 filter kernels on a machine that has AVX-512 (the GPU host's
# Xeon), in one call under 200 s: the msvfilter, vitfilter, oprofile and
# pipeline tests with HMMGO_KERNEL=avx512 and =avx2 (in parallel), then
# ROUNDS (default 3) alternating rounds of single-thread benchmarks: SSV
# and MSV, the Viterbi filter one target at a time, and ScoreBatch's
# multi-target kernels (pair = AVX2 two targets, quad = AVX-512 four x 8
# lanes, duo = AVX-512 two x 16), with HMMER 3.3.2's SSE filters beside
# them when a driver is given. The summary keeps each one's best
# cpu-GCUPS (thread CPU time) over the rounds.
#
# Here (Go; D is a git-ignored folder such as .dev/avx512f):
#   for p in oprofile msvfilter vitfilter pipeline; do
#     CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $D/$p.test ./hmmer3/$p
#     gzip -9 $D/$p.test; done
#   mkdir -p $D/shared/CUDAMPF/query_models $D/hmm
#   cp ../shared/data/CUDAMPF/query_models/{100,200,300,400,500,800,1001,1509,2405}.hmm.gz \
#     $D/shared/CUDAMPF/query_models/
# and, for HMMER's numbers, $D/hb: a throwaway C driver (kept out of the
# repository) on HMMER 3.3.2's libhmmer.a, linked statically, run as
# `hb MODEL.hmm SSVCELLS VITCELLS` and printing
# "HMMER-SSE M=<M> ssv <GCUPS> vit <GCUPS> cpu-GCUPS" (p7_SSVFilter and
# p7_ViterbiFilter on 64 random 350-residue targets, L=350 local
# configuration), with the models as text in $D/hmm/<name>.hmm.
# There, from the repository root with D carried:
#   bash bench/cpu_avx512.sh D
set -u
D=$(cd "${1:?usage: cpu_avx512.sh DIR}" && pwd)
R=$(pwd)
OUT=${OUT:-/tmp/hmmgo-avx512}; mkdir -p $OUT
export HMMGO_SHARED_DATA=$D/shared
B=${TMPDIR:-/tmp}/hmmgo-avx512-bin; mkdir -p $B
for f in $D/*.test.gz; do b=$(basename $f .gz); gunzip -c $f >$B/$b; chmod +x $B/$b; done
echo "== $(date -u +%FT%TZ) $(lscpu | grep -i 'model name' | sed 's/  */ /g') nproc=$(nproc)"
grep -o -w 'avx512f\|avx512bw\|avx512vl\|avx512dq\|avx512vbmi' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
T0=$SECONDS
# Tests: every package at every kernel level, in parallel (16 cores).
# (hmmer3/hmmsearch is left out: on a host with a GPU its recorded-engine
# tests take the GPU path, which they do not set up, and panic at every
# kernel level.)
for K in ${KERNELS:-avx512 avx2}; do
  for p in ${TESTPKGS:-oprofile msvfilter vitfilter pipeline}; do
    [ -x $B/$p.test ] || continue
    ( s=$SECONDS
      cd $R/hmmer3/$p && HMMGO_KERNEL=$K $B/$p.test -test.count=1 -test.v ${TESTRUN:+-test.run "$TESTRUN"} >$OUT/test_${p}_$K.log 2>&1
      rc=$?
      echo "test $p HMMGO_KERNEL=$K rc=$rc $((SECONDS-s))s $(grep -c '^--- FAIL' $OUT/test_${p}_$K.log) FAIL lines; $(grep -c '^=== RUN' $OUT/test_${p}_$K.log) run" >$OUT/status_${p}_$K
      [ $rc -ne 0 ] && grep -m8 -A3 'FAIL\|panic\|SIGILL\|fatal' $OUT/test_${p}_$K.log | cut -c1-300 >>$OUT/status_${p}_$K ) &
  done
done
wait
cat $OUT/status_*; rm -f $OUT/status_*
echo "tests took $((SECONDS-T0))s"
[ -n "${NOBENCH:-}" ] && exit 0
BT=${BT:-0.1s}
# Benchmarks: ROUNDS alternating rounds of hmmgo's msvfilter, vitfilter
# and HMMER's driver, one thread each; the summary keeps each one's best.
: >$OUT/bench_msv.txt; : >$OUT/bench_vit.txt; : >$OUT/hmmer.txt
for r in $(seq ${ROUNDS:-3}); do
  s=$SECONDS
  (cd $R/hmmer3/msvfilter && $B/msvfilter.test -test.run XXX -test.bench "${MSVBENCH:-Filter/.*/(ssv|msv)/(avx2|avx512)$}" -test.benchtime $BT >>$OUT/bench_msv.txt 2>&1)
  (cd $R/hmmer3/vitfilter && $B/vitfilter.test -test.run XXX -test.bench "${VITBENCH:-Filter/.*/(avx2|avx512)$|Batch/.*/(pair|quad|duo)/(avx2|avx512)$}" -test.benchtime $BT >>$OUT/bench_vit.txt 2>&1)
  if [ -x $D/hb ]; then
    for m in fn3 c100 c200 Pkinase c300 c400 c500 c800 Patched c1001 SMC_N c1509 c2405; do
      echo "$m $($D/hb $D/hmm/$m.hmm 1000000000 100000000)" >>$OUT/hmmer.txt
    done
  fi
  echo "bench round $r $((SECONDS-s))s"
done
# Summary: best cpu-GCUPS over the counts per benchmark.
awk '
FNR==1 { src = FILENAME }
/^Benchmark/ {
  v = ""; n = $1; sub(/^Benchmark/, "", n); sub(/-[0-9]+$/, "", n)
  for (i = 2; i < NF; i++) if ($(i+1) == "cpu-GCUPS") v = $i
  if (v != "" && (!(n in best) || v+0 > best[n]+0)) best[n] = v
}
/^[^ ]+ HMMER-SSE/ { if ($5+0 > hs[$1]+0) hs[$1] = $5; if ($7+0 > hv[$1]+0) hv[$1] = $7 }
END {
  split("fn3 c100 c200 Pkinase c300 c400 c500 c800 Patched c1001 SMC_N c1509 c2405", ms, " ")
  printf "%-8s | %6s %6s %6s | %6s %6s | %6s %6s %6s | %6s %6s %6s\n", "model", "ssvH", "ssv2", "ssv512", "msv2", "msv512", "vfH", "vf2", "vf512", "pair2", "quad", "duo"
  for (k = 1; k in ms; k++) { m = ms[k]
    printf "%-8s | %6s %6s %6s | %6s %6s | %6s %6s %6s | %6s %6s %6s\n", m, hs[m], best["Filter/" m "/ssv/avx2"], best["Filter/" m "/ssv/avx512"], best["Filter/" m "/msv/avx2"], best["Filter/" m "/msv/avx512"], hv[m], best["Filter/" m "/avx2"], best["Filter/" m "/avx512"], best["Batch/" m "/pair/avx2"], best["Batch/" m "/quad/avx512"], best["Batch/" m "/duo/avx512"]
  }
}' $OUT/bench_msv.txt $OUT/bench_vit.txt $OUT/hmmer.txt | tee $OUT/summary.txt
echo "total $((SECONDS-T0))s"
