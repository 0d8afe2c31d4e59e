#!/usr/bin/env bash
# The bias filter on the GPU (hmmer3/biasfilter), on the GPU host, from the
# repository root, with .dev carried (built here by bench/gpu/build_bias.sh;
# builds nothing itself). Under 4 minutes on an H100 host:
#   1. the kernel against FilterScore, bit for bit: the test binary's
#      emulated and device tests, the device test with the CUDAMPF models
#      against a proteome (HMMGO_GPU_DATA);
#   2. kernel throughput on 175M synthetic residues, all and a 3% subset;
#   3. hmmsearch --gpu, the 24 CUDAMPF models against a 175M-residue
#      synthetic database, with the bias filter on the GPU (default) and
#      on the CPU workers (HMMGO_GPU_BIAS=cpu): wall time, per-stage wall
#      summed over queries (HMMGO_STAGE_TIMES=1), process CPU seconds, and
#      the two --tblout tables compared (they must be identical).
#   bash bench/gpu/bias.sh [CPUS]
set -u
out=${OUT:-/tmp/hmmgo-bias}
mkdir -p "$out"
cpus=${1:-$(nproc)}
data=$(pwd)/.dev/gpudata
[ -d .dev/e2edata/CUDAMPF ] && data=$(pwd)/.dev/e2edata
export HMMGO_GPU_DATA=$data HMMGO_KERNEL_CACHE="$out/kernel-cache"
hmmgo=$(pwd)/.dev/hmmgo
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/host.txt" 2>&1
echo "# $(date -u '+%F %T') UTC; $(nproc) cores; --cpu $cpus; $(tail -1 "$out/host.txt")"

# 1. Exactness.
(cd hmmer3/biasfilter && ../../.dev/biasfilter.test -test.v -test.run 'OnCPU|NVPTX|TestGPUMatchesCPU' -test.timeout 200s) > "$out/exact.log" 2>&1
echo "exactness: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/exact.log" | tr '\n' ' ')"
grep -E 'targets bit for bit' "$out/exact.log" | awk '{ n += $(NF-4) } END { print "  GPU and emulated targets compared bit for bit:", n+0 }'
grep -E 'differ|GPU .* CPU|error|SKIP|skip' "$out/exact.log" | head -8

# 2. Kernel throughput.
(cd hmmer3/biasfilter && HMMGO_GPU_BENCH=175000000 ../../.dev/biasfilter.test -test.v -test.run 'TestGPUThroughput' -test.timeout 200s) > "$out/throughput.log" 2>&1
echo "== kernel throughput"; grep -v -E '^(=== RUN|--- |PASS|ok)' "$out/throughput.log"

# 3. hmmsearch --gpu, bias on the GPU and on the CPU.
models=$data/CUDAMPF/query_models
for f in "$models"/*.hmm*; do case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac; echo; done > "$out/all.hmm"
"$hmmgo" synthdb -n 175000000 --seed 1 --plant "$out/all.hmm" --per-model 20 -o "$out/db.fa"
"$hmmgo" makedb "$out/db.fa" "$out/db.hmmgo" > /dev/null
rm -f "$out/db.fa"
for mode in gpu cpu; do
  a=$(date +%s%N)
  TIMEFORMAT='%U %S'
  { time HMMGO_STAGE_TIMES=1 HMMGO_GPU_BIAS=$mode \
    "$hmmgo" hmmsearch --gpu --cpu "$cpus" --noali -o "$out/$mode.txt" --tblout "$out/$mode.tbl" "$out/all.hmm" "$out/db.hmmgo" 2> "$out/$mode.err"; } 2> "$out/$mode.cpu"
  rc=$? b=$(date +%s%N)
  printf 'hmmsearch --gpu, bias on %s: %.2f s wall, exit %d, %s CPU s (user+sys)\n' "$mode" "$(awk -v a=$a -v b=$b 'BEGIN{print (b-a)/1e9}')" $rc \
    "$(awk '{print $1+$2}' "$out/$mode.cpu" 2>/dev/null)"
  grep 'time per stage' "$out/$mode.err" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.]+s;?$/ && $(i-1) ~ /^[A-Za-z]+$/) { v = $i; sub(/s;?$/, "", v); t[$(i-1)] += v } }
    END { printf "  stage wall summed over queries:"; for (k in t) printf " %s %.2f", k, t[k]; print "" }'
  grep -v 'time per stage' "$out/$mode.err" | head -3
done
if [ ! -s "$out/gpu.tbl" ] || [ ! -s "$out/cpu.tbl" ]; then
  echo "tables bias-gpu vs bias-cpu: MISSING (a run failed)"
elif cmp -s <(grep -v '^#' "$out/gpu.tbl") <(grep -v '^#' "$out/cpu.tbl"); then
  echo "tables bias-gpu vs bias-cpu: identical ($(grep -vc '^#' "$out/gpu.tbl") rows)"
else
  echo "tables bias-gpu vs bias-cpu: DIFFERENT"; diff <(grep -v '^#' "$out/gpu.tbl") <(grep -v '^#' "$out/cpu.tbl") | head -5
fi
grep -m3 -E 'Passed (MSV|bias)' "$out/gpu.txt" 2>/dev/null
rm -f "$out/db.hmmgo"
