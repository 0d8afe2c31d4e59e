#!/usr/bin/env python3
"""Writes synth_dna.fa: DNA targets for the hmmsearch exactness tests:
homologs emitted by hmmemit from the tutorial/testsuite DNA models in
random flanks, 5 kb pieces of the tutorial's dna_target.fa (HMMER itself
refuses targets over 100 kb), IUPAC degenerate bases and odd characters.
Deterministic. usage: make_synth_dna.py > synth_dna.fa
"""
import random, subprocess

EX = "/usr/share/doc/hmmer/examples"
MODELS = [EX + "/tutorial/MADE1.hmm", EX + "/testsuite/3box.hmm.gz", EX + "/testsuite/PSE.hmm",
          EX + "/testsuite/ecori.hmm", EX + "/testsuite/2OG-FeII_Oxy_3-nt.hmm.gz"]
rng = random.Random(7)

def rand_dna(n):
    return "".join(rng.choices("ACGT", k=n))

def emit(model, n, seed):
    out = subprocess.run(["hmmemit", "-N", str(n), "--seed", str(seed), model],
                         check=True, capture_output=True, text=True).stdout
    return ["".join(b.splitlines()[1:]) for b in out.split(">")[1:]]

recs = []
for mi, m in enumerate(MODELS):
    for j, d in enumerate(emit(m, 3, 50 + mi)):
        recs.append((f"dhom{mi}_{j}", rand_dna(rng.randint(0, 200)) + d + rand_dna(rng.randint(0, 200))))
target = "".join(l.strip() for l in open(EX + "/tutorial/dna_target.fa") if not l.startswith(">"))
for p in range(0, 40000, 5000):
    recs.append((f"chunk{p}", target[p:p + 5000]))
s = list(emit(MODELS[0], 1, 77)[0])
for _ in range(10):
    s[rng.randrange(len(s))] = rng.choice("RYMKSWHBVDNnxu.*")
recs.append(("ddegen", "".join(s)))
for name, s in recs:
    print(">" + name)
    for i in range(0, len(s), 60):
        print(s[i:i + 60])
