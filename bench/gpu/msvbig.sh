#!/usr/bin/env bash
# The MSV pass on large databases (issue 4; docs/BENCHMARKS.md, "The MSV
# pass on a 1,000 M-residue database"). Build here:
#   d=/work/main/.dev/msvbig; mkdir -p $d
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/msvfilter.test ./hmmer3/msvfilter
#   cp bench/gpu/msvbig.sh $d/run.sh
# then on the GPU host, from the repository root, with .dev/msvbig carried:
#   bash .dev/msvbig/run.sh
set -u
R=$(pwd); O=${OUT:-/tmp/msvbig}; L=$O/logs; mkdir -p $L
export HMMGO_KERNEL_CACHE=/tmp/msvbig-kc
B=$R/.dev/msvbig/msvfilter.test
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cd hmmer3/msvfilter
MS=10,16,25,32
V=auto,auto+m1,auto+m2,auto+m3,auto+m6,auto+m12,auto+l256,auto+l600,auto+l1500,auto+l600+k2,auto+q1,auto+s2
left() { echo $(( $1 < 232-SECONDS ? $1 : 232-SECONDS )); }
tput() { # residues, timeout
  HMMGO_GPU_BENCH=$1 HMMGO_GPU_BENCH_M=$MS HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_MSV=0 HMMGO_GPU_BENCH_PASS=1 HMMGO_SSV_VARIANTS=$V \
    timeout $(left $2) $B -test.v -test.run 'TestGPUThroughput$' -test.timeout 300s > $L/tput-$1.log 2>&1
  echo "tput $1 rc=$? at ${SECONDS}s"
  grep -E 'targets,|^pass' $L/tput-$1.log
  grep -E '^[0-9]+ ' $L/tput-$1.log | awk '{printf "%s %s %s %s %s\n", $1, $2, $3, $7, $5}' | awk '{t[$1]=t[$1] sprintf(" %s=%s/%s", $2, $3, $4-0==0?"-":sprintf("%.3f",$3-$4))} END {for (m in t) print "M=" m ":" t[m]}'
  grep -E 'FAIL|panic|scores' $L/tput-$1.log | head -5
}
tput 1000000000 115
# The probe at 1,000 M, its first msv_kernel (M = 10's whole pass) under ncu.
NCU=/usr/local/cuda/bin/ncu
HMMGO_MSVPASS_PROBE=1000000000 timeout $(left 75) $NCU --clock-control none --kernel-name msv_kernel --launch-count 1 --csv --page details \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
  --metrics sm__cycles_active.max,sm__cycles_active.min,sm__cycles_elapsed.max,smsp__inst_executed.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
  $B -test.v -test.run 'TestMSVPassProbe$' -test.timeout 300s > $L/probe.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
grep -E '^probe|FAIL|panic' $L/probe.log
grep -E '^"[0-9]' $L/probe.log | awk -F'","' '{v=$NF; sub(/"$/,"",v); n=$(NF-2); sub(/smsp__average_warps_issue_stalled_/,"stall ",n); sub(/_per_issue_active.ratio/,"",n); if (n !~ /^stall/ || v+0 > 0.05) printf "%s [%s]=%s\n", n, $(NF-1), v}' | grep -E 'Duration|SM Active|Elapsed Cycles|Achieved|Theoretical Occ|Grid Size|Block Size|Registers|Waves|Issued Warp|Issue Slots|No Eligible|^stall|Active Warps Per|Eligible Warps|Stall|sm__cycles|inst_executed|Block Limit|Dynamic Shared' | head -90
tput 175000000 $(left 80)
echo "== done ${SECONDS}s"
