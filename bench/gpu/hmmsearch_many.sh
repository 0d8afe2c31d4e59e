#!/usr/bin/env bash
# All 24 CUDAMPF models in ONE run against one database: HMMER 3.3.2
# hmmsearch --cpu N, hmmgo --nogpu --cpu N, hmmgo --gpu --cpu N. Wall time
# of each, GCUPS over the set (sum of M x residues / seconds) and a check
# that the three --tblout tables agree field by field.
#
#   bash bench/gpu/hmmsearch_many.sh HMMSEARCH HMMGO MODELS_DIR DB.fa [DB.hmmgo] [CPUS]
set -u
hmmer=$1 hmmgo=$2 models=$3 fa=$4 db=${5:-$4} cpus=${6:-$(nproc)}
tmp=$(mktemp -d)
for f in "$models"/*.hmm*; do case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac; echo; done > "$tmp/all.hmm"
sumM=0; for m in $(grep '^LENG' "$tmp/all.hmm" | tr -s ' ' | cut -d' ' -f2); do sumM=$((sumM + m)); done
run() { # name, command...
  local name=$1; shift
  local t0=$(date +%s%N)
  "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
  local rc=$? t1=$(date +%s%N)
  grep -v '^#' "$tmp/$name.tbl" | tr -s ' ' > "$tmp/$name.norm"
  local ms=$(( (t1 - t0) / 1000000 ))
  local L=$(grep -m1 'Target sequences' "$tmp/$name.txt" | tr -s ' ' | cut -d'(' -f2 | cut -d' ' -f1)
  printf '%-6s %9.2f s  exit %d  %8.1f GCUPS\n' "$name" "$(awk -v t="$ms" 'BEGIN{print t/1000}')" "$rc" "$(awk -v m="$sumM" -v l="${L:-0}" -v t="$ms" 'BEGIN{print m*l/(t/1000)/1e9}')"
}
echo "# $(date -u '+%F %T') UTC; $(nproc) cores; --cpu $cpus; models: $(grep -c '^NAME' "$tmp/all.hmm") (sum of M = $sumM)"
run hmmer "$hmmer" --cpu "$cpus" --noali -o "$tmp/hmmer.txt" --tblout "$tmp/hmmer.tbl" "$tmp/all.hmm" "$fa"
run cpu "$hmmgo" hmmsearch --nogpu --cpu "$cpus" --noali -o "$tmp/cpu.txt" --tblout "$tmp/cpu.tbl" "$tmp/all.hmm" "$db"
run gpu "$hmmgo" hmmsearch --gpu --cpu "$cpus" --noali -o "$tmp/gpu.txt" --tblout "$tmp/gpu.tbl" "$tmp/all.hmm" "$db"
echo "# residues per query: $(grep -m1 'Target sequences' "$tmp/hmmer.txt" | tr -s ' ' | cut -d'(' -f2 | cut -d' ' -f1)"
for n in cpu gpu; do
  if cmp -s "$tmp/hmmer.norm" "$tmp/$n.norm"; then echo "tables hmmer vs $n: identical ($(wc -l < "$tmp/$n.norm") rows)"; else echo "tables hmmer vs $n: DIFFERENT"; diff "$tmp/hmmer.norm" "$tmp/$n.norm" | head -5; fi
done
for n in cpu gpu; do
  grep -v 'time per stage' "$tmp/$n.err" | head -3
  # With HMMGO_STAGE_TIMES set: per-stage seconds summed over the queries
  # (CPU seconds of all workers for cpu, wall seconds for gpu).
  grep 'time per stage' "$tmp/$n.err" | awk -v n="$n" '{
      for (i = 2; i <= NF; i++) {
        if ($i ~ /^[0-9.]+s;?$/ && $(i-1) ~ /^[A-Za-z]+$/) { v = $i; sub(/s;?$/, "", v); t[$(i-1)] += v }
        if ($i == "wall" && $(i-1) ~ /^[0-9.]+s$/) { v = $(i-1); sub(/s$/, "", v); g += v }
      } }
    END { if (length(t)) { printf "hmmgo %s seconds per stage over all queries:", n; for (k in t) printf " %s %.2f", k, t[k]; if (g) printf "; staged search wall %.2f", g; print "" } }'
done
echo "per-stage (hmmgo --gpu, first query):"; grep -m4 'Passed' "$tmp/gpu.txt"
