#!/usr/bin/env bash
# Regenerates the hmm2search fixtures and golden reports in this
# directory with Debian's hmmer2 2.3.2 (hmm2build, hmm2calibrate,
# hmm2emit, hmm2search). Inputs: the HMMER 2.3.2 tutorial alignments in
# the shared data set and Debian's hmmer-examples. Everything written
# here is the output of those reference programs, except the random and
# hand-written edge-case sequences made by the small generator below.
#
#   usage: testdata/hmmer2/regen.sh [path/to/shared/data]
#
# Golden reports are made with `hmm2search --cpu 1`: with more threads
# hmm2search's output depends on thread timing (its preliminary E-value
# test uses the number of sequences read so far), and one worker thread
# is exactly the semantics hmmgo reproduces.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${1:-$here/../../../shared/data}
tut=$shared/hmmer/hmmer-2.3.2_tutorial
ex=/usr/share/doc/hmmer/examples
cd "$here"
mkdir -p models db golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- models -------------------------------------------------------------
build() { # name alignment [hmm2build options...]
	local name=$1 ali=$2; shift 2
	hmm2build -F "$@" models/$name.hmm2 "$ali" >/dev/null
	hmm2calibrate --seed 7 --num 1000 models/$name.hmm2 >/dev/null
}
build globin "$tut/globins50.msf" -n globin
build globin_fs "$tut/globins50.msf" -f -n globin_fs
build globin_sw "$tut/globins50.msf" -s -n globin_sw
build globin_global "$tut/globins50.msf" -g -n globin_global
build fn3 "$tut/fn3.sto"
build pkinase "$tut/pkinase.sto"
build rrm "$tut/rrm.sto"
build made1 "$ex/tutorial/MADE1.sto" --nucleic
# A long model (M near 2,900): the pkinase alignment repeated ten times.
# Its hits are too big for HMMER2's 32 MB Viterbi matrix, so hmm2search
# aligns them with the linear-memory P7SmallViterbi/P7WeeViterbi.
python3 - "$tut/pkinase.sto" > "$tmp/pkinase10.sto" <<'PY'
import sys
order, seqs = [], {}
for line in open(sys.argv[1]):
    if line.startswith("#") or line.startswith("//") or not line.strip():
        continue
    name, s = line.split()
    if name not in seqs:
        order.append(name)
        seqs[name] = ""
    seqs[name] += s
print("# STOCKHOLM 1.0")
for n in order:
    print("%-40s %s" % (n, seqs[n] * 10))
print("//")
PY
# (Left uncalibrated: E-values then come from the Bayesian bound.)
rm -f models/pkinase10.hmm2.gz
hmm2build -F -n pkinase10 models/pkinase10.hmm2 "$tmp/pkinase10.sto" >/dev/null
# An uncalibrated model: E-values then come from the Bayesian bound.
hmm2build -F -n globin_nocal models/globin_nocal.hmm2 "$tut/globins50.msf" >/dev/null
# Several models in one file: hmm2search uses the first.
cat models/fn3.hmm2 models/globin.hmm2 > models/multi.hmm2

# --- databases ----------------------------------------------------------
emit() { hmm2emit -q --seed "$2" -n "$3" models/$1.hmm2; }
python3 - "$tmp" <<'EOF'
import random, sys
tmp = sys.argv[1]
r = random.Random(2024)
aa = "ACDEFGHIKLMNPQRSTVWY"
# background frequencies roughly like Swiss-Prot, so scores look real
w = [8.3,1.4,5.5,6.8,3.9,7.1,2.3,5.9,5.8,9.7,2.4,4.1,4.7,3.9,5.5,6.6,5.4,6.9,1.1,2.9]
with open(tmp + "/random.fa", "w") as f:
    for i in range(300):
        n = int(r.lognormvariate(5.6, 0.5)) + 10
        s = "".join(r.choices(aa, w, k=n))
        f.write(">rnd%03d random protein %d aa\n" % (i, n))
        for j in range(0, n, 60):
            f.write(s[j:j+60] + "\n")
with open(tmp + "/random_dna.fa", "w") as f:
    for i in range(60):
        n = r.randint(50, 1500)
        s = "".join(r.choices("ACGT", k=n))
        f.write(">dna%02d\n%s\n" % (i, s))
EOF
{ emit globin 11 40; emit fn3 12 15; emit pkinase 13 10; emit rrm 14 15; cat "$tmp/random.fa"; } > db/mixed.fa
cp "$tmp/random.fa" db/random.fa
{ emit made1 15 30; cat "$tmp/random_dna.fa"; } > db/dna.fa
# Edge cases of squid's FASTA parsing, on sequences that are real hits.
python3 - "$tmp" <<'EOF' > db/edge.fa
import subprocess, sys
seqs = subprocess.run(["hmm2emit", "-q", "--seed", "21", "-n", "16", "models/globin.hmm2"],
                      capture_output=True, text=True, check=True).stdout
