#!/usr/bin/env bash
# hmm2search's Viterbi on the GPU (hmmer2/viterbi/gpu).
#
#   bash bench/gpu/hmm2.sh build [residues]   here (needs Go, python3): test
#       binaries, hmmgo, Debian's hmm2search (+ libsquid) and a synthetic
#       database of [residues] (default 20000000) into .dev/ (carry .dev)
#   bash bench/gpu/hmm2.sh run [bench residues]   on the GPU host, from the
#       repository root: (1) kernel GCUPS for M = 100..3000 on [bench
#       residues] (default 175000000) resident residues, for every kernel
#       variant in $HMM2_VARIANTS (default w1024,reg16,lean64,leanx,dsmx1,auto; see
#       hmmer2/viterbi/gpu ShapeVariant) side by side, the fastest per M
#       named, registers and spills per variant, SASS instruction counts
#       if cuobjdump is there; (2) GPU == CPU scores on every test model
#       for every variant, the golden reports through the command with
#       --gpu; (3) hmmgo hmm2search --gpu (default variant), --gpu with
#       HMMGO_HMM2_KERNEL=v1, --nogpu and hmm2search on the synthetic
#       database, reports compared. Output in $OUT (or /tmp/hmmgo-hmm2),
#       a summary on stdout. About 4 minutes.
set -u
cd "$(dirname "$0")/../.."
case ${1:-} in
build)
	set -e
	residues=${2:-20000000}
	mkdir -p .dev/bin .dev/hmm2
	export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
	flags="-trimpath -ldflags=-s -ldflags=-w"
	go test -c $flags -o .dev/hmm2gpu.test ./hmmer2/viterbi/gpu
	go test -c $flags -o .dev/hmm2search.test ./hmmer2/search
	go build $flags -o .dev/hmmgo ./cmd/hmmgo
	if command -v hmm2search >/dev/null; then
		cp "$(command -v hmm2search)" .dev/bin/
		for lib in $(ldd "$(command -v hmm2search)" | awk '/libsquid/ {print $3}'); do cp "$lib" .dev/bin/; done
	fi
	# The database: random Swiss-Prot-like protein with 1% of the
	# sequences emitted from the three models (as bench/hmm2search.sh).
	tmp=$(mktemp -d)
	: > "$tmp/emitted.fa"
	if command -v hmm2emit >/dev/null; then
		zcat -f testdata/hmmer2/models/pkinase10.hmm2.gz > "$tmp/pkinase10.hmm2"
		for m in testdata/hmmer2/models/globin.hmm2 testdata/hmmer2/models/pkinase.hmm2 "$tmp/pkinase10.hmm2"; do
			hmm2emit -q --seed 5 -n $((residues / 35000 + 1)) "$m"
		done > "$tmp/emitted.fa"
	fi
	python3 - "$residues" "$tmp/emitted.fa" <<'PY' | gzip -6 > .dev/hmm2/db.fa.gz
import random, sys
target = int(sys.argv[1])
r = random.Random(42)
aa = "ACDEFGHIKLMNPQRSTVWY"
w = [8.3,1.4,5.5,6.8,3.9,7.1,2.3,5.9,5.8,9.7,2.4,4.1,4.7,3.9,5.5,6.6,5.4,6.9,1.1,2.9]
emitted = open(sys.argv[2]).read().split(">")[1:]
n = i = 0
out = sys.stdout
while n < target:
    if emitted and r.random() < 0.01:
        head, _, seq = emitted.pop().partition("\n")
        seq = seq.replace("\n", "")
        out.write(">hom%06d emitted %s\n" % (i, head.split()[0]))
    else:
        seq = "".join(r.choices(aa, w, k=int(r.lognormvariate(5.7, 0.55)) + 20))
        out.write(">rnd%06d random\n" % i)
    for j in range(0, len(seq), 60):
        out.write(seq[j:j+60] + "\n")
    n += len(seq)
    i += 1
PY
	rm -rf "$tmp"
	du -sh .dev
	;;
