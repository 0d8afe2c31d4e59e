#!/usr/bin/env bash
# hmmsearch end to end on the GPU host with the Viterbi filter's DPX
# kernel: the 24 CUDAMPF models against the pyhmmer proteome with --gpu
# and with --nogpu (tables must be identical), then the worker's GPU task
# path against the CPU pipeline (TestGPUTasksMatchCPU).
#   bash bench/gpu/vf16_e2e.sh DIR   (DIR as for vf16.sh, with hmmgo and hmmsearch.test)
set -u
dir=$1
tmp=$(mktemp -d)
for f in "$dir"/gpudata/CUDAMPF/query_models/*.hmm.gz; do zcat "$f"; echo; done > "$tmp/all.hmm"  # the files lack a final newline
db=$dir/gpudata/pyhmmer/seqs/938293.PRJEB85.HG003687.faa
export HMMGO_KERNEL_CACHE=${OUT:-$tmp}/kernel-cache
for mode in nogpu gpu; do
  t0=$(date +%s%N)
  timeout ${E2E_S:-60} "$dir/hmmgo" hmmsearch --$mode --cpu 16 --noali -o "$tmp/$mode.txt" --tblout "$tmp/$mode.tbl" "$tmp/all.hmm" "$db" 2> "$tmp/$mode.err"
  rc=$?; t1=$(date +%s%N)
  grep -v '^#' "$tmp/$mode.tbl" | tr -s ' ' > "$tmp/$mode.norm"
  echo "hmmsearch --$mode: exit $rc, $(( (t1 - t0) / 1000000 )) ms, $(wc -l < "$tmp/$mode.norm") hits"
  head -3 "$tmp/$mode.err"
done
if cmp -s "$tmp/nogpu.norm" "$tmp/gpu.norm"; then echo "tables --gpu vs --nogpu: identical"; else echo "tables --gpu vs --nogpu: DIFFERENT"; diff "$tmp/nogpu.norm" "$tmp/gpu.norm" | head -5; fi
(cd hmmer3/hmmsearch && timeout ${TASKS_S:-60} "$(pwd)/../../$dir/hmmsearch.test" -test.v -test.run 'TestGPUTasksMatchCPU' 2>&1 | grep -E '^(--- |ok|FAIL|PASS)|identical|differs' | head -5)
