package vitfilter

import (
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// consensus is a high-scoring target: the best residue of nodes a..b,
// the stretch repeated reps times between random flanks (long repeats
// overflow HMMER's 16 bits).
func consensus(rng *rand.Rand, om *oprofile.VitProfile, K, reps int) []byte {
	a := 1 + rng.Intn(om.M)
	b := min(om.M, a+rng.Intn(200))
	dsq := randomSeq(rng, rng.Intn(30), K)
	for r := 0; r < reps; r++ {
		for k := a; k <= b; k++ {
			best := 0
			for x := 1; x < K; x++ {
				if om.RWV[x][k] > om.RWV[best][k] {
					best = x
				}
			}
			dsq = append(dsq, byte(best))
		}
		dsq = append(dsq, randomSeq(rng, rng.Intn(20), K)...)
	}
	return dsq
}

// shimTargets mixes random targets of 0 to 300 residues, a few long
// ones, strong hits, overflowing repeats and targets of one residue code
// (code floor: a code with no allowed match when the profile has one).
func shimTargets(rng *rand.Rand, om *oprofile.VitProfile, K, Kp, n int, floor int) [][]byte {
	var dsqs [][]byte
	for i := 0; i < n; i++ {
		dsqs = append(dsqs, randomSeq(rng, rng.Intn(301), K))
	}
	long, reps := 2500, 40
	if om.M > 300 { // as long in cells, for the emulator's sake
		long, reps = 300+750000/om.M, 12
	}
	dsqs = append(dsqs, randomSeq(rng, long, K), nil, randomSeq(rng, 1, K))
	for i := 0; i < 4; i++ {
		dsqs = append(dsqs, consensus(rng, om, K, 1), consensus(rng, om, K, 1+rng.Intn(3)))
	}
	dsqs = append(dsqs, consensus(rng, om, K, reps))
	if floor >= 0 {
		one := make([]byte, 1+rng.Intn(50))
		for i := range one {
			one[i] = byte(floor)
		}
		dsqs = append(dsqs, one)
	}
	return dsqs
}

// withDDBound sets HMMER's lazy-F bound (oprofile computes it from the
// model; randomProfile leaves it 0): the most a D->D step and the D->M
// after it gain over the B->M entry they compete with.
func withDDBound(p *oprofile.VitProfile) *oprofile.VitProfile {
	p.DDBound = -32768
	for k := 2; k < p.M-1; k++ {
		p.DDBound = max(p.DDBound, int(p.T[k][oprofile.VDD])+int(p.T[k+2][oprofile.VDM])-int(p.T[k+2][oprofile.VBM]))
	}
	return p
}

// floorsProfile is a wild random profile kept inside planDPX's domain:
// impossible (-32768) transitions and match scores everywhere except
// B->M, no positive scores beyond ordinary ones. Code Kp-1 matches
// nothing.
func floorsProfile(rng *rand.Rand, M, Kp int) *oprofile.VitProfile {
	p := randomProfile(rng, M, Kp, true)
	for k := 1; k <= M; k++ {
		for x := range p.RWV {
			if p.RWV[x][k] > 1500 {
				p.RWV[x][k] = 1500
			}
		}
		p.RWV[Kp-1][k] = -32768
		t := &p.T[k]
		if t[oprofile.VBM] < -9000 {
			t[oprofile.VBM] = -9000
		}
		for i := range t {
			t[i] = min(t[i], 0)
		}
	}
	p.Stripe()
	return withDDBound(p)
}

// TestKernelsOnCPURandom: random profiles of 1 to 1000 nodes (every
// shape family), ordinary, with floors (impossible transitions and
// matches) and wild (positive or extreme scores: vit_kernel only).
func TestKernelsOnCPURandom(t *testing.T) {
	t.Parallel() // mostly compilers and single-threaded child processes
	rng := rand.New(rand.NewSource(16))
	Ms := []int{1, 2, 3, 8, 17, 33, 64, 127, 300, 1000}
	if testing.Short() {
		Ms = []int{1, 3, 16, 33, 100, 300}
	}
	var c shimCounts
	for i, M := range Ms {
		const K, Kp = 20, 21
		// Every model the argument covers takes a DPX kernel (headroom
		// 0); both kernels on every shape family.
		cfg := dpxConfig{headroom: 0, minNodes: []int{8, 16, 32}[i%3], kernel: []string{"vit16_kernel", "vit16p_kernel"}[i%2]}
		var om *oprofile.VitProfile
		floor := -1
		switch i % 3 {
		case 0, 1:
			om = withDDBound(randomProfile(rng, M, Kp, false))
		case 2:
			om, floor = floorsProfile(rng, M, Kp), Kp-1
		}
		shimScores(t, "random", cfg, om, Kp, shimTargets(rng, om, K, Kp, 30, floor), &c)
		if i%4 == 3 {
			om = withDDBound(randomProfile(rng, M, Kp, true))
			shimScores(t, "wild", cfg, om, Kp, shimTargets(rng, om, K, Kp, 20, -1), &c)
		}
	}
	t.Log(c)
	if c.dpx == 0 || c.overflow == 0 {
		t.Errorf("the DPX kernels not exercised: %v", c)
	}
}

// TestKernelsOnCPUModels: testdata models and three CUDAMPF query models
// (M = 400, 1901, 2405; where ../shared is present) with the default
// headroom, against protein (or DNA) targets, strong hits and repeats.
func TestKernelsOnCPUModels(t *testing.T) {
	t.Parallel() // mostly compilers and single-threaded child processes
	rng := rand.New(rand.NewSource(17))
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	dir := testutil.Testdata(t, "hmmer3")
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	// A sample (the GPU test takes them all; each shape here costs a C++
	// compilation): protein and DNA, M = 1 to 2405.
	var models []*hmm.HMM
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		switch h.Name {
		case "M1", "XYPPX", "3box", "MADE1", "2OG-FeII_Oxy_3-nt", "Caudal_act", "Pkinase", "Patched":
			models = append(models, h)
		}
	}
	if !testing.Short() {
		for _, h := range testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz")) {
			if h.M == 400 || h.M == 1901 || h.M == 2405 {
				models = append(models, h)
			}
		}
	}
	var c shimCounts
	for mi, h := range models {
		cfg := currentDPX()
		cfg.kernel = []string{"vit16_kernel", "vit16p_kernel"}[mi%2]
		om := oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)
		dsqs := nuc
		if h.Alph.Type != alphabet.DNA {
			dsqs = nil
			for i := 0; i < min(24, 2400000/(h.M*300)); i++ {
				dsqs = append(dsqs, prot[rng.Intn(len(prot))])
			}
		}
		dsqs = append(dsqs[:len(dsqs):len(dsqs)], shimTargets(rng, &om.Vit, h.Alph.K, h.Alph.Kp, 8, -1)...)
		shimScores(t, h.Name, cfg, &om.Vit, h.Alph.Kp, dsqs, &c)
	}
	t.Log(c)
	if c.fallbackModels > 0 {
		t.Errorf("real models left to vit_kernel: %v", c)
	}
}
