#!/usr/bin/env bash
# The SSV filter's per-launch "floor" (issue 4). Build here first:
#   d=.dev/ssvfloor; mkdir -p $d/new $d/base
#   CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o $d/new/msvfilter.test ./hmmer3/msvfilter
#   (the same from a checkout of the baseline into $d/base/msvfilter.test)
#   cp -r <CUDAMPF/query_models, pyhmmer/seqs/...faa> $d/gpudata/
# then on the GPU host, from the repository root, with $d carried:
#   D=$d bash $d/ssvfloor.sh probe   # TestSSVLaunchFloor (1M and 100M residues) and ncu
#   D=$d bash $d/ssvfloor.sh final   # exactness, then GCUPS before/after, single and steady
set -u
d=$(pwd)/${D:-.dev/ssvfloor}
out=${OUT:-/tmp/ssvfloor}; mkdir -p "$out"
export HMMGO_KERNEL_CACHE=/tmp/ssvfloor-kc HMMGO_GPU_DATA=$d/gpudata HMMGO_GPU_BENCH_MSV=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u
T=$d/new/msvfilter.test
cd hmmer3/msvfilter
if [ "${1:-final}" = probe ]; then
  for db in 1000000:10,100,800 100000000:10,50; do
    HMMGO_SSV_FLOOR=${db%:*} HMMGO_SSV_FLOOR_M=${db#*:} timeout 50 $T -test.v -test.run TestSSVLaunchFloor > $out/floor-${db%:*}.log 2>&1
    echo "== probe ${db%:*} rc=$?"; grep -v -E '^(=== RUN|PASS|ok)' $out/floor-${db%:*}.log
  done
  NCU=/usr/local/cuda/bin/ncu
  HMMGO_SSV_FLOOR=1000000 HMMGO_SSV_FLOOR_M=10 HMMGO_SSV_FLOOR_NCU=1 timeout 35 $NCU --clock-control none \
    --kernel-name regex:'ssv_kernel|empty_kernel' --launch-skip 1 --launch-count 4 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --metrics gpu__time_duration.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max,sm__ctas_launched.sum,sm__warps_launched.sum \
    $T -test.run TestSSVLaunchFloor > $out/ncu_sections.txt 2>&1
  grep -E 'ssv_kernel|empty_kernel|Duration|SM Active Cycles|Achieved Occ|Registers Per' $out/ncu_sections.txt
  HMMGO_SSV_FLOOR=1000000,100000000 HMMGO_SSV_FLOOR_M=10,100,800 HMMGO_SSV_FLOOR_NCU=1 timeout 40 $NCU --clock-control none \
    --cache-control none --kernel-name regex:'ssv_kernel|empty_kernel' --metrics gpu__time_duration.sum,sm__cycles_active.avg --csv \
    $T -test.run TestSSVLaunchFloor > $out/ncu_times.csv 2>&1
  grep -E '^"[0-9]' $out/ncu_times.csv | sed 's/^"//; s/"$//' | awk -F'","' '{k=$1; if (!(k in nm)) {ord[++n]=k; nm[k]=$5} v[k]=v[k]" "$(NF-2)"="$NF} END {for (i=1;i<=n;i++) print ord[i], nm[ord[i]], v[ord[i]]}'
  exit 0
fi
timeout 72 $T -test.v -test.run 'TestGPUMatchesCPU|TestGPUConcurrentLaunches' -test.timeout 500s > $out/exact.log 2>&1
echo "== exactness (new) rc=$?: $(grep -E '^(--- |ok|FAIL|PASS)' $out/exact.log | tr '\n' ' ')"
grep -E 'differ|GPU .* CPU|error|panic' $out/exact.log | head -6
Ms=10,25,50,100,150,200,400,800,2405
bench() { # tag binary-dir residues timeout [env...]
  local tag=$1 bin=$2 n=$3 to=$4; shift 4
  env "$@" HMMGO_GPU_BENCH=$n HMMGO_GPU_BENCH_M=${BM:-$Ms} timeout $to $d/$bin/msvfilter.test -test.v -test.run TestGPUThroughput -test.timeout 500s > $out/$tag.log 2>&1
  echo "== $tag rc=$?"; grep -E '^[0-9]+ ' $out/$tag.log
}
bench new-single new 100000000 24
bench base-single base 100000000 24
bench new-steady new 100000000 34 HMMGO_GPU_BENCH_REPEAT=auto HMMGO_SSV_VARIANTS=auto,auto+n12
bench base-steady base 100000000 24 HMMGO_GPU_BENCH_REPEAT=auto
BM=10,100,800 bench new-1M new 1000000 8
BM=10,100,800 bench base-1M base 1000000 8
date -u
