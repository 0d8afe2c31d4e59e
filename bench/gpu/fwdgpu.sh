#!/usr/bin/env bash
# bench/gpu/fwdgpu.sh (branch fwdgpu, call 2 of 2026-11-27): one H100, e2e goldens with the Forward filter forced onto the GPU (new; failing cases again alone,
# new and base), then 1,000 models (24 CUDAMPF + 976 families) vs a fresh 175M synthdb: base (main e8d27f4) vs new,
# default rule and HMMGO_GPU_FORWARD=filter, 2 rounds, HMMGO_FWD_LAUNCHES=2 once.
# Build first, from the checkouts being compared, into .dev/fwdgpu/: hmmgo and hmmsearch.test (new), base-hmmgo and
# base-hmmsearch.test (base); carry .dev/fwdgpu .dev/f6/bin.tgz .dev/f8d/data.tgz .dev/f8d/e2e.tgz .dev/f6/ex.tgz.
# Run from the repository root: bash bench/gpu/fwdgpu.sh
# The busy rule was on by default in the build measured (6ceb42a..463a7de); at 6003654 and later it is off, and
# "new-def" needs HMMGO_GPU_FORWARD_COST=busy=0.5 to repeat that run.
set -u
R=$(pwd); F=$R/.dev/fwdgpu; T=/tmp/fwdgpu; O=${OUT:-/tmp/o}; L=$T/logs; rm -rf $T; mkdir -p $T $L /tmp/ex $O
t0=$(date +%s); el() { echo "[$(($(date +%s) - t0)) s]"; }
say() { echo "$@" | tee -a $O/summary.txt; }
tar -xzf .dev/f6/bin.tgz -C . && tar -xzf .dev/f8d/data.tgz -C . && tar -xzf .dev/f8d/e2e.tgz -C . && tar -xzf .dev/f6/ex.tgz -C /tmp/ex
say "$(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $(nproc) cores"
C=16
export HMMGO_KERNEL_CACHE=$T/kc
E2E="HMMGO_GPU_DATA=$R/.dev/e2edata HMMGO_SHARED_DATA=$R/.dev/e2edata HMMGO_HMMER_EXAMPLES=/tmp/ex HMMGO_E2E_OPTS=--gpu"
for f in .dev/models/*.hmm.gz; do zcat "$f"; echo; done > $T/m24.hmm
( $F/hmmgo synthdb -n 175000000 --seed 1 --plant $T/m24.hmm --per-model 20 -o $T/synth.fa >/dev/null 2>&1 && $F/hmmgo makedb $T/synth.fa $T/synth.hmmgo >/dev/null 2>&1
  .dev/bin/hmmbuild --cpu $C --amino $T/fam.hmm .dev/bin/families.sto >/dev/null
  grep -v '^$' $T/m24.hmm > $T/c.hmm; .dev/bin/hmmconvert $T/c.hmm > $T/all.hmm; cat $T/fam.hmm >> $T/all.hmm; say "setup done $(grep -c ^NAME $T/all.hmm) models $(el)"
  /usr/bin/time -f "%e %U %S" -o $L/warm.time env HMMGO_GPU_FORWARD=filter timeout 60 $F/hmmgo hmmsearch --gpu 0 --cpu $C --noali -o /dev/null --tblout $L/warm.tbl $T/all.hmm $T/synth.hmmgo 2> $L/warm.err
  say "warm (kernel cache) rc=$? $(cat $L/warm.time) rows $(grep -vc '^#' $L/warm.tbl) $(el)" ) & p1=$!
( cd hmmer3/hmmsearch && env $E2E HMMGO_GPU_FORWARD=filter timeout 100 $F/hmmsearch.test -test.v -test.run 'TestEndToEnd|TestPreformattedDatabase|TestForward|TestBatcher' -test.timeout 100s > $O/e2e-filter.log 2>&1
  say "hmmsearch e2e --gpu, filter on GPU, new, beside the warm run: rc=$? fail $(grep -c -- '--- FAIL' $O/e2e-filter.log) pass $(grep -c -- '--- PASS' $O/e2e-filter.log) $(el)" ) & p2=$!
wait $p1 $p2
fails=$(grep -- '--- FAIL: TestEndToEnd/' $O/e2e-filter.log | awk '{print $3}' | sed 's/TestEndToEnd\///' | paste -sd'|')
if [ -n "$fails" ]; then
  say "failed: $fails"
  cd hmmer3/hmmsearch
  for v in "new filter:$F/hmmsearch.test:filter" "base filter:$F/base-hmmsearch.test:filter" "new default:$F/hmmsearch.test:" "new cpu:$F/hmmsearch.test:cpu"; do
    IFS=: read lab bin fm <<< "$v"
    env $E2E HMMGO_GPU_FORWARD=$fm timeout 40 $bin -test.v -test.run "TestEndToEnd/($fails)\$" > "$O/alone-${lab// /-}.log" 2>&1
    say "alone, $lab: rc=$? fail $(grep -c -- '--- FAIL' "$O/alone-${lab// /-}.log") pass $(grep -c -- '--- PASS' "$O/alone-${lab// /-}.log") $(el)"
  done
  cd $R
fi
[ -s $T/all.hmm ] && [ -s $T/synth.hmmgo ] || { say "no setup $(el)"; exit 0; }
one() { # label binary [env]
  local l=$1 b=$2; shift 2
  [ $(($(date +%s) - t0)) -lt 218 ] || { say "$l: skipped (time) $(el)"; return; }
  /usr/bin/time -f "%e %U %S" -o $L/$l.time env HMMGO_STAGE_TIMES=1 HMMGO_FWD_TRACE=1 "$@" timeout 30 $b hmmsearch --gpu 0 --cpu $C --noali -o /dev/null --tblout $L/$l.tbl $T/all.hmm $T/synth.hmmgo 2> $L/$l.err
  local tb=$(grep '^fwdbatch' $L/$l.err | awk '{for(i=2;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]} n++; g+=v["gpu"]; c+=v["cpu"]; if (v["busy"]=="true") b++; if (v["gpu"]>0) {gb++; w+=v["wall_ms"]}} END {printf "batches %d (gpu %d, busy %d, %.0f ms) tgt gpu %d cpu %d", n, gb, b, w, g, c}')
  local ln=$(grep '^fwdlaunch' $L/$l.err | awk '{for(i=2;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]} p+=v["plan_ms"]; la+=v["launch_ms"]; k+=v["kernel_ms"]; as+=v["assemble_ms"]} END {printf "plan %.0f launch %.0f kernel %.0f asm %.0f ms", p, la, k, as}')
  local fw=$(grep 'time per stage' $L/$l.err | sed 's/.*Forward \([0-9.]*\)s.*/\1/' | awk '{s+=$1} END {printf "%.1f", s}')
  say "$l: $(awk '{printf "%.2f s wall, %.1f user + %.1f sys = %.1f CPU s", $1, $2, $3, $2+$3}' $L/$l.time) rows $(grep -vc '^#' $L/$l.tbl) md5 $(grep -v '^#' $L/$l.tbl | md5sum | cut -c1-12) fwdstage $fw s; $tb; $ln $(el)"
}
say "== runs $(el)"
for r in 1 2; do
  one base-def-$r $F/base-hmmgo X=1; one new-def-$r $F/hmmgo X=1
  one base-filter-$r $F/base-hmmgo HMMGO_GPU_FORWARD=filter; one new-filter-$r $F/hmmgo HMMGO_GPU_FORWARD=filter
done
one new-def-l2 $F/hmmgo HMMGO_FWD_LAUNCHES=2
say "total $(el)"
for f in $L/*.err; do grep -v "ran from\|^fwd" $f > $f.short; done
grep -h "^fwd" $L/new-def-1.err $L/new-filter-1.err > $L/trace-new-1.txt 2>/dev/null
tar czf $O/logs.tgz -C $T logs/ --exclude='*.tbl' 2>/dev/null; exit 0