run)
	out=${OUT:-/tmp/hmmgo-hmm2}
	mkdir -p "$out"
	export HMMGO_KERNEL_CACHE="$out/kernel-cache"
	root=$(pwd)
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/host.txt" 2>&1
	echo "host: $(tail -1 "$out/host.txt"); $(nproc) cores"
	# (1) kernel throughput on a resident database, every variant side by
	# side (each variant's scores checked equal to the first's).
	variants=${HMM2_VARIANTS:-w1024,reg16,lean64,leanx,dsmx1,auto}
	(cd hmmer2/viterbi/gpu && HMMGO_HMM2_VARIANTS=$variants HMMGO_GPU_BENCH=${2:-175000000} \
		timeout 200 "$root/.dev/hmm2gpu.test" -test.v -test.run TestGPUThroughput -test.timeout 200s) > "$out/throughput.log" 2>&1
	echo "== kernel throughput, variants $variants (regs/spill: per thread)"
	grep -v -E '^(=== RUN|PASS|ok)' "$out/throughput.log"
	# Instruction mix of the compiled kernels (if the host has the tools).
	if command -v cuobjdump >/dev/null; then
		echo "== SASS per cached cubin: instructions, LDS, LDG, SHFL, VIADDMNMX, IMNMX, IADD3, BAR"
		for f in "$out"/kernel-cache/*.cubin; do
			cuobjdump -sass "$f" > "$out/$(basename "$f").sass" 2>/dev/null || continue
			grep -q h2vit_kernel "$out/$(basename "$f").sass" || continue
			awk '/\/\*[0-9a-f]+\*\/ / { n++; for (i = 1; i <= NF; i++) if ($i ~ /^[A-Z][A-Z0-9_.]+$/ && $i !~ /^R[0-9]/) { op = $i; break }
				split(op, o, "."); c[o[1]]++ }
				END { printf "%s %d %d %d %d %d %d %d %d\n", FILENAME, n, c["LDS"], c["LDG"], c["SHFL"], c["VIADDMNMX"], c["IMNMX"], c["IADD3"], c["BAR"] }' "$out/$(basename "$f").sass"
		done
	fi
	# (2) exactness: kernel vs CPU scorer (every variant); golden reports
	# with --gpu (default variant).
	(cd hmmer2/viterbi/gpu && "$root/.dev/hmm2gpu.test" -test.v -test.run 'TestGPUMatchesCPU|TestGPUVariantsMatchCPU' -test.timeout 300s) > "$out/exact.log" 2>&1
	echo "GPU == CPU: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/exact.log" | tr '\n' ' ')"
	grep -E 'differ|GPU -?[0-9]+, CPU|Error|error|panic' "$out/exact.log" | head -8
	(cd hmmer2/search && "$root/.dev/hmm2search.test" -test.v -test.run 'TestGoldenReportsGPU|TestGoldenReports$' -test.timeout 300s) > "$out/golden.log" 2>&1
	echo "golden reports: $(grep -E '^(--- |ok|FAIL|PASS)|identical with --gpu' "$out/golden.log" | tr -s ' ' | tr '\n' ' ')"
	grep -E 'differs|exit status' "$out/golden.log" | head -5
	# (3) the command on the synthetic database.
	gzip -dc .dev/hmm2/db.fa.gz > "$out/db.fa"
	zcat testdata/hmmer2/models/pkinase10.hmm2.gz > "$out/pkinase10.hmm2"
	nres=$(grep -v '>' "$out/db.fa" | tr -d '\n' | wc -c)
	echo "== hmm2search on $(grep -c '>' "$out/db.fa") sequences, $nres residues; $(nproc) threads"
	printf '%-10s %5s %10s %8s %10s %8s %10s %8s %10s %8s %s\n' model M "gpu s" GCUPS "gpu v1 s" GCUPS "nogpu s" GCUPS "C s" GCUPS reports
	secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
	for m in testdata/hmmer2/models/globin.hmm2 testdata/hmmer2/models/pkinase.hmm2 "$out/pkinase10.hmm2"; do
		M=$(awk '$1=="LENG"{print $2; exit}' "$m")
		name=$(basename "$m" .hmm2)
		t0=$(date +%s%N)
		.dev/hmmgo hmm2search --gpu --cpu "$(nproc)" "$m" "$out/db.fa" > "$out/$name.gpu" 2> "$out/$name.gpu.err"
		t1=$(date +%s%N)
		HMMGO_HMM2_KERNEL=v1 .dev/hmmgo hmm2search --gpu --cpu "$(nproc)" "$m" "$out/db.fa" > "$out/$name.gpuv1" 2> "$out/$name.gpuv1.err"
		t1v=$(date +%s%N)
		.dev/hmmgo hmm2search --nogpu --cpu "$(nproc)" "$m" "$out/db.fa" > "$out/$name.cpu" 2> "$out/$name.cpu.err"
		t2=$(date +%s%N)
		same=$(cmp -s "$out/$name.gpu" "$out/$name.cpu" && echo "gpu=nogpu" || echo "gpu!=nogpu")
		same="$same $(cmp -s "$out/$name.gpuv1" "$out/$name.cpu" && echo "v1=nogpu" || echo "v1!=nogpu")"
		cs=- cg=-
		# hmm2search on the 2,940-node model would take minutes: skipped.
		if [ -x .dev/bin/hmm2search ] && [ "$M" -lt 1000 ]; then
			t3=$(date +%s%N)
			LD_LIBRARY_PATH=.dev/bin .dev/bin/hmm2search --cpu "$(nproc)" "$m" "$out/db.fa" > "$out/$name.c" 2> "$out/$name.c.err"
			t4=$(date +%s%N)
			cs=$(secs "$t3" "$t4")
			cg=$(awk -v M="$M" -v r="$nres" -v s="$cs" 'BEGIN { printf "%.2f", M * r / s / 1e9 }')
			# Threaded hmm2search may order equal scores differently.
			same="$same $(cmp -s "$out/$name.c" "$out/$name.cpu" && echo "nogpu=hmm2search" || echo "nogpu!=hmm2search(threads?)")"
		fi
		gs=$(secs "$t0" "$t1")
		vs=$(secs "$t1" "$t1v")
		ns=$(secs "$t1v" "$t2")
		awk -v n="$name" -v M="$M" -v r="$nres" -v g="$gs" -v v="$vs" -v c="$ns" -v cs="$cs" -v cg="$cg" -v same="$same" \
			'BEGIN { printf "%-10s %5d %10s %8.2f %10s %8.2f %10s %8.2f %10s %8s %s\n", n, M, g, M*r/g/1e9, v, M*r/v/1e9, c, M*r/c/1e9, cs, cg, same }'
		head -1 "$out/$name.gpu.err"
	done
	rm -f "$out/db.fa"
	;;
*)
	sed -n '2,18p' "$0"
	exit 2
	;;
esac
