package msvfilter

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// These tests run msv.cu itself on the CPU: internal/cudacpu's emu.h and
// dpx.h stand in for the CUDA built-ins (each GPU
// thread a coroutine, shuffles exchanged between them, DPX 16x2 adds
// wrapping as on the device), fed through the same packing and profile
// words as gpu.go. NVRTC and the device itself are gpu_test.go's.

var shims = cudacpu.Builds[gpuShape]{Name: "msvcpu"}

func TestMain(m *testing.M) {
	code := m.Run()
	shims.Remove()
	os.Exit(code)
}

// shimExe compiles msv.cu for shape s once per test binary, or skips.
func shimExe(t *testing.T, s gpuShape) string {
	t.Helper()
	cc := cudacpu.Compiler(t, "msv.cu")
	return shims.Exe(t, s, func(dir string) (string, error) {
		files := map[string]string{"defs.h": s.defines(), "msv.cu": cudaSource}
		if err := cudacpu.ReadFiles(files, "testdata/cudacpu/driver.cc"); err != nil {
			return "", err
		}
		exe, err := cudacpu.Compile(cc, dir, "msvcpu", files, "-O1", "-fwrapv")
		if err != nil {
			return "", fmt.Errorf("compiling msv.cu with the CPU shim (%+v): %w", s, err)
		}
		return exe, nil
	})
}

// shimSSV runs ssv_kernel over a packed layout and returns its raw
// maxima, indexed as the n targets.
func shimSSV(t *testing.T, s gpuShape, om *oprofile.MSVProfile, Kp int, packed *gpudb.Packed, n int) []uint32 {
	t.Helper()
	prof := ssvProfileWords(s, Kp, om)
	var in cudacpu.Input
	in.Put([]int32{0, int32(packed.NBlocks), int32(n), 2, int32(s.ssvSharedBytes()), 0, 0, 0})
	in.Arrays(prof, packed.Res, packed.Table, nil)
	return cudacpu.Words(t, cudacpu.Run(t, shimExe(t, s), fmt.Sprintf("ssv_kernel (%+v)", s), &in), n)
}

// ssvMaxW is what ssv_kernel computes, in plain integers: the best
// diagonal segment sum of bias - cost, clipped at 0.
func ssvMaxW(dsq []byte, om *oprofile.MSVProfile) uint32 {
	prev, cur := make([]int, om.M+1), make([]int, om.M+1)
	best := 0
	for _, x := range dsq {
		for k := 1; k <= om.M; k++ {
			cur[k] = max(prev[k-1]+int(om.Bias)-int(om.RBV[x][k]), 0)
			best = max(best, cur[k])
		}
		prev, cur = cur, prev
	}
	return uint32(best)
}

// consensus is the residue of node k's lowest cost.
func consensus(om *oprofile.MSVProfile, k int) byte {
	best := 0
	for x := 1; x < 20; x++ {
		if om.RBV[x][k] < om.RBV[best][k] {
			best = x
		}
	}
	return byte(best)
}

// TestSSVWindowsOnCPU runs ssv_kernel over windowed layouts of targets
// far longer than the windows, with lengths on and around the window
// boundaries, for models of 1 to 200 nodes (every T up to 16), with one
// profile table and with a copy per target of a warp, one row a step and
// two (SSV_ROWS): every target's
// maximum must equal the whole target's (the plain-integer reference),
// and the scores SSV decides, with DPScore for the rest, must be Score's
// bit for bit.
func TestSSVWindowsOnCPU(t *testing.T) {
	amino := alphabet.New(alphabet.Amino)
	// Both ends of every T's range and nodes bucket (ssvShapeFor: T = 1
	// up to 150 in buckets of 12, 24, 48, 64 and 128 nodes, 8 up to 383
	// ...), where the overlap is the bucket's (at M = 127, M - 1).
	Ms := []int{1, 10, 23, 24, 47, 50, 63, 64, 127, 128, 150, 151, 191, 200}
	if testing.Short() {
		Ms = []int{1, 24, 61, 200}
	}
	for n, M := range Ms {
		t.Run(fmt.Sprint("M=", M), func(t *testing.T) {
			t.Parallel()
			ssvWindowsOnCPU(t, rand.New(rand.NewSource(int64(11+n))), amino, n%2 == 0, M)
		})
	}
}

