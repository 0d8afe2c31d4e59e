package msvfilter

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestSegmentedMSVProbe (HMMGO_MSVSEG_PROBE=residues) estimates on the
// device what the segmented MSV pass (TestSegmentedMSVSimulation) would
// take, with today's msv_kernel: for TestGPUThroughput's database and
// models it times Scores (SSV and the MSV pass), msv_kernel over the
// undecided targets whole, and for each segment length msv_kernel over
// the segments each fixpoint round runs (as a database of its own: the
// rows are those the round walks, the scores meaningless), plus a round
// with nothing to do (one 4-residue target: the launch's cost). The sum
// over rounds is a best case for the pass (every round's dirty segments
// packed into fresh warp blocks, no state loads or stores). A probe, not
// a check.
func TestSegmentedMSVProbe(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_MSVSEG_PROBE"))
	if n == 0 {
		t.Skip("set HMMGO_MSVSEG_PROBE=<residues> to time the segmented MSV pass's rounds")
	}
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, _ := testmodels.RandomDatabase(rng, amino, n)
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	// best is the least msv_kernel time of four ForceMSV passes over rows.
	best := func(om *oprofile.MSVProfile, rows [][]byte) time.Duration {
		d := gpudb.New(ctx, rows)
		defer d.Free()
		g.ForceMSV = true
		defer func() { g.ForceMSV = false }()
		out := make([]float32, len(rows))
		b := time.Duration(math.MaxInt64)
		for range 4 {
			g.KernelTime = 0
			if err := g.Scores(om, amino.Kp, d, out); err != nil {
				t.Fatal(err)
			}
			b = min(b, g.KernelTime)
		}
		return b
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.4f", d.Seconds()*1e3) }
	for _, M := range intList(t, os.Getenv("HMMGO_MSVSEG_M"), []int{10, 25, 40}) {
		h := testmodels.RandomHMM(rng, amino, M)
		o := profileOf(h)
		om := &o.MSV
		out := make([]float32, len(dsqs))
		var total, ssv time.Duration = math.MaxInt64, 0
		g.Repeat = 50 // the SSV kernel's steady time, and the pass right after it (as TestGPUThroughput)
		for range 4 {
			g.KernelTime, g.SSVKernelTime = 0, 0
			if err := g.Scores(om, amino.Kp, db, out); err != nil {
				t.Fatal(err)
			}
			if g.KernelTime < total {
				total, ssv = g.KernelTime, g.SSVKernelTime
			}
		}
		g.Repeat = 0
		rest := undecidedBySSV(om, dsqs)
		var whole [][]byte
		res, longest := 0, 0
		for _, i := range rest {
			whole = append(whole, dsqs[i])
			res += len(dsqs[i])
			longest = max(longest, len(dsqs[i]))
		}
		chained := newRoundTimer(t, g, om, amino.Kp)
		fmt.Printf("  chained, warm clocks (best / median of 15): whole %s, empty launch %s\n", chained.time(t, [][][]byte{whole}), chained.time(t, [][][]byte{{dsqs[0][:4]}}))
		fmt.Printf("M=%d: %d undecided (%d residues, longest %d); Scores %s ms (SSV %s, pass %s); msv_kernel on them whole %s; all %d targets %s; empty round %s\n",
			M, len(rest), res, longest, ms(total), ms(ssv), ms(total-ssv), ms(best(om, whole)), len(dsqs), ms(best(om, dsqs)), ms(best(om, [][]byte{dsqs[0][:4]})))
		for _, lseg := range intList(t, os.Getenv("HMMGO_MSVSEG_LSEG"), []int{128, 256, 512}) {
			runs := make([]segRun, len(rest))
			parallel(len(rest), func(j int) { runs[j] = segmentTarget(dsqs[rest[j]], om, lseg, M) })
			var rounds [][][]byte
			for j, r := range runs {
				for k, ran := range r.ran {
					for len(rounds) <= k {
						rounds = append(rounds, nil)
					}
					for _, fr := range ran {
						rounds[k] = append(rounds[k], dsqs[rest[j]][fr[0]:fr[1]])
					}
				}
			}
			var sum time.Duration
			line := fmt.Sprintf("  lseg %d: %d rounds:", lseg, len(rounds))
			for _, segs := range rounds {
				d := best(om, segs)
				sum += d
				line += fmt.Sprintf(" %s (%d segs)", ms(d), len(segs))
			}
			fmt.Printf("%s; sum %s ms; chained %s\n", line, ms(sum), chained.time(t, rounds))
		}
	}
}

// roundTimer launches msv_kernel over several databases back to back on
// one stream, as a pass of several rounds would (no host work between
// the rounds), after as many untimed sequences (clocks up).
type roundTimer struct {
	g      *GPU
	om     *oprofile.MSVProfile
	s      gpuShape
	k      *cuda.Function
	prof   *cuda.Buffer
	st     *cuda.Stream
	e0, e1 *cuda.Event
}

func newRoundTimer(t *testing.T, g *GPU, om *oprofile.MSVProfile, Kp int) *roundTimer {
	s := shapeForNodes(om.M, Kp, g.msvNodes(om.M, PassSize{}))
	ks, err := g.kernel(s)
	if err != nil {
		t.Fatal(err)
	}
	r := &roundTimer{g: g, om: om, s: s}
	if r.k, err = ks.Function("msv_kernel"); err != nil {
		t.Fatal(err)
	}
	cost := func(x, node int) int16 {
		if node > om.M {
			return 255
		}
		return int16(om.RBV[x][node])
	}
	r.prof = upload(t, g.ctx, msvProfileWords(s, Kp, om.Bias, cost))
	if r.st, err = g.ctx.NewStream(); err != nil {
		t.Fatal(err)
	}
	if r.e0, err = g.ctx.NewEvent(true); err != nil {
		t.Fatal(err)
	}
	if r.e1, err = g.ctx.NewEvent(true); err != nil {
		t.Fatal(err)
	}
	return r
}

func upload(t *testing.T, ctx *cuda.Context, b []byte) *cuda.Buffer {
	buf, err := ctx.Alloc(max(4, len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 {
		if err := buf.CopyFromHost(0, b); err != nil {
			t.Fatal(err)
		}
	}
	return buf
}

// time returns "best/median ms" of the rounds (one database each)
// launched back to back.
func (r *roundTimer) time(t *testing.T, rounds [][][]byte) string {
	ctx := r.g.ctx
	type launch struct {
		db   *gpudb.DB
		lay  *gpudb.Device
		a    cuda.Args
		next *cuda.Buffer
		bufs []*cuda.Buffer
	}
	var ls []*launch
	for _, segs := range rounds {
		l := &launch{db: gpudb.New(ctx, segs)}
		var err error
		if l.lay, err = l.db.Layout(r.s.T); err != nil {
			t.Fatal(err)
		}
		tjbm := make([]byte, 4*len(segs))
		for i, d := range segs {
			binary.LittleEndian.PutUint32(tjbm[4*i:], uint32(uint8(r.om.TJBFor(len(d))+r.om.TBM)))
		}
		bj := upload(t, ctx, tjbm)
		out := upload(t, ctx, make([]byte, 2*len(segs)))
		l.next = upload(t, ctx, make([]byte, 4))
		l.bufs = []*cuda.Buffer{bj, out, l.next}
		l.a.Buffer(r.prof).Buffer(l.lay.Res).Buffer(l.lay.Table).Int32(int32(l.lay.NBlocks)).Buffer(l.next)
		l.a.Int32(int32(r.om.Bias)).Int32(int32(r.om.Base)).Int32(int32(r.om.TEC)).Buffer(bj).Buffer(out)
		ls = append(ls, l)
	}
	defer func() {
		for _, l := range ls {
			for _, b := range l.bufs {
				b.Free()
			}
			l.db.Free()
		}
	}()
	shared := r.s.msvSharedBytes()
	grid := gpudb.PersistentGrid(ctx, r.s.Block, shared)
	seq := func() {
		for _, l := range ls {
			if err := r.st.Memset32(l.next.Ptr(), 0, 1); err != nil {
				t.Fatal(err)
			}
			if err := r.k.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: r.s.Block}, SharedMem: shared, Stream: r.st}, &l.a); err != nil {
				t.Fatal(err)
			}
		}
	}
	var times []time.Duration
	for rep := range 30 {
		timed := rep >= 15
		if timed {
			if err := r.e0.Record(r.st); err != nil {
				t.Fatal(err)
			}
		}
		seq()
		if timed {
			if err := r.e1.Record(r.st); err != nil {
				t.Fatal(err)
			}
			if err := r.st.Synchronize(); err != nil {
				t.Fatal(err)
			}
			d, err := cuda.Elapsed(r.e0, r.e1)
			if err != nil {
				t.Fatal(err)
			}
			times = append(times, d)
		}
	}
	slices.Sort(times)
	return fmt.Sprintf("%.4f/%.4f", times[0].Seconds()*1e3, times[len(times)/2].Seconds()*1e3)
}
