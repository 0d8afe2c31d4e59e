#!/usr/bin/env bash
# Batched Forward on the GPU (issue 5): exactness, then hmmsearch --gpu with
# Forward chosen by the cost rule (HMMGO_GPU_FORWARD unset), forced onto the
# CPU (=cpu) and forced onto the GPU (=gpu), on the 24 CUDAMPF models and on
# small models, against a 175M-residue synthetic database. Prints wall
# times, per-stage sums, whether the three tables agree, and what the cost
# rule's constants should be (see "reading the output" below).
#
#   sh bench/gpu/build_fwd_batch.sh        # here, where Go is; carry .dev
#   bash bench/gpu/fwd_batch.sh [CPUS] [FAMILIES]   # on the GPU host
#
# FAMILIES (default 400) is how many of .dev/families.sto's small families
# to search (all 976 take about three times as long). The database is made
# once into .dev/fwdbatch-db/ and reused. Runtime about 4-5 minutes.
#
# Reading the output. Each batch prints a trace line (HMMGO_FWD_TRACE):
#   fwdbatch queries= targets= gpu= cpu= gpu_cells= cpu_cells= max_rowq=
#            est_gpu_ms= est_cpu_ms= est_allcpu_ms= wall_ms=
# The "fit" lines below derive the constants of forwardCost
# (hmmer3/hmmsearch/fwdbatch.go) from the =gpu runs, where every batch
# launches everything:
#   rowns     = the 10th percentile of wall_ms*1e6/max_rowq (batches whose
#               time the longest target sets); the default is 1000.
#   gcups     = the 90th percentile of gpu_cells/(wall_ms*1e6) (full
#               batches); the default is 40.
#   launchms  = the 10th percentile of wall_ms over all batches; default 2.
#   coregcups = all Forward cells (the =gpu run's gpu_cells) / (the =cpu
#               run's Forward stage walls summed x CPUS): a lower bound,
#               since the queries in flight share the cores; default 0.5.
# Try them without a rebuild: HMMGO_GPU_FORWARD_COST=rowns=..,gcups=..,
# launchms=..,coregcups=..,cores=.. (the script's last runs do this with
# the fitted values), then set defaultForwardCost to the values that give
# the best "default" wall time. est_gpu_ms against wall_ms on the default
# runs' trace lines shows how good the model is.
set -u
cpus=${1:-$(nproc)} nfam=${2:-400}
out=${OUT:-/tmp/hmmgo-fwdbatch}
mkdir -p "$out"
for f in .dev/hmmgo .dev/fwdback.test .dev/bin/hmmbuild .dev/families.sto; do
  [ -e "$f" ] || { echo "fwd_batch.sh: $f missing (see bench/gpu/build_fwd_batch.sh)" >&2; exit 2; }
done
hmmgo=$(pwd)/.dev/hmmgo
export HMMGO_KERNEL_CACHE="$out/kernel-cache"
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b-a)/1e9}'; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 | sed 's/^/host: /'
echo "# $(date -u '+%F %T') UTC; $(nproc) cores; --cpu $cpus; $nfam small families"

# (a) Exactness of the batched kernel (and the single-query one) on this GPU.
(cd hmmer3/fwdback && timeout 150 ../../.dev/fwdback.test -test.v -test.run 'TestGPUBatchMatchesCPU|TestGPUMatchesCPU' -test.timeout 140s) > "$out/exact.log" 2>&1
echo "exactness: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/exact.log" | tr '\n' ' ')"
grep -E 'differ|GPU .* CPU|error|panic|skip' "$out/exact.log" | head -8