// ssvWindowsOnCPU is one model of TestSSVWindowsOnCPU: a random byte
// profile with the extreme costs (extremes) or a random HMM's.
func ssvWindowsOnCPU(t *testing.T, rng *rand.Rand, amino *alphabet.Alphabet, extremes bool, M int) {
	Kp := amino.Kp
	var om *oprofile.MSVProfile
	if extremes {
		om = randomProfile(rng, M, Kp)
	} else {
		h := testmodels.RandomHMM(rng, amino, M)
		o := profileOf(h)
		om = &o.MSV
	}
	s := ssvShapeFor(M, Kp)
	overlap := windowOverlap(s.T, M, ssvNodesFor(M))
	step := 17 + rng.Intn(60)
	var dsqs [][]byte
	for _, L := range []int{0, 1, 2, 3, 5, step, step + overlap - 1, step + overlap, step + overlap + 1,
		2*step - 1, 2*step + overlap, 3*step + overlap + 1, 5*step - 1, 5 * step, 5*step + 1, 7*step + 3, 1000 + rng.Intn(500)} {
		d := make([]byte, L)
		for i := range d {
			d[i] = byte(rng.Intn(20))
			if rng.Intn(50) == 0 {
				d[i] = byte(rng.Intn(Kp))
			}
		}
		dsqs = append(dsqs, d)
	}
	// Best-scoring full-length diagonals ending on and next to
	// window starts, where too short an overlap would cut them.
	for _, d := range dsqs[len(dsqs)-5:] {
		for a := step; a+1 < len(d); a += step {
			end := a + rng.Intn(3) - 1
			for k := M; k >= 1 && end-(M-k) >= 0; k-- {
				d[end-(M-k)] = consensus(om, k)
			}
		}
	}
	idx := make([]int, len(dsqs))
	for i := range idx {
		idx[i] = i
	}
	for _, v := range [][2]int{{1, 1}, {1, 32 / s.T}, {2, 1}, {2, 32 / s.T}} {
		s = s.withRows(v[0])
		s.Copies = v[1]
		got := shimSSV(t, s, om, Kp, gpudb.PackWindows(dsqs, idx, s.T, step, overlap), len(dsqs))
		bad := 0
		for i, d := range dsqs {
			if want := ssvMaxW(d, om); got[i] != want {
				if bad++; bad <= 3 {
					t.Errorf("M=%d %+v step %d overlap %d: target %d (L=%d): windows %d, whole %d", M, s, step, overlap, i, len(d), got[i], want)
				}
			}
		}
		scores := make([]float32, len(dsqs))
		rest, _ := ssvScores(om, lensOf(dsqs), le32(got), scores, nil)
		for _, i := range rest {
			p := *om
			p.TJB = om.TJBFor(len(dsqs[i]))
			scores[i] = DPScore(dsqs[i], &p)
		}
		for i, d := range dsqs {
			p := *om
			p.TJB = om.TJBFor(len(d))
			if want := Score(d, &p); len(d) > 0 && math.Float32bits(scores[i]) != math.Float32bits(want) {
				t.Errorf("M=%d %+v: target %d (L=%d): score %v, Score %v", M, s, i, len(d), scores[i], want)
			}
		}
	}
}

// shimMSV runs msv_kernel over a packed layout of targets idx of dsqs
// and returns its 16-bit results (xJ, or 0xffff for overflow), indexed
// as dsqs.
func shimMSV(t *testing.T, s gpuShape, om *oprofile.MSVProfile, Kp int, dsqs [][]byte, idx []int) []uint32 {
	t.Helper()
	return shimMSVKernel(t, s, 1, om, Kp, dsqs, idx, gpudb.Pack(dsqs, idx, s.T))
}

// shimMSVKernel runs msv_kernel (kind 1) or msv_seg_kernel (kind 2)
// over packed, a layout of targets idx of dsqs, as shimMSV.
func shimMSVKernel(t *testing.T, s gpuShape, kind int32, om *oprofile.MSVProfile, Kp int, dsqs [][]byte, idx []int, packed *gpudb.Packed) []uint32 {
	t.Helper()
	prof := msvProfileWords(s, Kp, om.Bias, func(x, node int) int16 {
		if node > om.M {
			return 255
		}
		return int16(om.RBV[x][node])
	})
	tjbm := make([]byte, 4*len(dsqs))
	for _, i := range idx {
		binary.LittleEndian.PutUint32(tjbm[4*i:], uint32(uint8(om.TJBFor(len(dsqs[i]))+om.TBM)))
	}
	var in cudacpu.Input
	in.Put([]int32{kind, int32(packed.NBlocks), int32(len(dsqs)), 2, int32(s.msvSharedBytes()), int32(om.Bias), int32(om.Base), int32(om.TEC)})
	in.Arrays(prof, packed.Res, packed.Table, tjbm)
	return cudacpu.Words(t, cudacpu.Run(t, shimExe(t, s), fmt.Sprintf("msv kernel %d (%+v)", kind, s), &in), len(dsqs))
}

