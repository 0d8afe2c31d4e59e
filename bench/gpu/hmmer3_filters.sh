#!/usr/bin/env bash
# HMMER3 filter kernels on the GPU host: bit-exactness against the CPU
# reference, then throughput. Build here first (bench/gpu/build_hmmer3.sh),
# then on the GPU host, from the repository root, with .dev carried:
#   bash bench/gpu/hmmer3_filters.sh [residues for the throughput run]
set -u
out=${OUT:-/tmp/hmmgo-filters}
mkdir -p "$out"
export HMMGO_GPU_DATA=$(pwd)/.dev/gpudata HMMGO_KERNEL_CACHE="$out/kernel-cache"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/host.txt" 2>&1
for p in ${PKGS:-msvfilter vitfilter}; do
  (cd hmmer3/$p && ../../.dev/$p.test -test.v -test.run 'TestGPUMatchesCPU' -test.timeout 500s) > "$out/$p.log" 2>&1
  echo "$p exactness: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/$p.log" | tr '\n' ' ')"
  grep -E 'differ|GPU .* CPU|error' "$out/$p.log" | head -8
done
if [ -n "${1:-}" ]; then
  for p in ${PKGS:-msvfilter vitfilter}; do
    (cd hmmer3/$p && HMMGO_GPU_BENCH=$1 ../../.dev/$p.test -test.v -test.run 'TestGPUThroughput' -test.timeout 500s) > "$out/$p-throughput.log" 2>&1
    echo "== $p throughput"; grep -v -E '^(=== RUN|--- |PASS|ok)' "$out/$p-throughput.log"
  done
fi
