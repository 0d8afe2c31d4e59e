#!/usr/bin/env bash
# The Viterbi filter's DPX 16x2 kernel (vit16_kernel) on the GPU host:
# exactness (TestGPUMatchesCPU, TestGPUConcurrentLaunches: vit16_kernel
# where planDPX allows, vit_kernel for the rest) and GCUPS of vit_kernel
# against vit16_kernel variants on the same models and targets.
# Build here first (bench/gpu/build_vf16.sh DIR), then on the host, from
# the repository root, with DIR carried:
#   bash bench/gpu/vf16.sh DIR [residues] [variants]
set -u
dir=$1
out=${OUT:-/tmp/hmmgo-vf16}
mkdir -p "$out"
export HMMGO_GPU_DATA=$(pwd)/$dir/gpudata HMMGO_KERNEL_CACHE="$out/kernel-cache"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
bin=$(pwd)/$dir/vitfilter.test
# Exactness once per kernel of $EXACT_KERNELS (HMMGO_VIT_KERNEL values;
# "default": the package's choice).
for k in ${EXACT_KERNELS:-default}; do
  kk=$k; [ "$k" = default ] && kk=
  (cd hmmer3/vitfilter && HMMGO_VIT_KERNEL=$kk timeout ${EXACT_S:-110} "$bin" -test.v -test.run 'TestGPUMatchesCPU|TestGPUConcurrentLaunches' -test.timeout 500s) > "$out/exact-$k.log" 2>&1
  echo "exactness $k: $(grep -E '^(--- |ok|FAIL|PASS)|handed back' "$out/exact-$k.log" | tr '\n' ' ')"
  grep -E 'differ|GPU .* CPU|error|panic' "$out/exact-$k.log" | head -8
done
if [ -n "${2:-}" ]; then
  (cd hmmer3/vitfilter && HMMGO_GPU_BENCH=$2 HMMGO_VIT_VARIANTS=${3:-sat32,dpx:32} timeout ${BENCH_S:-110} "$bin" -test.v -test.run 'TestGPUThroughput' -test.timeout 500s) > "$out/throughput.log" 2>&1
  grep -v -E '^(=== RUN|PASS|ok)' "$out/throughput.log"
fi
