#!/usr/bin/env bash
# HMMER3 filter kernels on the GPU host: bit-exactness against the CPU
# reference, then throughput. Build here first (bench/gpu/build_hmmer3.sh),
# then on the GPU host, from the repository root, with .dev carried:
#   bash bench/gpu/hmmer3_filters.sh [residues for the throughput run]
# Environment: PKGS (default "msvfilter vitfilter"); BIN, the directory of
# the test binaries (default .dev); BASE, a directory of an earlier
# build's binaries whose throughput runs first in the same call (before
# and after on one device); EXACT=0 skips the exactness tests, EXACT_RUN
# names them (default TestGPUMatchesCPU); EXACT_S and BENCH_S bound each
# run in seconds. The throughput tests read their own variables
# (HMMGO_GPU_BENCH_M, HMMGO_SSV_VARIANTS, HMMGO_GPU_BENCH_MSV: see
# hmmer3/msvfilter/gpu_test.go).
set -u
out=${OUT:-/tmp/hmmgo-filters}
root=$(pwd)
bin=${BIN:-.dev}
mkdir -p "$out"
export HMMGO_GPU_DATA=${HMMGO_GPU_DATA:-$root/.dev/gpudata} HMMGO_KERNEL_CACHE="$out/kernel-cache"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/host.txt" 2>&1
if [ "${EXACT:-1}" != 0 ]; then
  for p in ${PKGS:-msvfilter vitfilter}; do
    t0=$(date +%s)
    (cd hmmer3/$p && timeout "${EXACT_S:-500}" "$root/$bin/$p.test" -test.v -test.run "${EXACT_RUN:-TestGPUMatchesCPU}" -test.timeout 500s) > "$out/$p.log" 2>&1
    echo "$p exactness (rc $?, $(( $(date +%s) - t0 )) s): $(grep -E '^(--- |ok|FAIL|PASS)' "$out/$p.log" | tr '\n' ' ')"
    grep -E 'differ|GPU .* CPU|error|panic' "$out/$p.log" | head -8
  done
fi
if [ -n "${1:-}" ]; then
  for p in ${PKGS:-msvfilter vitfilter}; do
    for b in ${BASE:+"$BASE=base"} "$bin=new"; do
      dir=${b%=*} tag=${b##*=}
      t0=$(date +%s)
      (cd hmmer3/$p && HMMGO_GPU_BENCH=$1 timeout "${BENCH_S:-500}" "$root/$dir/$p.test" -test.v -test.run 'TestGPUThroughput' -test.timeout 500s) > "$out/$p-throughput-$tag.log" 2>&1
      echo "== $p throughput, $tag ($dir; rc $?, $(( $(date +%s) - t0 )) s)"
      grep -v -E '^(=== RUN|--- |PASS|ok)' "$out/$p-throughput-$tag.log"
    done
  done
fi
