#!/usr/bin/env bash
# The hmmsearch record run on a GPU host, in one call (under 10 minutes on
# an H100 host with 16 cores): the GPU exactness tests of the MSV, Viterbi
# filter and Forward kernels and the e2e goldens with --gpu, then
# bench/gpu/hmmsearch_many.sh (24 CUDAMPF models: HMMER, --nogpu, --gpu) and
# bench/gpu/hmmsearch_1000.sh (1,000 models) against a 175M-residue
# synthetic database made there.
#
# Here (Go): CGO_ENABLED=0 go build -o .dev/hmmgo ./cmd/hmmgo, and
#   for p in hmmsearch msvfilter vitfilter fwdback; do
#     CGO_ENABLED=0 go test -c -o .dev/$p.test ./hmmer3/$p; done
# plus .dev/models (the 24 CUDAMPF *.hmm.gz), .dev/e2edata (shared/data's
# CUDAMPF and pyhmmer directories), .dev/bin (HMMER's hmmsearch, hmmbuild,
# hmmconvert) and .dev/bin/families.sto (go run ./bench/manymodels -n 976).
# There, from the repository root with those carried:
#   bash bench/gpu/hmmsearch_record.sh [CPUS]
set -u
R=$(pwd); O=${OUT:-/tmp/hmmgo-record}; mkdir -p "$O"
cpus=${1:-$(nproc)}
export HMMGO_KERNEL_CACHE=${HMMGO_KERNEL_CACHE:-$O/kernel-cache} HMMGO_GPU_DATA=$R/.dev/e2edata
D=$O/db; mkdir -p "$D"
for f in .dev/models/*.hmm.gz; do zcat "$f"; echo; done > "$D/all.hmm"
( .dev/hmmgo synthdb -n 175000000 --seed 1 --plant "$D/all.hmm" --per-model 20 -o "$D/synth.fa" >/dev/null 2>&1
  .dev/hmmgo makedb "$D/synth.fa" "$D/synth.hmmgo" >/dev/null 2>&1 ) &
for p in msvfilter vitfilter fwdback; do
  (cd hmmer3/$p && timeout 100 "$R/.dev/$p.test" -test.run 'TestGPUMatchesCPU|TestGPUBatchMatchesCPU|TestGPUParsersMatchCPU' > "$O/$p.log" 2>&1
   echo "$p GPU exactness rc=$? $(grep -E '^(--- FAIL|ok|FAIL|PASS)' "$O/$p.log" | tr '\n' ' ')")
done
(cd hmmer3/hmmsearch && HMMGO_E2E_OPTS=--gpu timeout 120 "$R/.dev/hmmsearch.test" -test.run 'TestEndToEnd' > "$O/e2e.log" 2>&1
 echo "e2e --gpu: rc=$? $(grep -c -- '--- FAIL' "$O/e2e.log") failures")
wait
HMMGO_STAGE_TIMES=1 timeout 130 bash bench/gpu/hmmsearch_many.sh .dev/bin/hmmsearch .dev/hmmgo .dev/models "$D/synth.fa" "$D/synth.hmmgo" "$cpus" 2>&1 | grep -v '^Passed\|^per-stage'
timeout 170 bash bench/gpu/hmmsearch_1000.sh .dev/bin/hmmbuild .dev/bin/hmmsearch .dev/hmmgo .dev/models .dev/bin/families.sto "$D/synth.fa" "$D/synth.hmmgo" "$cpus" 48
