#!/usr/bin/env bash
# SSV and the MSV pass at small model lengths (issue 4). Build here first:
#   d=.dev/ssvsmall; mkdir -p $d/new $d/base
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/new/msvfilter.test ./hmmer3/msvfilter
#   (the same from a checkout of the baseline into $d/base/msvfilter.test)
#   cp -r <CUDAMPF/query_models, pyhmmer/seqs/...faa> $d/gpudata/
# then on the GPU host, from the repository root, with $d carried:
#   D=$d bash $d/ssvsmall.sh probe   # variants, ncu of ssv_kernel (one and two rows a step) and msv_kernel
#   D=$d bash $d/ssvsmall.sh final   # exactness, then GCUPS before/after, steady and single, and variants
# Keep what comes back under 8 files ($OUT): the device returns only a few.
set -u
d=$(pwd)/${D:-.dev/ssvsmall}
out=${OUT:-/tmp/ssvsmall}; mkdir -p "$out"
export HMMGO_KERNEL_CACHE=/tmp/ssvsmall-kc HMMGO_GPU_DATA=$d/gpudata HMMGO_GPU_BENCH_MSV=0
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u
cd hmmer3/msvfilter
bench() { # tag binary-dir timeout [env...]
  local tag=$1 bin=$2 to=$3; shift 3
  env "$@" HMMGO_GPU_BENCH=100000000 timeout $to $d/$bin/msvfilter.test -test.v -test.run TestGPUThroughput -test.timeout 500s > $out/$tag.log 2>&1
  echo "== $tag rc=$? t=$(el)"; grep -E '^[0-9]+ ' $out/$tag.log | awk '{printf "%s %s tot=%s ms=%s ssv=%s ssvms=%s\n", $1, $2, $5, $3, $8, $7}'
}
if [ "${1:-final}" = probe ]; then
  bench new-steady new 60 HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_M=10,25,50,100 HMMGO_SSV_VARIANTS=auto,auto+r2,auto+r1
  bench base-steady base 25 HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_M=10,25,50,100
  NCU=/usr/local/cuda/bin/ncu
  SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats"
  MET="--metrics gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
  for rows in 1 2; do
    HMMGO_SSV_ROWS=$rows HMMGO_SSV_FLOOR=100000000 HMMGO_SSV_FLOOR_M=10,25,50 HMMGO_SSV_FLOOR_NCU=1 timeout 45 $NCU --clock-control none \
      --kernel-name ssv_kernel --launch-skip 1 --launch-count 7 $SEC $MET $d/new/msvfilter.test -test.run TestSSVLaunchFloor > $out/ncu_ssv_rows$rows.txt 2>&1
    echo "== ncu ssv rows=$rows rc=$? t=$(el)"
  done
  for b in new base; do
    HMMGO_GPU_BENCH=100000000 HMMGO_GPU_BENCH_M=10 timeout 30 $NCU --clock-control none --kernel-name msv_kernel --launch-skip 1 --launch-count 1 \
      $SEC $MET $d/$b/msvfilter.test -test.run TestGPUThroughput > $out/ncu_msv_$b.txt 2>&1
    echo "== ncu msv $b rc=$? t=$(el)"
  done
  for f in $out/ncu_*.txt; do echo "## $(basename $f)"; grep -E '^  [a-z_]+_kernel|Duration|SM Active Cycles|Elapsed Cycles|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy|Theoretical Occ|bank_conflicts|wavefronts_mem_shared|inst_executed.sum' $f | sed 's/  */ /g'; done
  exit 0
fi
timeout 170 $d/new/msvfilter.test -test.v -test.run 'TestGPUMatchesCPU|TestGPUConcurrentLaunches' -test.timeout 500s > $out/exact.log 2>&1
echo "== exactness (new) rc=$? t=$(el): $(grep -E '^(--- |ok|FAIL|PASS)' $out/exact.log | tr '\n' ' ')"
grep -E 'differ|GPU .* CPU|error|panic' $out/exact.log | head -6
All=10,25,50,100,200,800,2405
bench new-steady new 30 HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_M=$All
bench base-steady base 30 HMMGO_GPU_BENCH_REPEAT=auto HMMGO_GPU_BENCH_M=$All
bench new-single new 25 HMMGO_GPU_BENCH_M=$All
bench base-single base 25 HMMGO_GPU_BENCH_M=$All
date -u