recs = ["".join(r.split("\n")[1:]) for r in seqs.split(">")[1:]]
out = []
out.append((">plain a plain description", recs[0]))
out.append((">lower mixed case residues", recs[1][:60].lower() + recs[1][60:]))
out.append((">junk digits, spaces and symbols in the sequence", " 1 ".join([recs[2][:40], "*-.~_", recs[2][40:]])))
out.append((">degenerate B Z U O J X symbols", recs[3][:30] + "BZUOJX" + recs[3][30:]))
out.append((">-dashname a name that squid ignores", recs[4]))
out.append((">" + "n" * 80 + " name longer than 63 characters", recs[5]))
out.append((">longdesc " + " ".join(["word%02d" % i for i in range(40)]), recs[6]))
out.append((">dashdesc -a description squid ignores", recs[7]))
out.append((">tabbed\tdescription\tafter a tab", recs[8]))
out.append((">spaced     description after spaces   ", recs[9]))
out.append((">empty an empty sequence", ""))
out.append((">dupA identical sequences keep database order", recs[10]))
out.append((">dupB identical sequences keep database order", recs[10]))
out.append((">dupC identical sequences keep database order", recs[10]))
out.append((">twodomains two globins in a row", recs[11] + "GGGGSGGGGS" + recs[12]))
out.append((">nodesc", recs[13]))
out.append((">short", recs[14][:12]))
out.append((">crlf windows line ends\r", recs[15]))
for h, s in out:
    sys.stdout.write(h + "\n")
    for j in range(0, len(s), 50):
        sys.stdout.write(s[j:j+50] + "\n")
EOF
# The same records as Swiss-Prot (EMBL) and GenBank flat files.
python3 - <<'EOF'
import re
recs = []
name = None
for line in open("db/edge.fa"):
    line = line.rstrip("\n").rstrip("\r")
    if line.startswith(">"):
        parts = line[1:].split(None, 1)
        recs.append([parts[0] if parts else "", parts[1] if len(parts) > 1 else "", ""])
    else:
        recs[-1][2] += re.sub(r"[^A-Za-z]", "", line)
with open("db/edge.embl", "w") as f:
    for i, (n, d, s) in enumerate(recs):
        if not s or n.startswith("-"):
            continue
        f.write("ID   %-12s STANDARD;      PRT;  %d AA.\n" % (n[:20], len(s)))
        f.write("AC   Q%05d; P%05d;\n" % (i, i + 1))
        f.write("DT   01-JAN-2000 (Rel. 40, Created)\n")
        if d:
            f.write("DE   %s\n" % d[:60])
            if len(d) > 60:
                f.write("DE   %s\n" % d[60:])
        f.write("SQ   SEQUENCE   %d AA;\n" % len(s))
        for j in range(0, len(s), 60):
            chunk = s[j:j+60]
            f.write("     " + " ".join(chunk[k:k+10] for k in range(0, len(chunk), 10)) + "\n")
        f.write("//\n")
with open("db/edge.gb", "w") as f:
    for i, (n, d, s) in enumerate(recs):
        if not s or n.startswith("-"):
            continue
        f.write("LOCUS       %-16s %d aa            linear   PRI 01-JAN-2000\n" % (n[:16], len(s)))
        f.write("DEFINITION  %s\n" % (d or "none."))
        f.write("ACCESSION   X%05d\n" % i)
        f.write("VERSION     X%05d.1\n" % i)
        f.write("ORIGIN\n")
        for j in range(0, len(s), 60):
            chunk = s[j:j+60].lower()
            f.write("%9d %s\n" % (j + 1, " ".join(chunk[k:k+10] for k in range(0, len(chunk), 10))))
        f.write("//\n")
EOF
# Long sequences: two emitted from pkinase10, and a 12,000-residue
# random sequence holding five pkinase domains.
python3 - "$tmp" <<'EOF2' > db/long.fa
import random, subprocess, sys
r = random.Random(7)
aa = "ACDEFGHIKLMNPQRSTVWY"
def emit(model, seed, n):
    out = subprocess.run(["hmm2emit", "-q", "--seed", str(seed), "-n", str(n), model],
                         capture_output=True, text=True, check=True).stdout
    return ["".join(x.split("\n")[1:]) for x in out.split(">")[1:]]
recs = [("big%d" % i, s) for i, s in enumerate(emit("models/pkinase10.hmm2", 31, 2))]
doms = emit("models/pkinase.hmm2", 32, 5)
s = ""
for d in doms:
    s += "".join(r.choice(aa) for _ in range(2000)) + d