// TestMSVOnCPU runs msv_kernel (the full MSV program, for the targets SSV
// leaves undecided) on the CPU for models of 1 to 385 nodes (every T),
// targets of every length remainder mod 4 and in blocks of unequal
// lengths: each target's score must be DPScore's bit for bit. Each
// shape runs one row a step and two (MSV_ROWS), with xB apart from the
// row max and not (MSV_XB_APART), on a random profile or HMM and on a
// profile of high bias, where max(base - tjbm, 0) + bias passes 255 and
// HMMER's cap at 255 binds on xB (the kernel clips xB instead).
func TestMSVOnCPU(t *testing.T) {
	amino := alphabet.New(alphabet.Amino)
	Ms := []int{1, 10, 23, 24, 25, 32, 47, 50, 60, 90, 100, 200, 385}
	if testing.Short() {
		Ms = []int{1, 24, 200}
	}
	for n, M := range Ms {
		t.Run(fmt.Sprint("M=", M), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewSource(int64(31 + n)))
			var om *oprofile.MSVProfile
			if n%2 == 0 {
				om = randomProfile(rng, M, amino.Kp)
			} else {
				h := testmodels.RandomHMM(rng, amino, M)
				o := profileOf(h)
				om = &o.MSV
			}
			high := highBiasProfile(rng, M, amino.Kp)
			dsqs := msvTargets(rng, om, amino.Kp)
			highDsqs := msvTargets(rng, high, amino.Kp)
			// The pass's own shape, the SSV pass's where it differs
			// (two rows a step: a wider stride), each with the other
			// MSV_ROWS and MSV_XB_APART, and residues fetched 1 and 3
			// words ahead (msv.cu: MSV_PF; 3 leaves the ring partly
			// filled at every block's end).
			// Also a busy pass's shape (msvNodesForPass: T = 2 at
			// M = 25..32), where it differs.
			var shapes []gpuShape
			busy := PassSize{Targets: 1, Residues: 1 << 40, Longest: 1}
			seen := map[gpuShape]bool{}
			for _, s := range []gpuShape{msvShapeFor(M, amino.Kp), ssvShapeFor(M, amino.Kp), shapeForNodes(M, amino.Kp, msvNodesForPass(M, busy, 132))} {
				if seen[s] {
					continue
				}
				seen[s] = true
				rows, apart := s, s
				rows.MRows = 3 - s.MRows
				apart.Apart = 1
				if s.T <= 4 {
					apart.Apart = 2
				}
				shapes = append(shapes, s, rows, apart)
				// Rows with xB guessed and checked (MSV_SPEC) where the
				// shape does not run them (msv.cu's default: T = 1 or
				// at most 8 words a thread), and not where it does, on
				// either row count.
				for _, r := range []gpuShape{s, rows} {
					r.Spec = 1
					if r.T == 1 || r.C/2 <= 8 {
						r.Spec = 2
					}
					shapes = append(shapes, r)
				}
			}
			if M == 10 || M == 100 {
				for _, pf := range []int{1, 3} {
					s := msvShapeFor(M, amino.Kp)
					s.PF = pf
					shapes = append(shapes, s)
				}
			}
			chain, chainDsqs := chainProfile(rng, M, amino.Kp)
			for _, s := range shapes {
				checkShimMSV(t, s, om, amino.Kp, dsqs)
				checkShimMSV(t, s, high, amino.Kp, highDsqs)
				checkShimMSV(t, s, chain, amino.Kp, chainDsqs)
			}
		})
	}
}

// highBiasProfile is a profile whose bias (70..129) lets
// max(base - tjbm, 0) + bias pass 255, with every cost just above the
// bias (a few 255): HMMER's cap on xB + bias then decides whether a
// target overflows (without it most would at once).
func highBiasProfile(rng *rand.Rand, M, Kp int) *oprofile.MSVProfile {
	p := randomProfileBias(rng, M, Kp, uint8(70+rng.Intn(60)))
	p.TBM = uint8(rng.Intn(20))
	for x := range p.RBV {
		for k := 1; k <= M; k++ {
			c := int(p.Bias) + 1 + rng.Intn(12)
			if rng.Intn(20) == 0 {
				c = 255
			}
			p.RBV[x][k] = uint8(c)
		}
	}
	return p
}

