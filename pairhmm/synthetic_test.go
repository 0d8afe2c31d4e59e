package pairhmm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refLog10 is an independent reference for GATK's model: full matrices in
// natural-log space (so nothing underflows), probabilities from their
// definitions with math.Pow, and GATK's match-to-match rule 1 - 10^s where
// s is the table-driven log10(10^-ins/10 + 10^-del/10), recomputed here in
// plain double.
func refLog10(r *Read, hap []byte) float64 {
	ph := func(q byte) float64 { return math.Pow(10, -float64(q)/10) }
	jacobian := func(x float64) float64 { return math.Log10(1 + math.Pow(10, -x)) }
	mmProb := func(ins, del byte) float64 {
		a, b := -0.1*float64(ins), -0.1*float64(del)
		big, small := math.Max(a, b), math.Min(a, b)
		s := big
		if d := big - small; d < 8 {
			s = big + jacobian(math.Floor(d*1e4+0.5)*1e-4)
		}
		return 1 - math.Min(1, math.Pow(10, s))
	}
	lse := func(xs ...float64) float64 {
		m := math.Inf(-1)
		for _, x := range xs {
			m = math.Max(m, x)
		}
		if math.IsInf(m, -1) {
			return m
		}
		s := 0.0
		for _, x := range xs {
			s += math.Exp(x - m)
		}
		return m + math.Log(s)
	}
	n, h := len(r.Bases), len(hap)
	inf := math.Inf(-1)
	newRow := func(v float64) []float64 {
		row := make([]float64, h+1)
		for j := range row {
			row[j] = v
		}
		return row
	}
	// log of 1/h: the free start anywhere along the haplotype
	pM, pX, pY := newRow(inf), newRow(inf), newRow(-math.Log(float64(h)))
	for i := 0; i < n; i++ {
		cM, cX, cY := newRow(inf), newRow(inf), newRow(inf)
		e := ph(r.BaseQuals[i])
		mm := math.Log(mmProb(r.InsQuals[i], r.DelQuals[i]))
		gapm := math.Log(1 - ph(r.GCPQuals[i]))
		gcp := math.Log(ph(r.GCPQuals[i]))
		mx, my := math.Log(ph(r.InsQuals[i])), math.Log(ph(r.DelQuals[i]))
		for j := 1; j <= h; j++ {
			x, y := r.Bases[i], hap[j-1]
			prior := e / 3
			if x == y || x == 'N' || y == 'N' {
				prior = 1 - e
			}
			cM[j] = math.Log(prior) + lse(pM[j-1]+mm, pX[j-1]+gapm, pY[j-1]+gapm)
			cX[j] = lse(pM[j]+mx, pX[j]+gcp)
			cY[j] = lse(cM[j-1]+my, cY[j-1]+gcp)
		}
		pM, pX, pY = cM, cX, cY
	}
	terms := make([]float64, 0, 2*h)
	for j := 1; j <= h; j++ {
		terms = append(terms, pM[j], pX[j])
	}
	return lse(terms...) / math.Ln10
}

// synthRead derives a read from a window of the haplotype with errors and
// indels, qualities drawn in [qlo, qhi].
func synthRead(rng *rand.Rand, hap []byte, n int, qlo, qhi int, related bool) Read {
	const acgt = "ACGT"
	bases := make([]byte, 0, n)
	pos := rng.IntN(max(1, len(hap)-n))
	for len(bases) < n {
		switch {
		case !related || pos >= len(hap):
			bases = append(bases, acgt[rng.IntN(4)])
		case rng.Float64() < 0.02:
			bases = append(bases, acgt[rng.IntN(4)]) // substitution
			pos++
		case rng.Float64() < 0.01:
			pos += 1 + rng.IntN(3) // deletion
		case rng.Float64() < 0.01:
			bases = append(bases, acgt[rng.IntN(4)]) // insertion
		default:
			bases = append(bases, hap[pos])
			pos++
		}
	}
	if rng.IntN(10) == 0 {
		bases[rng.IntN(n)] = 'N'
	}
	q := func(lo, hi int) []byte {
		s := make([]byte, n)
		for i := range s {
			s[i] = byte(lo + rng.IntN(hi-lo+1))
		}
		return s
	}
	gcp := byte(10)
	if rng.IntN(2) == 0 {
		gcp = byte(qlo + rng.IntN(qhi-qlo+1))
	}
	gcps := make([]byte, n)
	for i := range gcps {
		gcps[i] = gcp
	}
	return Read{Bases: bases, BaseQuals: q(qlo, qhi), InsQuals: q(max(qlo, 5), qhi), DelQuals: q(max(qlo, 5), qhi), GCPQuals: gcps}
}

