package domaindef

import "testing"

func TestLinked(t *testing.T) {
	a := segPair{i: 10, j: 100, k: 1, m: 90}
	b := segPair{i: 12, j: 101, k: 3, m: 91}
	if !linked(&a, &b) {
		t.Fatal("overlapping domains on nearby diagonals must link")
	}
	c := segPair{i: 200, j: 290, k: 1, m: 90}
	if linked(&a, &c) {
		t.Fatal("disjoint domains must not link")
	}
}

func TestClusterAndDominance(t *testing.T) {
	// 100 samples see domain A, 60 see domain B, overlapping A almost entirely.
	var sp []segPair
	for s := 0; s < 100; s++ {
		sp = append(sp, segPair{idx: s, i: 10, j: 100, k: 1, m: 90})
		if s < 60 {
			sp = append(sp, segPair{idx: s, i: 15, j: 100, k: 30, m: 120})
		}
	}
	sigc := cluster(sp, 200)
	if len(sigc) != 2 || sigc[0].i > sigc[1].i {
		t.Fatalf("clusters %+v", sigc)
	}
	if sigc[0].prob != 0.5 || sigc[1].prob != 0.3 {
		t.Fatalf("cluster probabilities %v, %v", sigc[0].prob, sigc[1].prob)
	}
	kept := removeDominated(sigc)
	if len(kept) != 1 || kept[0].i != 10 {
		t.Fatalf("the less probable overlapping domain must go: %+v", kept)
	}
	// Clusters below the posterior threshold (25% of samples) are dropped.
	if got := cluster(sp[:40], 200); len(got) != 0 {
		t.Fatalf("low-posterior clusters kept: %+v", got)
	}
}
