#!/usr/bin/env bash
# One-call A/B of the hmm2search GPU kernel on a GPU host (no Go there):
# kernel GCUPS before (a base build) and after (this checkout), then
# exactness in the same call.
#
#   here:  CGO_ENABLED=0 go test -c -trimpath -o DIR/base/hmm2gpu.test ./hmmer2/viterbi/gpu   (base checkout)
#          CGO_ENABLED=0 go test -c -trimpath -o DIR/hmm2gpu.test ./hmmer2/viterbi/gpu        (this checkout)
#          CGO_ENABLED=0 go test -c -trimpath -o DIR/hmm2search.test ./hmmer2/search
#   there: bash bench/gpu/hmm2_ab.sh DIR   (from the repository root, DIR carried)
#
# $AB_VARIANTS: variants timed after (default auto,dsmx1; each one's
# scores checked equal to the first's on every sequence), $AB_CHECK: the
# variants TestGPUVariantsMatchCPU runs (default auto,dsmx1), $AB_GOLDEN:
# the variants the 63 golden reports run with --gpu (default auto),
# $AB_RESIDUES (default 175000000). About 100 s on an H100.
set -u
d=$(cd "${1:?usage: hmm2_ab.sh DIR}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/hmm2_ab}
mkdir -p "$out"
export HMMGO_KERNEL_CACHE=${HMMGO_KERNEL_CACHE:-/tmp/hmm2_ab_kcache}
res=${AB_RESIDUES:-175000000}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u
t0=$(date +%s)
el() { echo "[$(($(date +%s) - t0)) s]"; }
cd "$root/hmmer2/viterbi/gpu"
echo "== before: base auto, $res residues"
HMMGO_HMM2_VARIANTS=auto HMMGO_GPU_BENCH=$res timeout 60 "$d/base/hmm2gpu.test" -test.run TestGPUThroughput -test.v > "$out/base.log" 2>&1
grep -E '^[0-9]|streamed|^(--- |FAIL)' "$out/base.log"
el
echo "== after: ${AB_VARIANTS:-auto,dsmx1}, $res residues"
HMMGO_HMM2_VARIANTS=${AB_VARIANTS:-auto,dsmx1} HMMGO_GPU_BENCH=$res timeout 100 "$d/hmm2gpu.test" -test.run TestGPUThroughput -test.v > "$out/new.log" 2>&1
grep -E '^[0-9]|fastest|differs|streamed|^(--- |FAIL)' "$out/new.log"
el
timeout 60 "$d/hmm2gpu.test" -test.run TestGPUMatchesCPU -test.v > "$out/match.log" 2>&1
echo "TestGPUMatchesCPU: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/match.log" | tr '\n' ' ')"
grep -E 'GPU -?[0-9]+, CPU|panic' "$out/match.log" | head -3
HMMGO_HMM2_VARIANTS=${AB_CHECK:-auto,dsmx1} timeout 90 "$d/hmm2gpu.test" -test.run TestGPUVariantsMatchCPU -test.v > "$out/variants.log" 2>&1
echo "TestGPUVariantsMatchCPU: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/variants.log" | tr '\n' ' ')"
grep -E 'GPU -?[0-9]+, CPU|panic|every model checked' "$out/variants.log" | head -8
el
cd "$root/hmmer2/search"
for v in $(echo "${AB_GOLDEN:-auto}" | tr ',' ' '); do
	HMMGO_HMM2_KERNEL=$v timeout 30 "$d/hmm2search.test" -test.v -test.run TestGoldenReportsGPU > "$out/golden_$v.log" 2>&1
	echo "golden reports with --gpu, $v: $(grep -E '^(--- |ok|FAIL|PASS)|identical with --gpu' "$out/golden_$v.log" | tr -s ' ' | tr '\n' ' ')"
	grep -E 'differs|exit status' "$out/golden_$v.log" | head -3
done
el
