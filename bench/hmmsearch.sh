#!/usr/bin/env bash
# HMMER 3.3.2 hmmsearch against hmmgo hmmsearch, side by side, on the 24
# CUDAMPF query models (M = 100..2405) and one target database.
#
#   bash bench/hmmsearch.sh [options] DB
#
# For every model, REPS times, it runs both programs with --cpu N
# (alternating which goes first), keeps the median wall time of each,
# checks that the two --tblout tables are identical field by field (the
# '#' lines aside), and prints M, the median seconds, the ratio
# HMMER/hmmgo and the GCUPS of each (M x residues searched / seconds).
#
# Options (environment variables in brackets):
#   --hmmer PATH      HMMER's hmmsearch [HMMER; default: hmmsearch on PATH]
#   --hmmgo PATH      hmmgo binary [HMMGO; default: .dev/hmmgo, else hmmgo on PATH]
#   --models DIR      directory of <M>.hmm.gz or <M>.hmm [MODELS; default:
#                     shared/data/CUDAMPF/query_models in or beside the checkout]
#   --only "100 200"  only these models (by file name stem)
#   -c N, --cpu N     threads for both programs [CPUS; default: all cores]
#   -r N, --reps N    repetitions per model and program [REPS; default 3]
#   --noali           pass --noali to both (smaller output)
#   --hmmgo-db PATH   give hmmgo this database instead of DB (a .hmmgo made
#                     from DB by `hmmgo makedb`); HMMER always reads DB
#   --hmmgo-opts "…"  extra options for hmmgo, e.g. "--nogpu" or "--gpu 0"
#   --hmmer-opts "…"  extra options for HMMER
#   --synth N         if DB does not exist, make it first: N residues (e.g.
#                     175M), `hmmgo synthdb -n N --seed 1` with K homologs of
#                     every model in the directory planted (--plant K
#                     [PLANT], default 20)
#   --keep DIR        keep every run's output and tables in DIR
#
# Needs only bash and coreutils (date, mktemp, nproc) plus gzip for .gz
# models: no Go, no network, no awk. Runs on the 2-core dev machine and on
# the GPU host alike. Exit status 1 if any table differs or a run fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
hmmer=${HMMER:-}
hmmgo=${HMMGO:-}
models=${MODELS:-}
cpus=${CPUS:-$(nproc)}
reps=${REPS:-3}
only=""
noali=0
gdb=""
gopts=""
hopts=""
synth=""
plant=${PLANT:-20}
keep=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--hmmer) hmmer=$2; shift 2 ;;
	--hmmgo) hmmgo=$2; shift 2 ;;
	--models) models=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	-c | --cpu) cpus=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	--noali) noali=1; shift ;;
	--hmmgo-db) gdb=$2; shift 2 ;;
	--hmmgo-opts) gopts=$2; shift 2 ;;
	--hmmer-opts) hopts=$2; shift 2 ;;
	--synth) synth=$2; shift 2 ;;
	--plant) plant=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	-h | --help) usage ;;
	-*) echo "hmmsearch.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
db=$1

die() { echo "hmmsearch.sh: $*" >&2; exit 1; }
if [ -z "$hmmer" ]; then hmmer=$(command -v hmmsearch) || die "no hmmsearch on PATH; give --hmmer"; fi
if [ -z "$hmmgo" ]; then
	if [ -x "$root/.dev/hmmgo" ]; then hmmgo=$root/.dev/hmmgo; else hmmgo=$(command -v hmmgo) || die "no hmmgo; give --hmmgo"; fi
fi
if [ -z "$models" ]; then
	for d in "$root/shared/data/CUDAMPF/query_models" "$root/../shared/data/CUDAMPF/query_models"; do
		[ -d "$d" ] && models=$d && break
	done
	[ -n "$models" ] || die "no CUDAMPF models found; give --models"
fi
[ -x "$hmmer" ] || die "$hmmer is not executable"
[ -x "$hmmgo" ] || die "$hmmgo is not executable"
[[ $cpus =~ ^[0-9]+$ ]] || die "--cpu $cpus is not a number"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps $reps is not a positive number"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${keep:-$tmp}
mkdir -p "$out"

