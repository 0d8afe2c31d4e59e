package msvfilter

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// TestEarlyOnCPU runs the early pass's device steps (early.go) on the CPU
// shim: the SSV kernel over the long targets in windows, ssv_decide, and
// msv_kernel with MSV_MASK over all long targets. ssv_decide must mark
// exactly the targets the host's ssvDecide decides (from the plain-integer
// SSV maximum), and the masked pass must give every other long target
// DPScore's score and write nothing for the marked ones.
func TestEarlyOnCPU(t *testing.T) {
	amino := alphabet.New(alphabet.Amino)
	for n, M := range []int{10, 16, 25, 40} {
		t.Run(fmt.Sprint("M=", M), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewSource(int64(71 + n)))
			h := testmodels.RandomHMM(rng, amino, M)
			om := &oprofile.Convert(profile.Config(h, profile.NewBackground(amino), 100), h).MSV
			var dsqs [][]byte
			for range 3 {
				dsqs = append(dsqs, msvTargets(rng, om, amino.Kp)...)
			}
			for range 40 {
				dsqs = append(dsqs, testmodels.RandomDsq(rng, amino, 150+rng.Intn(900)))
			}
			earlyOnCPU(t, om, amino.Kp, dsqs, 60)
			decideOnCPU(t, rng, om, amino.Kp)
		})
	}
}

// decideOnCPU runs ssv_decide on every SSV maximum from 0 to 299 (the
// cells' whole range and past the overflow) at random lengths, against
// ssvScores' test.
func decideOnCPU(t *testing.T, rng *rand.Rand, om *oprofile.MSVProfile, Kp int) {
	const n = 300
	dsqs := make([][]byte, n)
	idx := make([]int, n)
	words, tjbm := make([]byte, 4*n), make([]byte, 4*n)
	for i := range dsqs {
		dsqs[i] = make([]byte, 1+rng.Intn(3000))
		idx[i] = i
		binary.LittleEndian.PutUint32(words[4*i:], uint32(i))
	}
	s := ssvShapeFor(om.M, Kp)
	var in cudacpu.Input
	in.Put([]int32{2, n, n, int32((n + s.Block - 1) / s.Block), 0, int32(om.Bias), 0, 0})
	in.Arrays(words, decideInput(om, dsqs, idx), nil, tjbm)
	marked := cudacpu.Words(t, cudacpu.Run(t, shimExe(t, s), "ssv_decide", &in), n)
	out := make([]float32, n)
	rest := ssvScores(om, dsqs, words, out)
	undecided := map[int]bool{}
	for _, i := range rest {
		undecided[i] = true
	}
	for i := range n {
		if undecided[i] == (marked[i] == 0xffffffff) {
			t.Errorf("M=%d maximum %d (L=%d): ssv_decide marked %#x, ssvScores undecided %v", om.M, i, len(dsqs[i]), marked[i], undecided[i])
		}
	}
}

func earlyOnCPU(t *testing.T, om *oprofile.MSVProfile, Kp int, dsqs [][]byte, rows int) {
	n := len(dsqs)
	var long []int
	for i, d := range dsqs {
		if len(d) > rows {
			long = append(long, i)
		}
	}
	s, ms := ssvShapeFor(om.M, Kp), msvShapeFor(om.M, Kp)
	mk := ms
	mk.Mask = 1
	overlap := windowOverlap(s.T, om.M, ssvNodesFor(om.M))
	step := (max(minStepOverlaps*overlap, 64) + 31) &^ 31
	maxima := shimSSV(t, s, om, Kp, gpudb.PackWindows(dsqs, long, s.T, step, overlap), n)

	tjbm := make([]byte, 4*n)
	for _, i := range long {
		binary.LittleEndian.PutUint32(tjbm[4*i:], uint32(uint8(om.TJBFor(len(dsqs[i]))+om.TBM)))
	}
	var in cudacpu.Input
	words := make([]byte, 4*n)
	for i, w := range maxima {
		binary.LittleEndian.PutUint32(words[4*i:], w)
	}
	in.Put([]int32{2, int32(len(long)), int32(n), int32((len(long) + s.Block - 1) / s.Block), 0, int32(om.Bias), 0, 0})
	in.Arrays(words, decideInput(om, dsqs, long), nil, tjbm)
	marked := cudacpu.Words(t, cudacpu.Run(t, shimExe(t, s), fmt.Sprintf("ssv_decide (%+v)", s), &in), n)

	undecided := 0
	for _, i := range long {
		p := *om
		p.TJB = om.TJBFor(len(dsqs[i]))
		ok := false
		if ssvApplies(&p) {
			w := ssvMaxW(dsqs[i], om)
			cell := uint8(255)
			if int(w) < 127-int(p.Bias) {
				cell = uint8(w) + 128
			}
			_, ok = ssvDecide(cell, &p)
		}
		if ok != (marked[i] == 0xffffffff) {
			t.Fatalf("M=%d target %d (L=%d): ssv_decide marked %#x, host decides %v", om.M, i, len(dsqs[i]), marked[i], ok)
		}
		if !ok {
			undecided++
		}
		binary.LittleEndian.PutUint32(tjbm[4*i:], marked[i])
	}
	if undecided == 0 || undecided == len(long) {
		t.Fatalf("M=%d: %d of %d long targets undecided: want both kinds", om.M, undecided, len(long))
	}

	packed := gpudb.Pack(dsqs, long, mk.T)
	prof := msvProfileWords(mk, Kp, om.Bias, func(x, node int) int16 {
		if node > om.M {
			return 255
		}
		return int16(om.RBV[x][node])
	})
	var min cudacpu.Input
	min.Put([]int32{1, int32(packed.NBlocks), int32(n), 2, int32(mk.msvSharedBytes()), int32(om.Bias), int32(om.Base), int32(om.TEC)})
	min.Arrays(prof, packed.Res, packed.Table, tjbm)
	got := cudacpu.Words(t, cudacpu.Run(t, shimExe(t, mk), fmt.Sprintf("msv_kernel (%+v)", mk), &min), n)
	for _, i := range long {
		if marked[i] == 0xffffffff {
			if got[i] != 0x5a5a {
				t.Errorf("M=%d target %d: decided, but the masked pass wrote %#x", om.M, i, got[i])
			}
			continue
		}
		p := *om
		p.TJB = om.TJBFor(len(dsqs[i]))
		score := float32(math.Inf(1))
		if got[i] != 0xffff {
			score = finalScore(int(got[i]), &p)
		}
		if want := DPScore(dsqs[i], &p); math.Float32bits(score) != math.Float32bits(want) {
			t.Errorf("M=%d %+v: target %d (L=%d): masked pass %v, DPScore %v", om.M, mk, i, len(dsqs[i]), score, want)
		}
	}
	t.Logf("M=%d: %d long targets, %d undecided", om.M, len(long), undecided)
}
