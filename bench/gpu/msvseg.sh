#!/usr/bin/env bash
# Segmented MSV probe (issue 4; docs/BENCHMARKS.md, "Segmented MSV by a
# monotone fixpoint"): msv_kernel timed over the rows each fixpoint round
# would run. Build here first:
#   d=.dev/msvseg; mkdir -p $d
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/probe.test ./hmmer3/msvfilter
#   cp bench/gpu/msvseg.sh $d/probe.sh
# then on the GPU host, from the repository root, with $d carried:
#   bash .dev/msvseg/probe.sh
# The CPU side alone (rounds, exactness against msvDP), here:
#   HMMGO_MSVSEG_SIM=100000000 go test -v -run TestSegmentedMSVSimulation ./hmmer3/msvfilter
set -u
R=$(pwd); O=${OUT:-/tmp/msvseg}; mkdir -p $O
export HMMGO_KERNEL_CACHE=/tmp/msvseg-kc
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
cd hmmer3/msvfilter
HMMGO_MSVSEG_PROBE=100000000 HMMGO_MSVSEG_M=10,25,40 HMMGO_MSVSEG_LSEG=64,128,256,512 timeout 220 $R/.dev/msvseg/probe.test -test.v -test.run TestSegmentedMSVProbe -test.timeout 300s > $O/probe.log 2>&1
echo "rc=$? $SECONDS s"
grep -vE '^=== RUN' $O/probe.log | tail -40
