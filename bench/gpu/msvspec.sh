#!/usr/bin/env bash
# The MSV pass with xB guessed (issue 4; docs/BENCHMARKS.md, "The MSV pass
# with xB guessed; the segmented fixpoint measured again"). Build here:
#   d=.dev/msvseg; mkdir -p $d/base $d/new
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/new/msvfilter.test ./hmmer3/msvfilter
#   (the same from a checkout of the baseline into $d/base/msvfilter.test)
#   cp bench/gpu/msvspec.sh $d/run3.sh
# then on the GPU host, from the repository root, with $d carried:
#   bash .dev/msvseg/run3.sh
# The fixpoint's probe (call 1) is bench/gpu/msvseg.sh with
# HMMGO_MSVSEG_M=10,16,25,32,40 HMMGO_MSVSEG_LSEG=128,256,512.
set -u
R=$(pwd); O=${OUT:-/tmp/msvseg}; mkdir -p $O/logs
export HMMGO_KERNEL_CACHE=/tmp/msvseg-kc
B=$R/.dev/msvseg/base/msvfilter.test; N=$R/.dev/msvseg/new/msvfilter.test
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd hmmer3/msvfilter
MS=10,16,25,28,32,40,47,50,64,100,128,800
for b in base new; do
  V=auto; [ $b = new ] && V=auto,auto+s2,auto+l256,auto+l600,auto+l600+k2,auto+l1500,auto+m6,auto+m3
  bin=$B; [ $b = new ] && bin=$N
  HMMGO_GPU_BENCH=100000000 HMMGO_GPU_BENCH_M=$MS HMMGO_GPU_BENCH_REPEAT=auto HMMGO_SSV_VARIANTS=$V \
    timeout 75 $bin -test.v -test.run 'TestGPUThroughput$' -test.timeout 100s > $O/logs/tput-$b.log 2>&1
  echo "tput $b rc=$? $SECONDS s"
done
for b in base new; do grep -E '^[0-9]+ ' $O/logs/tput-$b.log | awk -v b=$b '{printf "%s %-5s %-14s %8s %8s\n", b, $1, $2, $3, $7}'; done
grep -E 'FAIL|differ|scores' $O/logs/tput-*.log | head
timeout 115 $N -test.v -test.run 'TestGPUMatchesCPU$|TestGPUConcurrentLaunches' -test.timeout 200s > $O/logs/match.log 2>&1
echo "match rc=$? $SECONDS s"; grep -E '^(--- |ok|FAIL|PASS)|differ|gpu_test' $O/logs/match.log | head -20
if [ $SECONDS -lt 200 ]; then
  HMMGO_GPU_BENCH=100000000 HMMGO_GPU_BENCH_M=16 HMMGO_GPU_BENCH_MSV=0 timeout $((232-SECONDS)) /usr/local/cuda/bin/ncu --clock-control none --kernel-name msv_kernel --launch-skip 1 --launch-count 1 --csv \
    --metrics gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
    $N -test.run 'TestGPUThroughput$' > $O/logs/ncu16.csv 2>&1
  echo "ncu rc=$? $SECONDS s"
  grep -E '^"[0-9]' $O/logs/ncu16.csv | awk -F'","' '{v=$NF; sub(/"$/,"",v); if (v+0 > 0.05 || $(NF-2) !~ /stalled/) printf "%s=%s ", $(NF-2), v} END {print ""}' | sed 's/smsp__average_warps_issue_stalled_//g; s/_per_issue_active.ratio//g'
fi
cd $O && tar czf logs.tgz logs && rm -rf logs
