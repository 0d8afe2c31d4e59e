#!/usr/bin/env python3
"""Writes synth.fa, the synthetic protein database of the hmmsearch
exactness tests: random sequences with Swiss-Prot-like composition,
homologs emitted by Debian's hmmemit from tutorial/testsuite models and
planted in random flanks (one or several domains per target), very short
and long targets, degenerate residues, lower case and the odd characters
Easel accepts in FASTA ('*', '.', '_', '~'). Deterministic (seeded).

usage: make_synth.py > synth.fa   (needs hmmemit and hmmer-examples)
"""
import random, subprocess, sys

EX = "/usr/share/doc/hmmer/examples"
MODELS = [EX + "/tutorial/globins4.hmm", EX + "/tutorial/fn3.hmm", EX + "/tutorial/Pkinase.hmm",
          EX + "/testsuite/RRM_1.hmm.gz", EX + "/testsuite/Caudal_act.hmm.gz"]
AA = "ACDEFGHIKLMNPQRSTVWY"
# Swiss-Prot amino acid composition (percent), alphabet order above.
COMP = [8.25, 1.38, 5.46, 6.71, 3.86, 7.07, 2.27, 5.91, 5.80, 9.64,
        2.41, 4.06, 4.74, 3.93, 5.53, 6.63, 5.36, 6.86, 1.10, 2.92]
rng = random.Random(20261122)

def rand_seq(n):
    return "".join(rng.choices(AA, weights=COMP, k=n))

def emit(model, n, seed):
    out = subprocess.run(["hmmemit", "-N", str(n), "--seed", str(seed), model],
                         check=True, capture_output=True, text=True).stdout
    seqs, cur = [], []
    for line in out.splitlines():
        if line.startswith(">"):
            if cur: seqs.append("".join(cur))
            cur = []
        else:
            cur.append(line.strip())
    if cur: seqs.append("".join(cur))
    return seqs

def wrap(s):
    return "\n".join(s[i:i + 60] for i in range(0, len(s), 60))

recs = []
for mi, m in enumerate(MODELS):
    doms = emit(m, 8, 100 + mi)
    for j, d in enumerate(doms[:4]):           # single domain in random flanks
        recs.append((f"hom{mi}_{j}", f"planted homolog of model {mi}",
                     rand_seq(rng.randint(0, 80)) + d + rand_seq(rng.randint(0, 80))))
    recs.append((f"multi{mi}", "three domains",      # multi-domain target
                 rand_seq(30) + doms[4] + rand_seq(15) + doms[5] + rand_seq(40) + doms[6] + rand_seq(20)))
    recs.append((f"tandem{mi}", "two adjacent domains", doms[7] + doms[4]))
for i in range(40):                              # unrelated background
    recs.append((f"rand{i}", "", rand_seq(int(rng.lognormvariate(5.6, 0.6)) + 1)))
for n in (1, 2, 3, 5, 8):                        # very short targets
    recs.append((f"short{n}", f"length {n}", rand_seq(n)))
recs.append(("empty1", "zero-length target", ""))
long_dom = emit(MODELS[1], 6, 999)               # long target with scattered domains
long = rand_seq(3000)
for d in long_dom:
    long += d + rand_seq(rng.randint(500, 3000))
recs.append(("long1", "long multi-domain target", long))
# Degenerate and odd characters inside homologs.
odd = emit(MODELS[0], 4, 4242)
def sprinkle(s, chars, k):
    s = list(s)
    for _ in range(k):
        s[rng.randrange(len(s))] = rng.choice(chars)
    return "".join(s)
recs.append(("degen1", "B J Z O U X in a homolog", sprinkle(odd[0], "BJZOUX", 12)))
recs.append(("lower1", "lower case homolog", odd[1].lower()))
recs.append(("stops1", "stop, gap and missing-data characters", sprinkle(odd[2], "*._~", 5)))
recs.append(("mixed1", "mixed case and X runs", sprinkle(odd[3], "xXbz", 20)))
rng.shuffle(recs)
for name, desc, s in recs:
    print(f">{name} {desc}".rstrip())
    if s:
        print(wrap(s))
