#!/usr/bin/env bash
# Fused vs GKL arithmetic of `hmmgo pairhmm` on the GPU (issue 6), in two steps:
#
#   here (Go, no GPU):  bash bench/pairhmm_fused.sh build [GPH_GITDIR]
#   GPU host (no Go):   bash .dev/phfused/run.sh run
#                       (from the repository root with .dev/phfused carried)
#
# build: .dev/phfused/{hmmgo,pairhmm.test,pairhmmcmd.test}, the shared PairHMM
#        sets and equal-length synthetic files (100x300, 150x300, 250x500, 18.4
#        G cells each; mix), ~45 MB, and this script as run.sh; with a git dir
#        of gpuPairHMM's public source, a copy in .dev/phfused/gph-src (never
#        committed).
# run:   gpuPairHMM built in the background; the GPU tests (fused, every
#        variant, bit for bit against the CPU); BenchmarkGPUVariants (every
#        variant in both arithmetics); per file hmmgo --gpu with --arith gkl
#        and fused and gpuPairHMM, twice each (wall s, kernel TCUPS, its own
#        GCUPS); the command's GPU tests. About 75 s on an H100.
set -uo pipefail
root=$(pwd)
D=$root/.dev/phfused

build() {
	set -e
	local shared=${HMMGO_SHARED_DATA:-../shared/data} flags=(-trimpath -ldflags=-s -ldflags=-w)
	export CGO_ENABLED=0
	mkdir -p $D/data/PairHMM/generated
	go build "${flags[@]}" -o $D/hmmgo ./cmd/hmmgo
	go test -c "${flags[@]}" -o $D/pairhmm.test ./pairhmm
	go test -c "${flags[@]}" -o $D/pairhmmcmd.test ./internal/pairhmmcmd
	cp "$shared"/PairHMM/{tiny.in,10s.in,1m.in.gz} $D/data/PairHMM/
	cp "$shared"/PairHMM/generated/* $D/data/PairHMM/generated/
	go build -o $D/synth ./bench/pairhmmsynth
	$D/synth -records 600 -reads 64 -haps 16 -readlen 100 -haplen 300 | gzip -6 > $D/data/equal100x300.in.gz
	$D/synth -records 400 -reads 64 -haps 16 -readlen 150 -haplen 300 | gzip -6 > $D/data/equal150x300.in.gz
	$D/synth -records 144 -reads 64 -haps 16 -readlen 250 -haplen 500 | gzip -6 > $D/data/equal250x500.in.gz
	$D/synth -mix -records 300 -seed 2 | gzip -6 > $D/data/mix.in.gz
	rm -f $D/synth
	if [ -n "${1:-}" ]; then
		rm -rf $D/gph-src && mkdir -p $D/gph-src
		git --git-dir="$1" archive HEAD | tar -x -C $D/gph-src
	fi
	cp "$0" $D/run.sh
	du -sh $D
}

run() {
	export HMMGO_SHARED_DATA=$D/data HMMGO_KERNEL_CACHE=/tmp/phk
	W=$(mktemp -d)
	left() { echo $((225 - SECONDS)); }
	echo "host: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1); $(nproc) cores; $(date -u +%FT%TZ)"
	# gpuPairHMM build in the background (never committed)
	[ -d $D/gph-src ] && cp -r $D/gph-src $W/gph
	( cd $W/gph && timeout 150 make -j4 GPUARCH=90 TUNINGARCH=90 gpuPairHMM > $O/gph-build.log 2>&1; echo "gph build rc $? at ${SECONDS}s" >> $O/gph-build.log ) &
	bpid=$!
	# 1. GPU tests: fused (every variant) and default, bit for bit against the CPU
	(cd pairhmm && timeout 90 $D/pairhmm.test -test.v -test.count=1 -test.run '^(TestGPUFused|TestGPUSharedSets|TestGPUSynthetic|TestGPUVariants)$' -test.timeout 89s) > $O/test-pairhmm.log 2>&1
	echo "test pairhmm: rc $? at ${SECONDS}s: $(grep -c '^--- PASS' $O/test-pairhmm.log) pass, $(grep -c '^--- FAIL' $O/test-pairhmm.log) fail, skip: $(grep '^--- SKIP' $O/test-pairhmm.log | awk '{print $3}' | tr '\n' ' ')"
	grep -E 'FAIL|differ|gpu_test.go:[0-9]+: fused' $O/test-pairhmm.log | head -12
	# 2. peak: every variant in both arithmetics on equal batches
	t=$(( $(left) - 60 )); [ $t -gt 80 ] && t=80
	(cd pairhmm && timeout $t $D/pairhmm.test -test.run '^$' -test.bench 'GPUVariants' -test.benchtime 3x -test.timeout ${t}s) > $O/bench.log 2>&1
	echo "bench: rc $? at ${SECONDS}s"
	grep '^BenchmarkGPU' $O/bench.log | awk '{n=$1; sub(/^BenchmarkGPUVariants\//,"",n); sub(/-[0-9]+$/,"",n); k=e="?"; for(i=2;i<NF;i++){if($(i+1)=="TCUPS-kernel")k=$i; if($(i+1)=="TCUPS-e2e")e=$i} printf "  %-22s kernels %s TCUPS, end to end %s\n", n, k, e}'
	# 3. whole commands: hmmgo gkl / fused / gpuPairHMM on the same files
	wait $bpid; tail -1 $O/gph-build.log
	gph=$W/gph/gpuPairHMM; [ -x $gph ] || gph=
	for f in equal100x300 equal150x300 equal250x500 mix 10s 1m; do
	  [ $(left) -lt 12 ] && { echo "out of time before $f"; break; }
	  src=$D/data/$f.in.gz; [ -e $src ] || src=$D/data/PairHMM/$f.in; [ -e $src ] || src=$D/data/PairHMM/$f.in.gz
	  zcat -f $src > $W/in
	  line="$f:"
	  for mode in gkl fused gkl/tuned fused/tuned; do
	    a=${mode%/*}; v=; [ "$mode" != "$a" ] && v=${mode#*/}
	    for rep in 1 2; do
	      t0=$(date +%s.%N)
	      HMMGO_PAIRHMM_KERNEL=$v timeout 30 $D/hmmgo pairhmm --gpu --verbose --arith $a $W/in -o $W/$a${v:+-$v}.out 2> $O/cmd-$f-$a${v:+-$v}.txt; rc=$?
	      t1=$(date +%s.%N)
	      line="$line $mode $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s"
	    done
	    line="$line ($(grep -o '([0-9.]* TCUPS)' $O/cmd-$f-$a${v:+-$v}.txt | head -1), rc $rc)"
	  done
	  cmp -s $W/gkl.out $W/gkl-tuned.out || line="$line GKL-TUNED-DIFFERS"
	  cmp -s $W/fused.out $W/fused-tuned.out || line="$line FUSED-TUNED-DIFFERS"
	  line="$line maxdiff $(paste -d' ' $W/gkl.out $W/fused.out | awk '{d=$1-$2; if(d<0)d=-d; if(d>m)m=d} END{printf "%.2g", m}')"
	  if [ -n "$gph" ]; then
	    for rep in 1 2; do
	      t0=$(date +%s.%N); timeout 30 $gph --inputfile $W/in --outputfile $W/gph.out --verbose > $O/gph-$f.txt 2>&1; t1=$(date +%s.%N)
	      line="$line gph $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}')s"
	    done
	    line="$line [$(grep -iE 'GCUPS|Batch processing time' $O/gph-$f.txt | head -2 | tr -s ' \n' ' ')]"
	  fi
	  echo "$line"
	done
	# 4. command tests (GPU), as time allows
	t=$(( $(left) - 3 ))
	if [ $t -gt 15 ]; then
	  (cd internal/pairhmmcmd && timeout $t $D/pairhmmcmd.test -test.v -test.count=1 -test.run '^TestGPU' -test.timeout ${t}s) > $O/test-cmd.log 2>&1
	  echo "test pairhmmcmd: rc $? at ${SECONDS}s: $(grep -c '^--- PASS' $O/test-cmd.log) pass, $(grep -c '^--- FAIL' $O/test-cmd.log) fail"
	  grep -E '^--- ' $O/test-cmd.log | head
	else echo "no time for pairhmmcmd tests"; fi
	echo "done at ${SECONDS}s"
}

case "${1:-}" in
build) build "${2:-}" ;;
run)
	O=${OUT:-/tmp/phfused-out}
	mkdir -p "$O"
	run
	;;
*)
	echo "usage: bash bench/pairhmm_fused.sh build [GPH_GITDIR] | run" >&2
	exit 2
	;;
esac
