package synthdb

import (
	"bufio"
	"bytes"
	"math"
	"os/exec"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// expectedCoreLength is the mean length of a core emission, from the
// model alone: match-state occupancy plus the expected insert residues
// of every node (entered from its match state, left with probability IM).
func expectedCoreLength(h *hmm.HMM) float64 {
	occ := occupancy(h)
	l := float64(h.T[0][hmm.TMI]) / float64(h.T[0][hmm.TIM])
	for k := 1; k <= h.M; k++ {
		l += occ[k]
		if h.T[k][hmm.TMI] > 0 {
			l += occ[k] * float64(h.T[k][hmm.TMI]) / float64(h.T[k][hmm.TIM])
		}
	}
	return l
}

func meanSD(v []float64) (mean, se float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(v)-1)) / math.Sqrt(float64(len(v)))
}

func TestCoreEmission(t *testing.T) {
	h := globins(t)[0]
	e, err := newEmitter(h, Core)
	if err != nil {
		t.Fatal(err)
	}
	const node = 40
	var count [256]int
	matches := 0
	e.record = func(st byte, k int, x byte) {
		if st == 'M' && k == node {
			count[x]++
			matches++
		}
	}
	r := newRNG(1, 99, 0)
	var lens []float64
	for i := 0; i < 20000; i++ {
		em := e.emit(r)
		lens = append(lens, float64(len(em.seq)))
	}
	mean, se := meanSD(lens)
	want := expectedCoreLength(h)
	if math.Abs(mean-want) > 4*se {
		t.Errorf("mean core emission length %.2f (se %.2f), model says %.2f", mean, se, want)
	}
	// Residues of match state 40 follow its emission probabilities.
	for x := 0; x < 20; x++ {
		p := float64(h.Mat[node][x])
		got := float64(count[aminoSymbols[x]]) / float64(matches)
		sd := math.Sqrt(p*(1-p)/float64(matches)) + 1e-9
		if math.Abs(got-p) > 5*sd+1e-4 {
			t.Errorf("node %d residue %c: frequency %.4f, model %.4f", node, aminoSymbols[x], got, p)
		}
	}
}

func TestLocalEmission(t *testing.T) {
	h := globins(t)[0]
	e, err := newEmitter(h, Local)
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, w := range e.entry {
		total += w
	}
	const n = 40000
	const bins = 10
	var got, want [bins]float64
	for k := 1; k <= h.M; k++ {
		want[(k-1)*bins/h.M] += e.entry[k] / total * n
	}
	r := newRNG(2, 99, 0)
	for i := 0; i < n; i++ {
		em := e.emit(r)
		if em.kFirst < 1 || em.kLast < em.kFirst || em.kLast > h.M {
			t.Fatalf("fragment %d..%d of M=%d", em.kFirst, em.kLast, h.M)
		}
		got[(em.kFirst-1)*bins/h.M]++
	}
	// Chi-square with 9 degrees of freedom: 27.9 is p = 0.001.
	var chi float64
	for b := range got {
		chi += (got[b] - want[b]) * (got[b] - want[b]) / want[b]
	}
	if chi > 27.9 {
		t.Errorf("entry nodes do not follow occ(k)*(M-k+1): chi-square %.1f, bins %v vs %v", chi, got, want)
	}
}

// Live cross-check: hmmemit's core samples have the same mean length as ours.
func TestHmmemitMeanLength(t *testing.T) {
	tool := testutil.Tool(t, "hmmemit")
	path := testutil.Testdata(t, "globins4.hmm")
	out, err := exec.Command(tool, "-N", "4000", "--seed", "7", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var theirs []float64
	l := -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 && line[0] == '>' {
			if l >= 0 {
				theirs = append(theirs, float64(l))
			}
			l = 0
			continue
		}
		l += len(bytes.TrimSpace(line))
	}
	theirs = append(theirs, float64(l))
	h := globins(t)[0]
	e, _ := newEmitter(h, Core)
	r := newRNG(7, 99, 0)
	var ours []float64
	for range theirs {
		ours = append(ours, float64(len(e.emit(r).seq)))
	}
	m1, se1 := meanSD(theirs)
	m2, se2 := meanSD(ours)
	if math.Abs(m1-m2) > 4*math.Hypot(se1, se2) {
		t.Errorf("hmmemit mean length %.2f (se %.2f), ours %.2f (se %.2f)", m1, se1, m2, se2)
	}
}

func TestEmitterRefusesDNA(t *testing.T) {
	r, err := hmm.OpenFile(testutil.HMMERExamples(t, "tutorial/MADE1.hmm"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newEmitter(h, Core); err == nil {
		t.Fatal("a DNA model was accepted for a protein database")
	}
}
