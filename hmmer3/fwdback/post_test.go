package fwdback

import (
	"fmt"
	"io"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// Tests of the domain kernels (Decoding, OptimalAccuracy, the null2 sums)
// at every level against the oracle in ref_test.go, HMMER's operations
// transcribed one for one. Values are compared bit for bit, except that
// any NaN matches any NaN: which NaN a sum of two NaNs keeps depends on
// operand order, which Go's compiler is free to choose.

func sameF(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// diffMatrix reports the first cell or special where a and b differ.
func diffMatrix(a, b *Matrix) string {
	if a.L != b.L || a.Q != b.Q || len(a.dp) != len(b.dp) || len(a.X) != len(b.X) {
		return fmt.Sprintf("shape L=%d/%d Q=%d/%d", a.L, b.L, a.Q, b.Q)
	}
	for j := range a.dp {
		for z := 0; z < 4; z++ {
			if !sameF(a.dp[j][z], b.dp[j][z]) {
				i, q, s := j/(3*a.Q), j%(3*a.Q)/3, j%3
				return fmt.Sprintf("row %d vector %d cell %d lane %d: %g (%08x) vs %g (%08x)", i, q, s, z,
					a.dp[j][z], math.Float32bits(a.dp[j][z]), b.dp[j][z], math.Float32bits(b.dp[j][z]))
			}
		}
	}
	for i := range a.X {
		for s := range a.X[i] {
			if !sameF(a.X[i][s], b.X[i][s]) {
				return fmt.Sprintf("special %d of row %d: %g vs %g", s, i, a.X[i][s], b.X[i][s])
			}
		}
	}
	return ""
}

func cloneMatrix(m *Matrix) *Matrix {
	c := *m
	c.dp = slices.Clone(m.dp)
	c.X = slices.Clone(m.X)
	c.totr, c.mask = nil, nil
	return &c
}

// postResult is everything domain definition takes from the kernels.
type postResult struct {
	decErr error
	pp, ox *Matrix
	oasc   float32
	null2  []float32
	tr     hits.Trace
}

// How runPost gets to its results: the oracle, the three calls, or the
// fused DecodeAlign.
type postMode int

const (
	modeRef postMode = iota
	modeCalls
	modeFused
)

// runPost decodes in place in a copy of bck and aligns into a copy of fwd
// (as domain definition does), then runs optimal accuracy, its traceback (when trace: only real
// matrices describe paths that a traceback can follow) and null2 by
// expectation.
func runPost(l simd.Level, om *oprofile.Profile, fwd, bck *Matrix, mode postMode, trace bool) postResult {
	r := postResult{pp: cloneMatrix(bck), ox: cloneMatrix(fwd), null2: make([]float32, om.Abc.Kp)}
	withLevel(l, func() {
		switch mode {
		case modeFused:
			r.oasc, r.decErr = DecodeAlign(om, r.ox, r.pp, r.null2)
		case modeRef:
			if r.decErr = refDecoding(om, fwd, r.pp, r.pp); r.decErr == nil {
				r.oasc = refOptimalAccuracy(om, r.pp, r.ox)
				refNull2ByExpectation(om, r.pp, r.null2)
			}
		case modeCalls:
			if r.decErr = Decoding(om, fwd, r.pp, r.pp); r.decErr == nil {
				r.oasc = OptimalAccuracy(om, r.pp, r.ox)
				Null2ByExpectation(om, r.pp, r.null2)
			}
		}
		if r.decErr == nil && trace {
			OATrace(om, r.pp, r.ox, &r.tr)
		}
	})
	return r
}

type postRun struct {
	level simd.Level
	mode  postMode
}

// postRuns lists the separate calls and DecodeAlign at every level.
func postRuns() []postRun {
	var rs []postRun
	for _, l := range simd.Available() {
		rs = append(rs, postRun{l, modeCalls}, postRun{l, modeFused})
	}
	return rs
}

func (m postMode) String() string { return [...]string{"oracle", "calls", "DecodeAlign"}[m] }

// comparePost checks every level, as separate calls and as DecodeAlign,
// against the oracle on one envelope.
func comparePost(t *testing.T, what string, om *oprofile.Profile, fwd, bck *Matrix, trace bool) {
	t.Helper()
	want := runPost(simd.Generic, om, fwd, bck, modeRef, trace)
	for _, run := range postRuns() {
		l := run.level
		got := runPost(l, om, fwd, bck, run.mode, trace)
		if (got.decErr == nil) != (want.decErr == nil) {
			t.Fatalf("%s: %s %s decoding error %v, oracle %v", what, l, run.mode, got.decErr, want.decErr)
		}
		if d := diffMatrix(got.pp, want.pp); d != "" {
			t.Fatalf("%s: %s %s posterior matrix differs: %s", what, l, run.mode, d)
		}
		if want.decErr != nil {
			continue
		}
		if d := diffMatrix(got.ox, want.ox); d != "" {
			t.Fatalf("%s: %s %s optimal accuracy matrix differs: %s", what, l, run.mode, d)
		}
		if !sameF(got.oasc, want.oasc) {
			t.Fatalf("%s: %s %s optimal accuracy %g, oracle %g", what, l, run.mode, got.oasc, want.oasc)
		}
		for x := range want.null2 {
			if !sameF(got.null2[x], want.null2[x]) {
				t.Fatalf("%s: %s %s null2[%d] = %g, oracle %g", what, l, run.mode, x, got.null2[x], want.null2[x])
			}
		}
		if !slices.Equal(got.tr.St, want.tr.St) || !slices.Equal(got.tr.K, want.tr.K) || !slices.Equal(got.tr.I, want.tr.I) {
			t.Fatalf("%s: %s %s optimal accuracy trace differs", what, l, run.mode)
		}
		for z := range want.tr.PP {
			if !sameF(got.tr.PP[z], want.tr.PP[z]) {
				t.Fatalf("%s: %s %s trace posterior %d differs", what, l, run.mode, z)
			}
		}
	}
}

// TestDomainKernelsRealModels: envelopes as domain definition rescores
// them (unihit, full Forward and Backward of the envelope) for every
// testdata model against sampled targets of its database.
func TestDomainKernelsRealModels(t *testing.T) {
	models, _ := filepath.Glob(filepath.Join(testutil.Testdata(t, "hmmer3/models"), "*.hmm.gz"))
	if len(models) == 0 {
		t.Fatal("no testdata models")
	}
	for _, path := range models {
		om := loadModel(t, path)
		db := "prot.fa"
		if om.Abc.K == 4 {
			db = "synth_dna.fa"
		}
		sr, err := seqio.Open(testutil.Testdata(t, "hmmer3/"+db), nil, om.Abc)
		if err != nil {
			t.Fatal(err)
		}
		step := max(6, om.M/40)
		for n := 0; ; n++ {
			sq, err := sr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if n%step != 0 || sq.L() == 0 {
				continue
			}
			dsq := sq.Dsq
			if len(dsq) > 600 { // an envelope-sized piece
				dsq = dsq[:600]
			}
			om.ReconfigUnihit(len(dsq))
			fwd, bck := NewMatrix(), NewMatrix()
			if _, err := Forward(dsq, om, fwd, true); err != nil {
				continue
			}
			if _, err := Backward(dsq, om, fwd, bck, true); err != nil {
				continue
			}
			comparePost(t, filepath.Base(path)+" vs "+sq.Name, om, fwd, bck, true)
		}
		sr.Close()
	}
}

// wildFloat draws the values that make the kernels' operand order and
// flushing visible: zeros of both signs, subnormals, values at the
// flush-to-zero threshold, infinities, NaN, negatives and plain ones.
func wildFloat(rng *rand.Rand) float32 {
	switch rng.Intn(24) {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return math.Float32frombits(1 + uint32(rng.Intn(0x7fffff))) // subnormal
	case 3:
		return math.Float32frombits(0x00800000 + uint32(rng.Intn(4))) // FLT_MIN and just above
	case 4:
		return math.Float32frombits(0x3f7fffff - uint32(rng.Intn(3))) // just below 1
	case 5:
		return float32(math.Inf(1))
	case 6:
		return float32(math.Inf(-1))
	case 7:
		if rng.Intn(4) == 0 {
			return float32(math.NaN())
		}
		return -float32(rng.Float64())
	case 8, 9:
		return float32(math.Ldexp(1+rng.Float64(), -60-rng.Intn(8))) // products reach the threshold
	case 10:
		return float32(math.Ldexp(1+rng.Float64(), 40+rng.Intn(80)))
	}
	return float32(rng.Float64())
}

// randomFull returns a full matrix of M nodes and L rows of wild values.
func randomFull(rng *rand.Rand, M, L int, tame bool) *Matrix {
	mx := NewMatrix()
	mx.grow(M, L, true)
	for j := range mx.dp {
		for z := 0; z < 4; z++ {
			if tame {
				mx.dp[j][z] = float32(rng.Float64())
				if rng.Intn(6) == 0 {
					mx.dp[j][z] = 0
				}
			} else {
				mx.dp[j][z] = wildFloat(rng)
			}
		}
	}
	for i := range mx.X {
		for s := range mx.X[i] {
			mx.X[i][s] = wildFloat(rng)
			if tame || rng.Intn(2) == 0 {
				mx.X[i][s] = float32(rng.Float64())
			}
		}
		if rng.Intn(3) == 0 {
			mx.X[i][XScale] = 1
		}
	}
	mx.HasOwnScales = rng.Intn(2) == 0
	return mx
}

// randomPostCase builds a profile with many zero transitions (the
// optimal accuracy masks) and Forward/Backward-shaped matrices of wild
// or tame values.
func randomPostCase(rng *rand.Rand, M, L int) (*oprofile.Profile, *Matrix, *Matrix) {
	abc := alphabet.New(alphabet.DNA)
	om := randomOdds(rng, M, abc.Kp)
	om.Abc = abc
	for i := range om.FB.TF {
		for z := 0; z < 4; z++ {
			switch rng.Intn(10) {
			case 0, 1:
				om.FB.TF[i][z] = 0
			case 2:
				om.FB.TF[i][z] = wildFloat(rng)
			}
		}
	}
	if rng.Intn(3) == 0 { // rows of D->D > 0 everywhere in some lanes (ddAll)
		for q := 0; q < om.FB.Q; q++ {
			om.FB.TF[7*om.FB.Q+q] = vec{0.5, 0.5, 0.5, 0.5}
		}
	}
	for s := range om.FB.XF {
		for t := range om.FB.XF[s] {
			if rng.Intn(4) == 0 {
				om.FB.XF[s][t] = 0
			}
		}
	}
	tame := rng.Intn(3) == 0
	fwd := randomFull(rng, M, L, tame)
	bck := randomFull(rng, M, L, tame)
	bck.HasOwnScales = fwd.HasOwnScales
	return om, fwd, bck
}

func TestDomainKernelsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 300; trial++ {
		M := 1 + rng.Intn(60)
		if trial%10 == 0 {
			M = 100 + rng.Intn(500)
		}
		L := 1 + rng.Intn(40)
		om, fwd, bck := randomPostCase(rng, M, L)
		comparePost(t, fmt.Sprintf("trial %d (M=%d L=%d)", trial, M, L), om, fwd, bck, false)
	}
}

func FuzzDomainKernels(f *testing.F) {
	f.Add(int64(1), uint16(30), uint8(12))
	f.Add(int64(2), uint16(300), uint8(3))
	f.Add(int64(3), uint16(1), uint8(1))
	f.Fuzz(func(t *testing.T, seed int64, m uint16, l uint8) {
		rng := rand.New(rand.NewSource(seed))
		M, L := 1+int(m%700), 1+int(l%64)
		om, fwd, bck := randomPostCase(rng, M, L)
		comparePost(t, fmt.Sprintf("seed %d M=%d L=%d", seed, M, L), om, fwd, bck, false)
	})
}
