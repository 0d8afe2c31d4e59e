#!/usr/bin/env bash
# Regenerates the fixtures of hmm2search's shard tests with Debian's
# hmm2search 2.3.2: ties.fa, sequences of ../db/mixed.fa with renamed
# copies of strong globin hits placed apart in the file, so that hits
# with equal scores land in different shards (their order in the report
# is database order), and its golden reports.
#
#   usage: testdata/hmmer2/shard/regen.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# get NAME [NEWNAME]: the record NAME of mixed.fa, renamed.
get() {
	awk -v want="$1" -v new="${2:-$1}" '
		/^>/ { on = (substr($1, 2) == want); if (on) { print ">" new; next } }
		on { print }' ../db/mixed.fa
}
{
	get rnd000
	get globin-5
	get globin-26 z26c
	get rnd001
	get fn3-1
	get globin-26 a26a
	get globin-9
	get globin-26 m26b
	get rnd002
	get globin-26
	get globin-9 q9x
	get rnd003
	get globin-9 b9y
	get globin-5 globin-5-copy
	get rnd004
} > ties.fa

# cases.tsv: name <TAB> hmm2search arguments (run in a directory with
# models/ and db/ties.fa).
mkdir -p "$tmp/models" "$tmp/db"
cp ../models/globin.hmm2 ../models/globin_nocal.hmm2 "$tmp/models/"
cp ties.fa "$tmp/db/"
: > cases.tsv
run() { # name args...
	local name=$1; shift
	(cd "$tmp" && hmm2search --cpu 1 "$@") > "$tmp/out"
	printf '%s\t%s\n' "$name" "$*" >> cases.tsv
	gzip -9nc "$tmp/out" > "$name.out.gz"
}
run globin.ties models/globin.hmm2 db/ties.fa
run globin.ties.all -E 1e9 -A 4 models/globin.hmm2 db/ties.fa
run globin_nocal.ties.null2 -E 1e9 --null2 models/globin_nocal.hmm2 db/ties.fa
echo "regenerated $(wc -l < cases.tsv) shard golden reports"
