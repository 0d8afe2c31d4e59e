#!/usr/bin/env bash
# The many-model benchmark: the 24 CUDAMPF models plus synthetic families of
# Pfam-like lengths (bench/manymodels, built with HMMER's hmmbuild) against
# one pre-formatted database, in ONE hmmgo run: models per minute and
# whole-run TCUPS (sum of M x residues / wall seconds), the per-stage split,
# and on a sample of SAMPLE models HMMER's hmmsearch, hmmgo --nogpu and
# hmmgo --gpu side by side with their tables compared.
#
#   go run ./bench/manymodels -n 976 > families.sto     # where Go is
#   bash bench/gpu/hmmsearch_1000.sh HMMBUILD(with hmmconvert beside it) HMMSEARCH HMMGO MODELS_DIR families.sto DB.fa DB.hmmgo [CPUS] [SAMPLE]
set -u
hmmbuild=$1 hmmer=$2 hmmgo=$3 models=$4 sto=$5 fa=$6 db=$7 cpus=${8:-$(nproc)} sample=${9:-48}
tmp=$(mktemp -d)
declare -A t
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b-a)/1e9}'; }
summ() { grep '^LENG' "$1" | awk '{s += $2} END {print s}'; }
a=$(date +%s%N); "$hmmbuild" --cpu "$cpus" --amino "$tmp/fam.hmm" "$sto" > /dev/null; b=$(date +%s%N)
# HMMER reads one format per file: the CUDAMPF models (HMMER3/b) go through
# hmmconvert (beside hmmbuild) into hmmbuild's HMMER3/f.
for f in "$models"/*.hmm*; do case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac; echo; done | grep -v '^$' > "$tmp/cudampf.hmm"
"$(dirname "$hmmbuild")/hmmconvert" "$tmp/cudampf.hmm" > "$tmp/all.hmm" || { echo "hmmconvert failed" >&2; exit 1; }
cat "$tmp/fam.hmm" >> "$tmp/all.hmm"
n=$(grep -c '^NAME' "$tmp/all.hmm") sumM=$(summ "$tmp/all.hmm")
res=$("$hmmgo" hmmsearch --nogpu -Z 1 --tblout /dev/null -o "$tmp/res.txt" "$models/100.hmm.gz" "$db" 2>/dev/null; grep -m1 'Target sequences' "$tmp/res.txt" | tr -s ' ' | cut -d'(' -f2 | cut -d' ' -f1)
echo "# $(date -u '+%F %T') UTC; $(nproc) cores; --cpu $cpus; $n models (sum of M $sumM; hmmbuild $(secs $a $b) s); $res residues"
a=$(date +%s%N)
HMMGO_STAGE_TIMES=1 "$hmmgo" hmmsearch --gpu --cpu "$cpus" --noali -o /dev/null --tblout "$tmp/gpu.tbl" "$tmp/all.hmm" "$db" 2> "$tmp/gpu.err"
rc=$? b=$(date +%s%N); s=$(secs $a $b)
echo "hmmgo --gpu, all $n models: $s s, exit $rc; $(awk -v n=$n -v s=$s 'BEGIN{printf "%.0f", n/s*60}') models/min; $(awk -v m=$sumM -v r=$res -v s=$s 'BEGIN{printf "%.2f", m*r/s/1e12}') TCUPS"
grep 'time per stage' "$tmp/gpu.err" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+s;?$/) { v = $i; sub(/s;?$/, "", v); t[$(i-1)] += v } }
  END { printf "  per-query stage wall summed over queries (queries overlap):"; for (k in t) printf " %s %.1f", k, t[k]; print "" }'
grep -v 'time per stage' "$tmp/gpu.err" | head -3
# The sample: every (n/SAMPLE)-th model, all three programs.
awk -v k=$(( n / sample )) '/^HMMER3/ { m++ } (m - 1) % k == 0' "$tmp/all.hmm" > "$tmp/sample.hmm"
ns=$(grep -c '^NAME' "$tmp/sample.hmm") sumS=$(summ "$tmp/sample.hmm")
for p in hmmer cpu gpu; do
  a=$(date +%s%N)
  case $p in
    hmmer) "$hmmer" --cpu "$cpus" --noali -o /dev/null --tblout "$tmp/s-$p.tbl" "$tmp/sample.hmm" "$fa" ;;
    cpu) "$hmmgo" hmmsearch --nogpu --cpu "$cpus" --noali -o /dev/null --tblout "$tmp/s-$p.tbl" "$tmp/sample.hmm" "$db" 2>/dev/null ;;
    gpu) "$hmmgo" hmmsearch --gpu --cpu "$cpus" --noali -o /dev/null --tblout "$tmp/s-$p.tbl" "$tmp/sample.hmm" "$db" 2>/dev/null ;;
  esac
  rc=$? b=$(date +%s%N); t[$p]=$(secs $a $b); [ $rc = 0 ] || rm -f "$tmp/s-$p.tbl"
  echo "sample of $ns models (sum of M $sumS), $p: ${t[$p]} s, exit $rc, $(awk -v m=$sumS -v r=$res -v s=${t[$p]} 'BEGIN{printf "%.0f", m*r/s/1e9}') GCUPS"
done
for p in cpu gpu; do
  if [ -s "$tmp/s-hmmer.tbl" ] && [ -s "$tmp/s-$p.tbl" ] && cmp -s <(grep -v '^#' "$tmp/s-hmmer.tbl" | tr -s ' ') <(grep -v '^#' "$tmp/s-$p.tbl" | tr -s ' '); then
    echo "sample tables hmmer vs $p: identical ($(grep -vc '^#' "$tmp/s-$p.tbl") rows); HMMER/hmmgo $(awk -v a=${t[hmmer]} -v b=${t[$p]} 'BEGIN{printf "%.2f", a/b}')x"
  else echo "sample tables hmmer vs $p: DIFFERENT"; fi
done
rm -rf "$tmp"
