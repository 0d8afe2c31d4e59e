#!/usr/bin/env bash
# HMMER3 filter kernels on the GPU host: bit-exactness against the CPU
# reference, then throughput. Build here first:
#   CGO_ENABLED=0 go test -c -o .dev/msvfilter.test ./hmmer3/msvfilter
#   (and copy the CUDAMPF models and the pyhmmer proteome under .dev/gpudata)
# then on the GPU host, from the repository root, with .dev carried:
#   bash bench/gpu/hmmer3_filters.sh [residues for the throughput run]
set -u
out=${OUT:-/tmp/hmmgo-filters}
mkdir -p "$out"
export HMMGO_GPU_DATA=$(pwd)/.dev/gpudata HMMGO_KERNEL_CACHE="$out/kernel-cache"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/host.txt" 2>&1
(cd hmmer3/msvfilter && ../../.dev/msvfilter.test -test.v -test.run 'TestGPU' -test.timeout 500s) 2>&1 | tee "$out/msvfilter.log" | grep -v '^=== RUN' | tail -30
if [ -n "${1:-}" ]; then
  (cd hmmer3/msvfilter && HMMGO_GPU_BENCH=$1 ../../.dev/msvfilter.test -test.v -test.run 'TestGPUThroughput' -test.timeout 500s) 2>&1 | tee "$out/msv-throughput.log" | grep -v '^=== RUN'
fi
