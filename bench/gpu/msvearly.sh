#!/usr/bin/env bash
# The long targets' MSV pass started early (issue 4; docs/BENCHMARKS.md,
# "The MSV pass started early"). The +eN variants exist only at commit
# eefa0c9 (branch msvearly; reverted after the measurement). Build there:
#   d=/work/main/.dev/msvearly; mkdir -p $d/base $d/new
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/new/msvfilter.test ./hmmer3/msvfilter
#   (the same from a checkout of the baseline into $d/base/msvfilter.test)
#   cp bench/gpu/msvearly.sh $d/run.sh
# then on the GPU host, from the repository root, with .dev/msvearly carried:
#   bash .dev/msvearly/run.sh [variants] [M list]
set -u
R=$(pwd); O=${OUT:-/tmp/msvearly}; mkdir -p $O/logs
export HMMGO_KERNEL_CACHE=/tmp/msvearly-kc
B=$R/.dev/msvearly/base/msvfilter.test; N=$R/.dev/msvearly/new/msvfilter.test
V=${1:-auto,auto+e700,auto+e1000,auto+e1400,auto+e2000}
MS=${2:-10,16,25,32,40,100}
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd hmmer3/msvfilter
for b in base new; do
  bin=$B; vs=auto; [ $b = new ] && bin=$N && vs=$V
  HMMGO_EARLY_DEBUG=1 HMMGO_GPU_BENCH=100000000 HMMGO_GPU_BENCH_M=$MS HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_MSV=0 HMMGO_SSV_VARIANTS=$vs \
    timeout 60 $bin -test.v -test.run 'TestGPUThroughput$' -test.timeout 100s > $O/logs/tput-$b.log 2>&1
  echo "tput $b rc=$? $SECONDS s"
done
for b in base new; do grep -E '^[0-9]+ ' $O/logs/tput-$b.log | awk -v b=$b '{printf "%s %-5s %-12s %8s %8s %8s %8s\n", b, $1, $2, $3, $5, $7, $9}'; done
grep -E 'FAIL|differ|scores|panic' $O/logs/tput-*.log | head
grep '^earlyshape' $O/logs/tput-new.log | awk '{k=$2" "$3; v[k]=$0} END {for (k in v) print v[k]}' | sort -t= -k2 -n | head -30
grep '^earlytime' $O/logs/tput-new.log | awk '{k=$2" "$3; v[k]=$0} END {for (k in v) print v[k]}' | sort -t= -k2 -n | head -30
timeout $((195-SECONDS)) $N -test.v -test.run 'TestGPUMatchesCPU$|TestGPUConcurrentLaunches' -test.timeout 200s > $O/logs/match.log 2>&1
echo "match rc=$? $SECONDS s"; grep -E '^(--- |ok|FAIL|PASS)|differ|gpu_test|panic' $O/logs/match.log | head -20
cd $O && tar czf logs.tgz logs && rm -rf logs