recs.append(("multikinase", s + "".join(r.choice(aa) for _ in range(12000 - len(s)))))
recs += [("kin%d" % i, d) for i, d in enumerate(emit("models/pkinase.hmm2", 33, 3))]
for n, s in recs:
    sys.stdout.write(">%s %d residues\n" % (n, len(s)))
    for j in range(0, len(s), 60):
        sys.stdout.write(s[j:j+60] + "\n")
EOF2
# The edge-case records as two Stockholm alignments, with #=GS AC/DE
# annotation and every gap character squid removes.
python3 - <<'EOF2' > db/edge.sto
import random, re
r = random.Random(9)
recs = []
for line in open("db/edge.fa"):
    line = line.rstrip("\n").rstrip("\r")
    if line.startswith(">"):
        parts = line[1:].split(None, 1)
        recs.append([parts[0] if parts else "", parts[1] if len(parts) > 1 else "", ""])
    else:
        recs[-1][2] += re.sub(r"[^A-Za-z]", "", line)
recs = [x for x in recs if x[2] and x[0] and not x[0].startswith("-")]
names = {}
for n, d, s in recs:  # names must be unique within an alignment
    names[n] = names.get(n, 0) + 1
def block(rs):
    rows = []
    for i, (n, d, s) in enumerate(rs):
        g = "".join(c + (r.choice("-.~_") if r.random() < 0.05 else "") for c in s)
        rows.append(("%s_%d" % (n[:30], i), d, g))
    width = max(len(g) for _, _, g in rows)
    out = ["# STOCKHOLM 1.0", "#=GF ID edge"]
    for n, d, g in rows:
        if d:
            out.append("#=GS %s DE %s" % (n, d))
        out.append("#=GS %s AC X%05d" % (n, len(out)))
    out.append("")
    for j in range(0, width, 60):
        for n, d, g in rows:
            out.append("%-34s %s" % (n, (g + "." * (width - len(g)))[j:j+60]))
        out.append("")
    out.append("//")
    return "\n".join(out) + "\n"
half = len(recs) // 2
print(block(recs[:half]) + "\n" + block(recs[half:]), end="")
EOF2
gzip -9nf db/random.fa

# --- golden reports -----------------------------------------------------
# cases.tsv: name <TAB> exit status <TAB> hmm2search arguments (paths
# relative to this directory). A failing case has an empty report.
: > golden/cases.tsv
case_() { # name args...
	local name=$1; shift
	local rc=0
	hmm2search --cpu 1 "$@" > "$tmp/out" 2>/dev/null || rc=$?
	if [ $rc != 0 ]; then : > "$tmp/out"; fi
	printf '%s\t%s\t%s\n' "$name" "$rc" "$*" >> golden/cases.tsv
	gzip -9nc "$tmp/out" > golden/$name.out.gz
}
for m in globin globin_fs globin_sw globin_global globin_nocal fn3 pkinase rrm multi; do
	case_ $m.mixed models/$m.hmm2 db/mixed.fa
	case_ $m.mixed.all -E 1e9 -A 0 models/$m.hmm2 db/mixed.fa
done
for opts in "--null2" "-T 5" "-E 0.1 --domE 0.01" "--domT 3 -A 5" "-Z 5000" "--compat" "-A 1" "--forward" "--forward --null2" "--cpu 0" "-E 1e9 --null2 -A 0"; do
	tag=$(echo "$opts" | tr -d ' -' | tr '.' 'p')
	case_ globin.mixed.$tag $opts models/globin.hmm2 db/mixed.fa
	case_ fn3.mixed.$tag $opts models/fn3.hmm2 db/mixed.fa
done
for cut in --cut_ga --cut_tc --cut_nc; do
	case_ fn3.mixed$cut $cut models/fn3.hmm2 db/mixed.fa
	case_ pkinase.mixed$cut $cut models/pkinase.hmm2 db/mixed.fa
done
for f in edge.fa edge.embl edge.gb edge.sto; do
	case_ globin.$f models/globin.hmm2 db/$f
	case_ globin.$f.cpu0 --cpu 0 models/globin.hmm2 db/$f
	case_ globin_nocal.$f -E 1e9 models/globin_nocal.hmm2 db/$f
done
case_ globin.random -E 1e9 -A 2 models/globin.hmm2 db/random.fa.gz
case_ pkinase.random -E 1e9 -A 2 models/pkinase.hmm2 db/random.fa.gz
case_ pkinase.long models/pkinase.hmm2 db/long.fa
case_ pkinase.long.all -E 1e9 -A 0 models/pkinase.hmm2 db/long.fa
case_ pkinase10.long models/pkinase10.hmm2 db/long.fa
case_ made1.dna models/made1.hmm2 db/dna.fa
case_ made1.dna.all -E 1e9 -A 3 models/made1.hmm2 db/dna.fa
# The long model is stored compressed; the tests unpack it.
gzip -9nf models/pkinase10.hmm2
echo "regenerated $(wc -l < golden/cases.tsv) golden reports"
