#!/usr/bin/env bash
# Forward on the GPU (hmmer3/fwdback): bit-exactness against the CPU
# Forward, then throughput. Build here first (bench/gpu/build_hmmer3.sh),
# then on the GPU host, from the repository root, with .dev carried:
#   bash bench/gpu/fwd.sh [residues for the throughput run] [all]
# "all" also times every placement (shared / state-shared / global) that
# fits, besides the automatic choice. HMMGO_FWD_FULL=1 compares the CUDAMPF
# models against the whole proteome instead of a sample (slower CPU side).
set -u
out=${OUT:-/tmp/hmmgo-fwd}
mkdir -p "$out"
[ -x .dev/fwdback.test ] || { echo "fwd.sh: .dev/fwdback.test missing; run bench/gpu/build_hmmer3.sh and carry .dev" >&2; exit 2; }
export HMMGO_GPU_DATA=$(pwd)/.dev/gpudata HMMGO_KERNEL_CACHE="$out/kernel-cache"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/host.txt" 2>&1
echo "host: $(tail -1 "$out/host.txt")"
(cd hmmer3/fwdback && ../../.dev/fwdback.test -test.v -test.run 'TestGPUMatchesCPU|TestGPUParsersMatchCPU' -test.timeout 500s) > "$out/fwd.log" 2>&1
echo "forward exactness: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/fwd.log" | tr '\n' ' ')"
grep -E 'targets compared' "$out/fwd.log"
grep -E 'differ|GPU .* CPU|error|nvrtc|panic|no GPU' "$out/fwd.log" | head -12
if [ -n "${1:-}" ]; then
  places=auto
  [ "${2:-}" = all ] && places=all
  (cd hmmer3/fwdback && HMMGO_GPU_BENCH=$1 HMMGO_FWD_PLACEMENTS=$places ../../.dev/fwdback.test -test.v -test.run 'TestGPUThroughput' -test.timeout 500s) > "$out/fwd-throughput.log" 2>&1
  echo "== forward throughput"; grep -v -E '^(=== RUN|--- |PASS|ok)' "$out/fwd-throughput.log"
fi
