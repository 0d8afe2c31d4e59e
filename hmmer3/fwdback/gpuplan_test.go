package fwdback

import (
	"errors"
	"math"
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

// emulateKernel runs fwd.cu's schedule on the CPU from the plan's arrays:
// four lanes per target, each doing its thread's operations in the
// kernel's order (deferred rescaling, the E sum folded into the D->D
// passes), the lane crossings done as the shuffles do them. It returns
// what the kernel writes: the final C value of each target and the
// rescaled rows.
func emulateKernel(p *fwdPlan, dsqs [][]byte) (outC []float32, recs []scaleRecord) {
	outC = make([]float32, len(dsqs))
	Q := p.Q
	fromLeft := func(v [4]float32) [4]float32 { return [4]float32{0, v[0], v[1], v[2]} }
	trans := func(q, z, t int) float32 { return p.Trans[(q*4+z)*kernelTransSlots+t] }
	for seq, dsq := range dsqs {
		if len(dsq) == 0 {
			continue
		}
		var mm, ii, dd [4][]float32
		for z := range mm {
			mm[z], ii[z], dd[z] = make([]float32, Q), make([]float32, Q), make([]float32, Q)
		}
		ploop, pmove := p.LoopMove[2*seq], p.LoopMove[2*seq+1]
		xN, xJ, xC, xB := float32(1), float32(0), float32(0), pmove
		inv := float32(1)
		for i, r := range dsq {
			x := int(r)
			if x > p.Kp {
				x = p.Kp
			}
			var last [3][4]float32
			for z := 0; z < 4; z++ {
				last[0][z] = fmul(mm[z][Q-1], inv)
				last[1][z] = fmul(ii[z][Q-1], inv)
				last[2][z] = fmul(dd[z][Q-1], inv)
			}
			mpv, ipv, dpv := fromLeft(last[0]), fromLeft(last[1]), fromLeft(last[2])
			var xEv, dcv [4]float32
			for z := 0; z < 4; z++ {
				for q := 0; q < Q; q++ {
					sv := fmul(xB, trans(q, z, oprofile.FBM))
					sv += fmul(mpv[z], trans(q, z, oprofile.FMM))
					sv += fmul(ipv[z], trans(q, z, oprofile.FIM))
					sv += fmul(dpv[z], trans(q, z, oprofile.FDM))
					sv = fmul(sv, p.Odds[(x*p.QS+q)*4+z])
					xEv[z] += sv
					mpv[z], ipv[z], dpv[z] = fmul(mm[z][q], inv), fmul(ii[z][q], inv), fmul(dd[z][q], inv)
					mm[z][q] = sv
					ii[z][q] = fmul(mpv[z], trans(q, z, oprofile.FMI)) + fmul(ipv[z], trans(q, z, oprofile.FII))
					dd[z][q] = dcv[z]
					dcv[z] = fmul(sv, trans(q, z, oprofile.FMD))
				}
			}
			dcv = fromLeft(dcv)
			for z := 0; z < 4; z++ {
				dd[z][0] = 0
				for q := 0; q < Q; q++ {
					dd[z][q] = dcv[z] + dd[z][q]
					dcv[z] = fmul(dd[z][q], trans(q, z, 7))
				}
			}
			run, xEf := true, xEv
			for j := 1; j < 4 && run; j++ {
				dcv = fromLeft(dcv)
				changed := false
				xc := xEv
				for z := 0; z < 4; z++ {
					for q := 0; q < Q; q++ {
						s := dcv[z] + dd[z][q]
						changed = changed || s > dd[z][q]
						dd[z][q] = s
						xc[z] = s + xc[z]
						dcv[z] = fmul(dcv[z], trans(q, z, 7))
					}
				}
				xEf = xc
				if p.Check {
					run = changed
				}
			}
			xE := (xEf[0] + xEf[1]) + (xEf[2] + xEf[3])
			xN = fmul(xN, ploop)
			xC = fmul(xC, ploop) + fmul(xE, p.EMove)
			xJ = fmul(xJ, ploop) + fmul(xE, p.ELoop)
			xB = fmul(xJ, pmove) + fmul(xN, pmove)
			inv = 1
			if xE > 1.0e4 {
				xN, xC, xJ, xB = fdiv(xN, xE), fdiv(xC, xE), fdiv(xJ, xE), fdiv(xB, xE)
				inv = ftz64(1.0 / float64(xE))
				recs = append(recs, scaleRecord{Seq: int32(seq), Row: int32(i + 1), XE: xE})
			}
		}
		outC[seq] = xC
	}
	// The kernel's records arrive in no particular order.
	rand.New(rand.NewSource(int64(len(recs)))).Shuffle(len(recs), func(a, b int) { recs[a], recs[b] = recs[b], recs[a] })
	return outC, recs
}

func optimizedProfile(h *hmm.HMM) *oprofile.Profile {
	bg := profile.NewBackground(h.Alph)
	return oprofile.Convert(profile.Config(h, bg, 100), h)
}

// cpuScores is the reference: Forward with each target's length model.
func cpuScores(om *oprofile.Profile, dsqs [][]byte, lengths []int) ([]float32, []error) {
	return cpuForwardScores(om, dsqs, lengths, func(int) bool { return true })
}

func ownLengths(dsqs [][]byte) []int {
	l := make([]int, len(dsqs))
	for i, d := range dsqs {
		l[i] = len(d)
	}
	return l
}

// compareScores fails the test on every target whose score or error
// differs from the reference by a single bit.
func compareScores(t *testing.T, what string, dsqs [][]byte, got []float32, gotErr []error, want []float32, wantErr []error) {
	t.Helper()
	bad := 0
	for i := range dsqs {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) || !errors.Is(gotErr[i], wantErr[i]) || (gotErr[i] == nil) != (wantErr[i] == nil) {
			bad++
			if bad <= 5 {
				t.Errorf("%s: target %d (L=%d): got %v (%v), Forward %v (%v)", what, i, len(dsqs[i]), got[i], gotErr[i], want[i], wantErr[i])
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d targets differ", what, bad, len(dsqs))
	}
}

func checkEmulation(t *testing.T, what string, om *oprofile.Profile, dsqs [][]byte, lengths []int) {
	t.Helper()
	plan, err := newFwdPlan(om, lengths)
	if err != nil {
		t.Fatal(err)
	}
	if !plan.exactOnGPU() {
		t.Fatalf("%s: profile has subnormal values", what)
	}
	outC, recs := emulateKernel(plan, dsqs)
	got, gotErr, err := assembleScores(plan, dsqs, outC, recs)
	if err != nil {
		t.Fatal(err)
	}
	want, wantErr := cpuScores(om, dsqs, lengths)
	compareScores(t, what, dsqs, got, gotErr, want, wantErr)
}

// homolog strings together the most likely residue of every match state,
// reps times, with random residues between: a target that scores high
// enough to rescale many rows.
func homolog(rng *rand.Rand, h *hmm.HMM, reps int) []byte {
	var d []byte
	for r := 0; r < reps; r++ {
		d = append(d, testmodels.RandomDsq(rng, h.Alph, rng.Intn(30))...)
		for k := 1; k <= h.M; k++ {
			best := 0
			for x, p := range h.Mat[k] {
				if p > h.Mat[k][best] {
					best = x
				}
			}
			if rng.Intn(10) > 0 {
				d = append(d, byte(best))
			}
		}
	}
	return d
}

// modelOfSize is a random model of M nodes, or for a negative M a
// deletion-heavy one of -M nodes (the tests' lists of sizes use the sign).
func modelOfSize(rng *rand.Rand, abc *alphabet.Alphabet, M int) (*hmm.HMM, int) {
	if M < 0 {
		return deletionHeavy(testmodels.RandomHMM(rng, abc, -M)), -M
	}
	return testmodels.RandomHMM(rng, abc, M), M
}

// deletionHeavy makes long D->D chains likely, so that every D->D pass of
// a row changes values (the later passes only matter then).
func deletionHeavy(h *hmm.HMM) *hmm.HMM {
	for k := 1; k < h.M; k++ {
		t := &h.T[k]
		t[hmm.TMM], t[hmm.TMI], t[hmm.TMD] = 0.6, 0.05, 0.35
		t[hmm.TDM], t[hmm.TDD] = 0.05, 0.95
	}
	h.Name = "deletion-heavy"
	return h
}

func randomTargets(rng *rand.Rand, h *hmm.HMM, n, maxLen int) [][]byte {
	ds := [][]byte{{}, testmodels.RandomDsq(rng, h.Alph, 1), testmodels.RandomDsq(rng, h.Alph, 2), testmodels.RandomDsq(rng, h.Alph, 5)}
	for len(ds) < n {
		if rng.Intn(4) == 0 {
			ds = append(ds, homolog(rng, h, 1+rng.Intn(3)))
		} else {
			ds = append(ds, testmodels.RandomDsq(rng, h.Alph, 1+rng.Intn(maxLen)))
		}
	}
	return ds
}

// The kernel's schedule (deferred rescaling, the E sum folded into the
// D->D passes, per-lane arithmetic) gives Forward's scores bit for bit,
// for models across the M=100 switch of the D->D early stop, multihit and
// unihit, own and foreign length models, and targets that rescale often.
func TestKernelScheduleMatchesForward(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	amino := alphabet.New(alphabet.Amino)
	for _, M := range []int{1, 2, 3, 4, 5, 8, 13, 50, 99, 100, 101, 160, 333, -60, -140} {
		h, M := modelOfSize(rng, amino, M)
		om := optimizedProfile(h)
		n, maxLen := 40, 400
		if M > 100 {
			n, maxLen = 16, 300
		}
		dsqs := randomTargets(rng, h, n, maxLen)
		checkEmulation(t, h.Name+" multihit", om, dsqs, ownLengths(dsqs))
		if M == 8 || M == 101 {
			lengths := make([]int, len(dsqs))
			for i := range lengths {
				lengths[i] = len(dsqs[i]) + rng.Intn(500)
			}
			checkEmulation(t, h.Name+" other lengths", om, dsqs, lengths)
			om.ReconfigUnihit(om.L)
			checkEmulation(t, h.Name+" unihit", om, dsqs, ownLengths(dsqs))
		}
	}
}

func TestKernelScheduleRealModels(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		dsqs := prot
		if h.Alph.Type == alphabet.DNA {
			dsqs = nuc
		}
		if len(dsqs) > 40 {
			dsqs = dsqs[:40]
		}
		checkEmulation(t, h.Name, optimizedProfile(h), dsqs, ownLengths(dsqs))
	}
}

// Range errors come out where Forward reports them: with E->C closed, C
// stays zero.
func TestKernelScheduleRangeError(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	amino := alphabet.New(alphabet.Amino)
	h := testmodels.RandomHMM(rng, amino, 30)
	om := optimizedProfile(h)
	om.FB.XF[profile.XE][profile.Move] = 0
	dsqs := randomTargets(rng, h, 12, 100)
	checkEmulation(t, "E->C closed", om, dsqs, ownLengths(dsqs))
	plan, _ := newFwdPlan(om, ownLengths(dsqs))
	outC, recs := emulateKernel(plan, dsqs)
	_, errs, _ := assembleScores(plan, dsqs, outC, recs)
	if !errors.Is(errs[5], ErrRange) {
		t.Errorf("target 5: error %v, want ErrRange", errs[5])
	}
}

func TestPlanRejectsSubnormals(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	h := testmodels.RandomHMM(rng, alphabet.New(alphabet.Amino), 20)
	om := optimizedProfile(h)
	plan, err := newFwdPlan(om, []int{10, 20})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.exactOnGPU() {
		t.Fatal("a converted profile has subnormal values")
	}
	plan.Odds[17] = math.Float32frombits(1)
	if plan.exactOnGPU() {
		t.Error("a subnormal odds ratio went unnoticed")
	}
}

func TestAssembleRejectsStrayRecords(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	h := testmodels.RandomHMM(rng, alphabet.New(alphabet.Amino), 20)
	dsqs := [][]byte{testmodels.RandomDsq(rng, h.Alph, 4), {}}
	plan, _ := newFwdPlan(optimizedProfile(h), ownLengths(dsqs))
	outC := []float32{1, 0}
	for _, r := range []scaleRecord{{Seq: 0, Row: 5, XE: 2e4}, {Seq: 1, Row: 1, XE: 2e4}, {Seq: 2, Row: 1, XE: 2e4}} {
		if _, _, err := assembleScores(plan, dsqs, outC, []scaleRecord{r}); err == nil {
			t.Errorf("record %+v accepted", r)
		}
	}
}

func TestChooseShape(t *testing.T) {
	h100 := deviceLimits{SMs: 132, SharedOptin: 227 * 1024, SharedPerSM: 228 * 1024, ThreadsPerSM: 2048}
	rng := rand.New(rand.NewSource(1))
	amino := alphabet.New(alphabet.Amino)
	for _, tc := range []struct {
		M    int
		want Placement
	}{{10, PlaceShared}, {100, PlaceShared}, {250, PlaceShared}, {300, PlaceShared}, {400, PlaceShared}, {800, PlaceStateShared}, {1200, PlaceGlobal}, {2500, PlaceGlobal}} {
		plan, err := newFwdPlan(optimizedProfile(testmodels.RandomHMM(rng, amino, tc.M)), nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := chooseShape(PlaceAuto, plan, h100)
		if err != nil {
			t.Fatal(err)
		}
		if s.place != tc.want {
			t.Errorf("M=%d: placement %s, want %s", tc.M, s.place, tc.want)
		}
		if s.sharedBytes > h100.SharedOptin || s.Block%32 != 0 || s.Block > 1024 || s.grid < h100.SMs {
			t.Errorf("M=%d: shape %+v does not fit the device", tc.M, s)
		}
		if _, err := chooseShape(PlaceGlobal, plan, h100); err != nil {
			t.Errorf("M=%d: global placement: %v", tc.M, err)
		}
	}
	big, _ := newFwdPlan(optimizedProfile(testmodels.RandomHMM(rng, amino, 2500)), nil)
	if _, err := chooseShape(PlaceShared, big, h100); err == nil {
		t.Error("M=2500 fits shared memory?")
	}
	for _, s := range []string{"auto", "shared", "state-shared", "global"} {
		if p, err := ParsePlacement(s); err != nil || p.String() != s {
			t.Errorf("ParsePlacement(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := ParsePlacement("l2"); err == nil {
		t.Error("ParsePlacement accepted l2")
	}
}