# The models, decompressed once, in order of M; all.hmm holds every
# model of the directory (for planting).
stems=()
: >"$tmp/all.hmm"
for f in "$models"/*.hmm.gz "$models"/*.hmm; do
	[ -e "$f" ] || continue
	s=$(basename "$f"); s=${s%.gz}; s=${s%.hmm}
	case $f in *.gz) gzip -dc "$f" >"$tmp/$s.hmm" ;; *) cp "$f" "$tmp/$s.hmm" ;; esac
	# Some files lack the final newline: keep models apart.
	{ cat "$tmp/$s.hmm"; echo; } >>"$tmp/all.hmm"
	if [ -n "$only" ] && [[ " $only " != *" $s "* ]]; then continue; fi
	stems+=("$s")
done
[ ${#stems[@]} -gt 0 ] || die "no models in $models"
mapfile -t stems < <(printf '%s\n' "${stems[@]}" | sort -n)

if [ ! -e "$db" ]; then
	[ -n "$synth" ] || die "$db does not exist (--synth N makes it)"
	echo "# making $db: hmmgo synthdb -n $synth --seed 1 --plant <the models> --per-model $plant" >&2
	"$hmmgo" synthdb -n "$synth" --seed 1 --plant "$tmp/all.hmm" --per-model "$plant" -o "$db"
fi
[ -n "$gdb" ] || gdb=$db

now() { date +%s%N; }

# fmt_fixed V D: integer V scaled by 10^D printed with D decimals.
fmt_fixed() {
	local v=$1 d=$2 s=1 i
	for ((i = 0; i < d; i++)); do s=$((s * 10)); done
	printf '%d.%0*d' $((v / s)) "$d" $((v % s))
}

median() { # integers on the command line
	local sorted
	mapfile -t sorted < <(printf '%s\n' "$@" | sort -n)
	local n=${#sorted[@]}
	if ((n % 2)); then echo "${sorted[n / 2]}"; else echo $(((sorted[n / 2 - 1] + sorted[n / 2]) / 2)); fi
}

# same_table A B: identical data rows, field by field; the description
# (fields 19 on) compared as one string with its spacing collapsed.
same_table() {
	local -a la lb fa fb
	mapfile -t la < <(grep -v '^#' "$1" || true)
	mapfile -t lb < <(grep -v '^#' "$2" || true)
	if [ ${#la[@]} -ne ${#lb[@]} ]; then
		echo "${#la[@]} rows vs ${#lb[@]}"
		return 1
	fi
	local i
	for ((i = 0; i < ${#la[@]}; i++)); do
		read -ra fa <<<"${la[i]}"
		read -ra fb <<<"${lb[i]}"
		if [ "${fa[*]}" != "${fb[*]}" ]; then
			echo "row $((i + 1)): ${fa[0]} ${fa[4]} ${fa[5]} vs ${fb[0]} ${fb[4]} ${fb[5]}"
			return 1
		fi
	done
}

common=(--cpu "$cpus")
[ $noali -eq 1 ] && common+=(--noali)
read -ra hextra <<<"$hopts"
read -ra gextra <<<"$gopts"

run_hmmer() { "$hmmer" "${common[@]}" "${hextra[@]}" --tblout "$out/$1.hmmer.tbl" -o "$out/$1.hmmer.out" "$tmp/$1.hmm" "$db"; }
run_hmmgo() { "$hmmgo" hmmsearch "${common[@]}" "${gextra[@]}" --tblout "$out/$1.hmmgo.tbl" -o "$out/$1.hmmgo.out" "$tmp/$1.hmm" "$gdb" 2>"$out/$1.hmmgo.err"; }

# timed NAME FUNC: runs FUNC NAME, prints its wall time in ns.
timed() {
	local s e
	s=$(now)
	"$2" "$1" || return 1
	e=$(now)
	echo $((e - s))
}

cpu_model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
echo "# hmmsearch benchmark, $(date -u '+%F %H:%M UTC')"
echo "# machine: ${cpu_model:-unknown CPU}, $(nproc) cores; --cpu $cpus; $reps reps; median wall times"
echo "# HMMER: $hmmer ${hopts}"
echo "# hmmgo: $hmmgo ${gopts}"
echo "# database: $db$([ "$gdb" != "$db" ] && echo " (hmmgo reads $gdb)")"
printf '%-6s %5s %9s %9s %7s %9s %9s  %s\n' model M hmmer_s hmmgo_s ratio hmmer_GC hmmgo_GC tables

fail=0
total_h=0
total_g=0
residues=""
for s in "${stems[@]}"; do
	M=$(grep -m1 '^LENG' "$tmp/$s.hmm" | tr -s ' ' | cut -d' ' -f2)
	th=()
	tg=()
	ok=1
	for ((r = 1; r <= reps; r++)); do
		if ((r % 2)); then order=(hmmer hmmgo); else order=(hmmgo hmmer); fi
		for p in "${order[@]}"; do
			if ! t=$(timed "$s" "run_$p"); then
				echo "$s: $p failed (see $out/$s.$p.*)" >&2
				ok=0
				break 2
			fi
			if [ "$p" = hmmer ]; then th+=("$t"); else tg+=("$t"); fi
		done
	done
	if [ $ok -eq 0 ]; then
		printf '%-6s %5s %s\n' "$s" "$M" "RUN FAILED"
		fail=1
		continue
	fi
	if [ -z "$residues" ]; then
		line=$(grep -m1 '^Target sequences:' "$out/$s.hmmer.out" || true)
		[[ $line =~ \(([0-9]+)\ residues ]] && residues=${BASH_REMATCH[1]}
		[ -n "$residues" ] || die "cannot find the residue count in HMMER's output"
	fi
	mh=$(median "${th[@]}")
	mg=$(median "${tg[@]}")
	total_h=$((total_h + mh))
	total_g=$((total_g + mg))
	cells=$((M * residues))
	if why=$(same_table "$out/$s.hmmer.tbl" "$out/$s.hmmgo.tbl"); then tables=identical; else tables="DIFFER: $why"; fail=1; fi
	printf '%-6s %5d %9s %9s %7s %9s %9s  %s\n' "$s" "$M" \
		"$(fmt_fixed $((mh / 1000000)) 3)" "$(fmt_fixed $((mg / 1000000)) 3)" \
		"$(fmt_fixed $((mh * 1000 / mg)) 3)" \
		"$(fmt_fixed $((cells * 100 / mh)) 2)" "$(fmt_fixed $((cells * 100 / mg)) 2)" "$tables"
done
if ((total_g > 0)); then
	printf '%-6s %5s %9s %9s %7s\n' all "" "$(fmt_fixed $((total_h / 1000000)) 3)" "$(fmt_fixed $((total_g / 1000000)) 3)" \
		"$(fmt_fixed $((total_h * 1000 / total_g)) 3)"
fi
echo "# residues searched: ${residues:-?}; GC = GCUPS = M x residues / median seconds / 1e9"
exit $fail