func synthHap(rng *rand.Rand, n int) []byte {
	const acgt = "ACGT"
	h := make([]byte, n)
	for i := range h {
		h[i] = acgt[rng.IntN(4)]
	}
	if rng.IntN(5) == 0 {
		h[rng.IntN(n)] = 'N'
	}
	return h
}

// syntheticCase is a set the shared sets lack: low qualities, reads of
// 250+ bases, haplotypes of 1,000+ bases, unrelated pairs whose likelihood
// is far below the float range (double pass) and below the double range
// (rescaled pass).
type syntheticCase struct {
	name             string
	readLen, hapLen  int
	qlo, qhi, nreads int
	related          bool
}

var syntheticCases = []syntheticCase{
	{"low qualities", 100, 150, 2, 15, 6, true},
	{"very low qualities", 60, 80, 0, 6, 4, true},
	{"long reads", 300, 400, 20, 45, 4, true},
	{"long haplotypes", 150, 1200, 10, 40, 3, true},
	{"long both", 260, 1000, 15, 40, 2, true},
	{"unrelated (double pass)", 60, 120, 20, 40, 3, false},
	{"unrelated long (rescaled pass)", 700, 800, 40, 60, 2, false},
}

// group draws the case's two haplotypes and reads from rng.
func (c syntheticCase) group(rng *rand.Rand) Group {
	haps := [][]byte{synthHap(rng, c.hapLen), synthHap(rng, c.hapLen+7)}
	var reads []Read
	for i := 0; i < c.nreads; i++ {
		reads = append(reads, synthRead(rng, haps[i%2], c.readLen-i, c.qlo, c.qhi, c.related))
	}
	return Group{Reads: reads, Haplotypes: haps}
}

// checkSynthetic compares the likelihoods res of the case's group g
// (read-major) with the double reference: within 1e-4 and finite where it
// is; the rescaled case must reach below the double range.
func checkSynthetic(t *testing.T, label string, c syntheticCase, g Group, res []float64) {
	t.Helper()
	worst, lowest := 0.0, 0.0
	for r := range g.Reads {
		for h := range g.Haplotypes {
			got := res[r*len(g.Haplotypes)+h]
			want := refLog10(&g.Reads[r], g.Haplotypes[h])
			if math.IsInf(want, 0) != math.IsInf(got, 0) || !(math.Abs(got-want) <= 1e-4 || got == want) {
				t.Errorf("%s read %d hap %d: %v, reference %v", label, r, h, got, want)
			}
			if !math.IsInf(want, 0) {
				worst = max(worst, math.Abs(got-want))
			}
			lowest = min(lowest, got)
		}
	}
	t.Logf("%s: largest difference %.2g, lowest log10 %.1f", label, worst, lowest)
	// The double pass covers down to about -615; make sure the rescaled
	// pass was needed and exercised.
	if c.name == "unrelated long (rescaled pass)" && lowest > -650 {
		t.Errorf("%s: lowest log10 %.1f does not reach below the double range", label, lowest)
	}
}

// TestSyntheticAgainstReference runs the synthetic cases on every CPU
// kernel.
func TestSyntheticAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for _, c := range syntheticCases {
		g := c.group(rng)
		for _, k := range kernels() {
			res, err := ComputeGroups([]Group{g}, Options{Backend: NewCPU(CPUOptions{Kernel: k})})
			if err != nil {
				t.Fatal(err)
			}
			checkSynthetic(t, c.name+"/"+k, c, g, res[0])
		}
	}
}

// TestZeroLikelihood: a base quality of 0 makes a match impossible
// (1 - 10^0 = 0) and a gap-continuation quality of 0 forbids leaving a gap,
// so every path has probability zero; GATK's answer, -inf, is exact.
func TestZeroLikelihood(t *testing.T) {
	z := []byte{0, 0}
	r := Read{Bases: []byte("AC"), BaseQuals: []byte{30, 30}, InsQuals: []byte{40, 40}, DelQuals: []byte{40, 40}, GCPQuals: z}
	res, err := Compute([]Read{r}, [][]byte{[]byte("ACGT")})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(res[0][0], -1) {
		t.Errorf("got %v, want -inf", res[0][0])
	}
}
