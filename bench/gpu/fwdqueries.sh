#!/usr/bin/env bash
# bench/gpu/fwdqueries.sh: the GPU Forward filter forced, with bigger batches (more queries in flight), on one GPU (MODE=1) or two (MODE=2, one-GPU baseline in the same call); 1,000 models, 175M synthdb.
# Build: CGO_ENABLED=0 go build -o .dev/lead/hmmgo ./cmd/hmmgo; copy this to .dev/lead/q.sh; carry .dev/lead .dev/f6/bin.tgz .dev/f8d/data.tgz; run: [MODE=2] bash .dev/lead/q.sh
set -u
R=$(pwd); F=$R/.dev/lead; T=/tmp/lq; O=${OUT:-/tmp/o}; L=$T/logs; rm -rf $T; mkdir -p $T $L /tmp/ex $O
t0=$(date +%s); el() { echo "[$(($(date +%s) - t0)) s]"; }
say() { echo "$@" | tee -a $O/summary.txt; }
tar -xzf .dev/f6/bin.tgz -C . && tar -xzf .dev/f8d/data.tgz -C .
NG=${NG:-0}; C=$(nproc)
say "$(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | paste -sd' ') $C cores gpus=$NG"
export HMMGO_KERNEL_CACHE=$T/kc
for f in .dev/models/*.hmm.gz; do zcat "$f"; echo; done > $T/m24.hmm
( $F/hmmgo synthdb -n 175000000 --seed 1 --plant $T/m24.hmm --per-model 20 -o $T/synth.fa >/dev/null 2>&1 && $F/hmmgo makedb $T/synth.fa $T/synth.hmmgo >/dev/null 2>&1 ) &
.dev/bin/hmmbuild --cpu $C --amino $T/fam.hmm .dev/bin/families.sto >/dev/null
grep -v '^$' $T/m24.hmm > $T/c.hmm; .dev/bin/hmmconvert $T/c.hmm > $T/all.hmm; cat $T/fam.hmm >> $T/all.hmm; wait
say "setup $(grep -c ^NAME $T/all.hmm) models $(el)"
one() { # label [env]
  local l=$1; shift; local ng=${NG:-0}
  [ $(($(date +%s) - t0)) -lt ${TMAX:-215} ] || { say "$l: skipped (time)"; return; }
  /usr/bin/time -f "%e %U %S" -o $L/$l.time env HMMGO_STAGE_TIMES=1 HMMGO_FWD_TRACE=1 "$@" timeout 40 $F/hmmgo hmmsearch --gpu $ng --cpu $C --noali -o /dev/null --tblout $L/$l.tbl $T/all.hmm $T/synth.hmmgo 2> $L/$l.err
  local tb=$(grep '^fwdbatch' $L/$l.err | awk '{for(i=2;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]} n++; q+=v["queries"]; g+=v["gpu"]; c+=v["cpu"]} END {printf "batches %d (%.1f q/batch) tgt gpu %d cpu %d", n, (n?q/n:0), g, c}')
  local ln=$(grep '^fwdlaunch' $L/$l.err | awk '{for(i=2;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]} p+=v["plan_ms"]; k+=v["kernel_ms"]} END {printf "plan %.0f kernel %.0f ms", p, k}')
  say "$l: $(awk '{printf "%.2f s wall, %.1f CPU s", $1, $2+$3}' $L/$l.time) rows $(grep -vc '^#' $L/$l.tbl) md5 $(grep -v '^#' $L/$l.tbl | md5sum | cut -c1-12); $tb; $ln $(el)"
}
NG=0 one warm HMMGO_GPU_FORWARD=filter
if [ "${MODE:-1}" = 2 ]; then
for r in 1 2; do
  NG=0 one one-def-$r X=1
  NG=all one two-def-$r X=1
  NG=all one two-fil24-$r HMMGO_GPU_FORWARD=filter HMMGO_GPU_QUERIES=24
  NG=all one two-busy24-$r HMMGO_GPU_FORWARD_COST=busy=0.5 HMMGO_GPU_QUERIES=24
  NG=all one two-def24-$r HMMGO_GPU_QUERIES=24
done
else
for r in 1 2; do
  one def12-$r X=1
  one fil12-$r HMMGO_GPU_FORWARD=filter
  one fil24-$r HMMGO_GPU_FORWARD=filter HMMGO_GPU_QUERIES=24
  one fil48-$r HMMGO_GPU_FORWARD=filter HMMGO_GPU_QUERIES=48
  one busy24-$r HMMGO_GPU_FORWARD_COST=busy=0.5 HMMGO_GPU_QUERIES=24
done
fi
say "total $(el)"
tar czf $O/logs.tgz -C $T logs/ --exclude='*.tbl' 2>/dev/null; exit 0
