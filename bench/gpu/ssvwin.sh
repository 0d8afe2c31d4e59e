#!/usr/bin/env bash
# SSV over windows of long targets (issue 4): exactness, steady-state
# GCUPS of the variants (SSV kernels back to back), single-shot GCUPS
# before (a build of main) and after, the per-launch floor on a 1M-residue
# database, and the SM clock sampled meanwhile. Build here first:
#   d=.dev/ssvwin; mkdir -p $d/new $d/base
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/new/msvfilter.test ./hmmer3/msvfilter
#   (same from a checkout of main into $d/base/msvfilter.test)
#   cp bench/gpu/hmmer3_filters.sh $d/; cp -r <shared data: CUDAMPF/query_models, pyhmmer/seqs/...faa> $d/gpudata/
# then on the GPU host, from the repository root, with $d carried:
#   D=$d bash $d/ssvwin.sh
set -u
d=${D:-.dev/ssvwin}
out=${OUT:-/tmp/ssvwin}; mkdir -p "$out"
export HMMGO_GPU_DATA=$(pwd)/$d/gpudata
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 100 > "$out/clocks.csv" 2>&1 &
smi=$!
OUT=$out/a BIN=$d/new PKGS=msvfilter EXACT_RUN='TestGPUMatchesCPU|TestGPUConcurrentLaunches' EXACT_S=80 bash $d/hmmer3_filters.sh
export HMMGO_GPU_BENCH_MSV=0
echo "#### steady state (SSV kernels back to back), 100M"
OUT=$out/d BIN=$d/new PKGS=msvfilter EXACT=0 BENCH_S=70 HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_M=10,25,50,100,150,200,400,800,2405 \
  HMMGO_SSV_VARIANTS=auto,whole,win,win+copy,auto+n24,step2048 bash $d/hmmer3_filters.sh 100000000 | grep -v '^M '
echo "#### single shot, 100M, base = main"
OUT=$out/b BIN=$d/new BASE=$d/base PKGS=msvfilter EXACT=0 BENCH_S=35 HMMGO_GPU_BENCH_M=10,25,50,100,200,400,800,2405 \
  HMMGO_SSV_VARIANTS=auto,whole bash $d/hmmer3_filters.sh 100000000 | grep -v -E '^(1200|1600|2000|2500) '
echo "#### steady state, tiny database (1M residues)"
OUT=$out/e BIN=$d/new PKGS=msvfilter EXACT=0 BENCH_S=20 HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_M=10,100,800 \
  HMMGO_SSV_VARIANTS=auto,whole bash $d/hmmer3_filters.sh 1000000
echo "#### single shot, 30M, base = main"
OUT=$out/c BIN=$d/new BASE=$d/base PKGS=msvfilter EXACT=0 BENCH_S=25 HMMGO_GPU_BENCH_M=10,25,50,100,200,400,800,2405 \
  HMMGO_SSV_VARIANTS=auto,whole bash $d/hmmer3_filters.sh 30000000 | grep -v -E '^(1200|1600|2000|2500) '
kill $smi
awk -F', ' '{gsub(/ MHz/,"",$2); n++; if ($2+0>mx) mx=$2+0; if (mn==""||$2+0<mn) mn=$2+0; c[int(($2+0)/250)]++} END {printf "sm clock samples %d, min %d max %d MHz; per 250 MHz bin:", n, mn, mx; for (b in c) printf " %d:%d", b*250, c[b]; print ""}' "$out/clocks.csv"
date -u