// chainProfile is a profile, with targets of 64 residues, on which xB
// rises on every row of a run of residue 0: there node 1 scores K + 2
// (K = tec + tjbm, this length's), every other cost is just above the
// bias. Each such row's best cell is xB + K + 2, from the begin state,
// so xB rises by 2 a row, each row's xB resting on the row before's max
// (MSV_SPEC then needs all four runs of a block), until the best cell
// overflows after about ten rows; the runs are 1..9 rows long.
func chainProfile(rng *rand.Rand, M, Kp int) (*oprofile.MSVProfile, [][]byte) {
	const L = 64
	p := randomProfileBias(rng, M, Kp, uint8(40+rng.Intn(20)))
	p.TBM = 0
	K := int(p.TEC) + int(p.TJBFor(L))
	for x := range p.RBV {
		for k := 1; k <= M; k++ {
			p.RBV[x][k] = uint8(int(p.Bias) + 1 + rng.Intn(12))
		}
	}
	p.RBV[0][1] = uint8(int(p.Bias) - K - 2)
	var dsqs [][]byte
	for range 24 {
		d := make([]byte, L)
		for i := range d {
			d[i] = byte(1 + rng.Intn(19))
		}
		n := 1 + rng.Intn(9)
		at := rng.Intn(L - n)
		for i := at; i < at+n; i++ {
			d[i] = 0
		}
		dsqs = append(dsqs, d)
	}
	return p, dsqs
}

// msvTargets are TestMSVOnCPU's targets for profile om: every length
// remainder mod 4, some with a strong diagonal, so that scores reach the
// J state and overflow.
func msvTargets(rng *rand.Rand, om *oprofile.MSVProfile, Kp int) [][]byte {
	M := om.M
	var dsqs [][]byte
	for _, L := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 64, 65, 66, 67, 200 + rng.Intn(100), 700 + rng.Intn(300)} {
		d := make([]byte, L)
		for i := range d {
			d[i] = byte(rng.Intn(20))
			if rng.Intn(50) == 0 {
				d[i] = byte(rng.Intn(Kp))
			}
		}
		if L > M && rng.Intn(2) == 0 {
			for k := 1; k <= M; k++ {
				d[L-1-M+k] = consensus(om, k)
			}
		}
		dsqs = append(dsqs, d)
	}
	// Short hits one after another, 0..3 residues apart (short, so that
	// few targets overflow): each starts from the J state the hits before
	// it raised, often in the rows right after xB rose (msv_kernel's
	// MSV_SPEC guesses xB within four rows).
	for range 16 {
		var d []byte
		for range 2 + rng.Intn(8) {
			for range rng.Intn(4) {
				d = append(d, byte(rng.Intn(20)))
			}
			from := 1 + rng.Intn(M)
			for k := from; k <= min(M, from+rng.Intn(8)); k++ {
				d = append(d, consensus(om, k))
			}
		}
		dsqs = append(dsqs, d)
	}
	return dsqs
}

// checkShimMSV runs msv_kernel of shape s on the CPU over the non-empty
// dsqs and fails on any score that is not DPScore's.
func checkShimMSV(t *testing.T, s gpuShape, om *oprofile.MSVProfile, Kp int, dsqs [][]byte) {
	t.Helper()
	var idx []int
	for i, d := range dsqs {
		if len(d) > 0 {
			idx = append(idx, i)
		}
	}
	got := shimMSV(t, s, om, Kp, dsqs, idx)
	for _, m := range dpMismatches(om, dsqs, idx, got) {
		t.Errorf("M=%d bias %d %+v: %s", om.M, om.Bias, s, m)
	}
}

// dpMismatches describes each target of idx whose kernel result got (xJ,
// or 0xffff for overflow) gives another score than DPScore's.
func dpMismatches(om *oprofile.MSVProfile, dsqs [][]byte, idx []int, got []uint32) []string {
	var bad []string
	for _, i := range idx {
		p := *om
		p.TJB = om.TJBFor(len(dsqs[i]))
		score := float32(math.Inf(1))
		if got[i] != 0xffff {
			score = finalScore(int(got[i]), &p)
		}
		if want := DPScore(dsqs[i], &p); math.Float32bits(score) != math.Float32bits(want) {
			bad = append(bad, fmt.Sprintf("target %d (L=%d): kernel %v (xJ %d), DPScore %v", i, len(dsqs[i]), score, got[i], want))
		}
	}
	return bad
}
