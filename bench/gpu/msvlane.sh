#!/usr/bin/env bash
# The MSV pass's long targets segmented over a warp's lanes (issue 4;
# docs/BENCHMARKS.md, "The MSV pass's long targets cut over a warp's
# lanes"). Build here:
#   d=/work/main/.dev/msvlane; mkdir -p $d
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/msvfilter.test ./hmmer3/msvfilter
#   cp bench/gpu/msvlane.sh $d/run.sh
# then on the GPU host, from the repository root, with .dev/msvlane carried:
#   MS=10,16 V=auto,auto+g0,... bash .dev/msvlane/run.sh
set -u
R=$(pwd); O=${OUT:-/tmp/msvlane}; L=$O/logs; mkdir -p $L
export HMMGO_KERNEL_CACHE=/tmp/msvlane-kc
B=$R/.dev/msvlane/msvfilter.test
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cd hmmer3/msvfilter
MS=${MS:-10,16,20,24,25,32}
V=${V:-auto,auto+g256,auto+g512,auto+g1024}
left() { echo $(( $1 < 226-SECONDS ? $1 : 226-SECONDS )); }
tput() { # residues, timeout
  HMMGO_GPU_BENCH=$1 HMMGO_GPU_BENCH_M=$MS HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_MSV=0 HMMGO_GPU_BENCH_PASS=1 HMMGO_SSV_VARIANTS=$V \
    timeout $(left $2) $B -test.v -test.run 'TestGPUThroughput$' -test.timeout 300s > $L/tput-$1.log 2>&1
  echo "tput $1 rc=$? at ${SECONDS}s"; grep -E 'targets,' $L/tput-$1.log
  # M variant total_ms ssv_ms pass_ms TCUPS(total)
  grep -E '^[0-9]+ ' $L/tput-$1.log | awk '{printf "%s %s %s %s %.3f %.2f\n", $1, $2, $3, $7, $3-$7, $5/1000}'
  grep -E '^pass' $L/tput-$1.log | awk '{print $2, $3, $4, $7, $10, $11}'
  grep -E 'FAIL|panic|scores' $L/tput-$1.log | head -5
}
[ -d $R/.dev/msvlane/kc ] && cp -r $R/.dev/msvlane/kc $HMMGO_KERNEL_CACHE # a kernel cache of an earlier call, if carried
tput 100000000 60
tput 175000000 70
match() { # tests, timeout
  timeout $(left $2) $B -test.v -test.run "$1" -test.timeout 300s > $L/match-$2.log 2>&1
  echo "match $1 rc=$? at ${SECONDS}s"; grep -E '^(--- |ok|FAIL|PASS)|differ|gpu_test|panic' $L/match-$2.log | head -20
}
match 'TestGPUMatchesCPUSegmented$' 120
match 'TestGPUMatchesCPU$|TestGPUConcurrentLaunches$' 200
# The kernel cache for the next call (carried back as .dev/msvlane/kc).
du -sm $HMMGO_KERNEL_CACHE; [ $(du -sm $HMMGO_KERNEL_CACHE | cut -f1) -lt 40 ] && cp -r $HMMGO_KERNEL_CACHE $O/kc
echo "== done ${SECONDS}s"