# The models: the 24 CUDAMPF models, and small families built by hmmbuild.
for f in .dev/models/*.hmm*; do case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac; echo; done | grep -v '^$' > "$out/cudampf.hmm"
awk -v n="$nfam" '{ print } /^\/\/$/ { if (++k >= n) exit }' .dev/families.sto > "$out/fam.sto"
a=$(date +%s%N); .dev/bin/hmmbuild --cpu "$cpus" --amino "$out/fam.hmm" "$out/fam.sto" > /dev/null; b=$(date +%s%N)
echo "hmmbuild $(grep -c '^NAME' "$out/fam.hmm") families: $(secs $a $b) s"

# The database: 175M synthetic residues with 20 planted homologs of each
# CUDAMPF model (the database of docs/BENCHMARKS.md; synthdb reads one
# model format per file, and the families are HMMER3/f).
db=.dev/fwdbatch-db
if [ ! -s "$db/db.hmmgo" ]; then
  mkdir -p "$db"
  cp "$out/cudampf.hmm" "$db/plant.hmm"
  a=$(date +%s%N)
  "$hmmgo" synthdb -n 175000000 --seed 1 --plant "$db/plant.hmm" --per-model 20 -o "$db/db.fa" &&
    "$hmmgo" makedb "$db/db.fa" "$db/db.hmmgo" && rm -f "$db/db.fa"
  b=$(date +%s%N); echo "database: $(secs $a $b) s"
fi
[ -s "$db/db.hmmgo" ] || { echo "fwd_batch.sh: no database" >&2; exit 1; }

# (b) The runs. mode: default (rule), cpu, gpu, fit (rule with fitted constants).
run() { # set mode cost
  local set=$1 mode=$2 cost=${3:-}
  local fwd=$mode; [ "$mode" = default ] || [ "$mode" = fit ] && fwd=
  local a=$(date +%s%N)
  HMMGO_STAGE_TIMES=1 HMMGO_FWD_TRACE=1 HMMGO_GPU_FORWARD=$fwd HMMGO_GPU_FORWARD_COST=$cost \
    "$hmmgo" hmmsearch --gpu --cpu "$cpus" --noali -o /dev/null --tblout "$out/$set-$mode.tbl" "$out/$set.hmm" "$db/db.hmmgo" 2> "$out/$set-$mode.err"
  local rc=$? b=$(date +%s%N)
  grep -v '^#' "$out/$set-$mode.tbl" | tr -s ' ' > "$out/$set-$mode.norm"
  printf '%-8s %-8s %7s s  exit %d  ' "$set" "$mode" "$(secs $a $b)" "$rc"
  awk '/time per stage/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+s;?$/ && $(i-1) ~ /^[A-Za-z]+$/) { v = $i; sub(/s;?$/, "", v); t[$(i-1)] += v } }
       /^fwdbatch/ { nb++; for (i = 2; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] } }
       END { printf "stages:"; for (k in t) printf " %s %.1f", k, t[k];
             if (nb) printf "; %d batches, %.1f queries each, targets gpu %d cpu %d, batch wall %.2f s", nb, s["queries"]/nb, s["gpu"], s["cpu"], s["wall_ms"]/1000;
             print "" }' "$out/$set-$mode.err"
  grep -v -E 'time per stage|^fwdbatch' "$out/$set-$mode.err" | head -3
}
fit() { # the constants from the =gpu and =cpu runs of a set
  local set=$1
  grep '^fwdbatch' "$out/$set-gpu.err" | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (v["gpu"] > 0 && v["wall_ms"] > 0) { n++; r[n] = v["wall_ms"] * 1e6 / v["max_rowq"]; g[n] = v["gpu_cells"] / (v["wall_ms"] * 1e6); w[n] = v["wall_ms"] } }
    function pct(a, p,   k, m, i, j, t) { m = 0; for (k in a) m++; for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      i = int(p * m); if (i < 1) i = 1; return a[i] }
    END { if (n) printf "rowns=%.0f,gcups=%.1f,launchms=%.2f", pct(r, 0.1), pct(g, 0.9), pct(w, 0.1) }'
}
coregcups() { # all Forward cells (=gpu trace) / (Forward stage wall of the =cpu run x cpus)
  local set=$1 cells wall
  cells=$(awk '/^fwdbatch/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "gpu_cells") c += kv[2] } } END { print c + 0 }' "$out/$set-gpu.err")
  wall=$(awk '/time per stage/ { for (i = 1; i <= NF; i++) if ($(i-1) == "Forward") { v = $i; sub(/s;?$/, "", v); t += v } } END { print t + 0 }' "$out/$set-cpu.err")
  awk -v c="$cells" -v w="$wall" -v n="$cpus" 'BEGIN { if (c > 0 && w > 0) printf "%.2f", c / (w * n) / 1e9 }'
}
for set in cudampf fam; do
  for mode in default cpu gpu; do run $set $mode; done
  for m in cpu gpu; do
    if cmp -s "$out/$set-default.norm" "$out/$set-$m.norm"; then echo "  tables default vs $m: identical ($(wc -l < "$out/$set-$m.norm") rows)"
    else echo "  tables default vs $m: DIFFERENT"; diff "$out/$set-default.norm" "$out/$set-$m.norm" | head -4; fi
  done
done
c=$(fit fam)
cg=$(coregcups fam)
[ -n "$c" ] && c="$c,cores=$cpus"
echo "fit from the small families' =gpu run: ${c:-none}; coregcups >= ${cg:-?} (a lower bound: the =cpu run's Forward stage walls overlap, 6 queries in flight)"
echo "fit from the CUDAMPF =gpu run: $(fit cudampf)"
if [ -n "$c" ]; then
  for set in cudampf fam; do run $set fit "$c"; done
  for set in cudampf fam; do cmp -s "$out/$set-default.norm" "$out/$set-fit.norm" && echo "  $set tables default vs fit: identical" || echo "  $set tables default vs fit: DIFFERENT"; done
fi
echo "traces and logs: $out/*.err"
