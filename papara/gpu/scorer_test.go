package gpu

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/papara/core"
)

// scorerCases are the jobs every device test runs: each mode of the
// kernel, every length bin, reads past the kernels (CPU fallback), DNA and
// protein, both scoring schemes, and scores outside the fast conditions.
func scorerCases(small bool) []jobSpec {
	dna, prot := core.DNA, core.Protein
	def := core.DefaultParams
	bins := []int{1, 15, 16, 17, 24, 31, 32, 33, 48, 49, 64, 65, 80, 81, 96, 112, 113, 128, 129, 160, 161, 192, 224, 256}
	long := []int{257, 384, 385, 512, 513, 768, 769, 1000, 1024, 1025, 1300}
	taxa, cols := 21, 70
	if small {
		// the emulator is slow: fewer columns and bins
		taxa, cols = 17, 30
		bins = []int{1, 16, 17, 33, 64, 65, 100, 128, 129, 200}
		long = []int{300, 520}
	}
	mixed := append(append([]int{}, bins...), lengths(5, 12, 20, 140)...)
	cases := []jobSpec{
		{model: dna, taxa: taxa, cols: cols, readLens: append(mixed, long...), params: def, seed: 1},
		{model: dna, taxa: taxa, cols: cols, readLens: mixed, iupac: 0.03, params: def, seed: 2}, // profile mode
		{model: dna, taxa: taxa, cols: cols, readLens: mixed, params: core.Params{GapOpen: 2, GapExtend: 1, Match: 2, MatchCGap: -3}, seed: 3},
		{model: dna, taxa: taxa, cols: cols, readLens: mixed, params: core.Params{GapOpen: -3, GapExtend: -1, Match: -1, MatchCGap: -3}, seed: 4},
		{model: dna, taxa: taxa, cols: cols, readLens: append(mixed, 530, 540), params: core.Params{GapOpen: -40, GapExtend: -9, Match: 60, MatchCGap: -70}, seed: 5},
		{model: dna, taxa: taxa, cols: cols, readLens: mixed, params: core.Params{GapOpen: -3, GapExtend: -1, Match: 100, MatchCGap: -200}, seed: 6},
		{model: prot, taxa: taxa, cols: cols, readLens: mixed, params: def, seed: 7},
		{model: dna, taxa: taxa, cols: cols, readLens: append(mixed, long[:2]...), scoring: core.ScoringPaper, seed: 8},
		{model: prot, taxa: taxa, cols: cols, readLens: lengths(9, 10, 5, 60), scoring: core.ScoringPaper, seed: 9},
	}
	if small {
		return cases
	}
	// many branches: several full units and a partial one
	return append(cases, jobSpec{model: dna, taxa: 90, cols: 50, readLens: lengths(10, 30, 20, 130), params: def, seed: 10})
}

func caseName(s jobSpec) string {
	scheme := fmt.Sprintf("%d:%d:%d:%d", s.params.GapOpen, s.params.GapExtend, s.params.Match, s.params.MatchCGap)
	if s.scoring == core.ScoringPaper {
		scheme = "paper"
	}
	name := fmt.Sprintf("%s-%s-seed%d", s.model.Name, scheme, s.seed)
	if s.iupac > 0 {
		name += "-iupac"
	}
	return name
}

// slowCPU is a CPU scorer that pauses before each block, so that the GPU
// scorer of a small hybrid test gets blocks too; started (if not nil) is
// closed at its first block.
type slowCPU struct {
	core.CPUScorer
	started chan struct{}
	once    sync.Once
}

func (c *slowCPU) Score(job *core.Job, blocks []core.Block, res *core.Results) error {
	if c.started != nil {
		c.once.Do(func() { close(c.started) })
	}
	time.Sleep(2 * time.Millisecond)
	return c.CPUScorer.Score(job, blocks, res)
}

// afterCPU holds a scorer's first block until the CPU scorer has one (or
// a second has passed), so that a small hybrid test splits its blocks.
type afterCPU struct {
	core.Scorer
	cpu <-chan struct{}
}

func (a *afterCPU) Score(job *core.Job, blocks []core.Block, res *core.Results) error {
	select {
	case <-a.cpu:
	case <-time.After(time.Second):
	}
	return a.Scorer.Score(job, blocks, res)
}

// checkScorer compares a GPU scorer with the CPU on one job: alone, in a
// hybrid run cut into many small blocks, and pair by pair on some
// branches.
func checkScorer(t *testing.T, s *Scorer, job *core.Job) {
	t.Helper()
	want := cpuResults(t, job)
	got, _, err := core.ScoreAll(job, []core.Scorer{s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, "GPU", job, got, want)

	save := core.UnitCells
	core.UnitCells = float64(job.Branches.Len) * 32 * 150 // about 150 residues of reads per block
	cpu := &slowCPU{started: make(chan struct{})}
	hybrid, stats, err := core.ScoreAll(job, []core.Scorer{cpu, &afterCPU{s, cpu.started}}, nil)
	blocks := core.NewJobQueue(job).Len()
	core.UnitCells = save
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, "hybrid", job, hybrid, want)
	if blocks >= 2 && (stats[0].Cells == 0 || stats[1].Cells == 0) {
		t.Errorf("hybrid: a scorer got none of the %d blocks (%v)", blocks, stats)
	}

	branches := []int{0, 1, job.Branches.N - 1}
	if job.Branches.N > 34 {
		branches = append(branches, 33)
	}
	gotPairs := pairScores(t, s, job, branches)
	wantPairs := pairScores(t, &core.CPUScorer{}, job, branches)
	for i := range branches {
		for q := range gotPairs[i] {
			if gotPairs[i][q] != wantPairs[i][q] {
				t.Fatalf("read %d (%d residues), branch %d: GPU %d, CPU %d", q, len(job.Queries[q].CStates),
					branches[i], gotPairs[i][q], wantPairs[i][q])
			}
		}
	}
}

// TestScorerOnModel runs the whole scorer on the fake device with the Go
// model of the kernel: packing, modes, bins, units, keys, the CPU
// fallback for long reads, and the pacing of takes.
func TestScorerOnModel(t *testing.T) {
	for _, spec := range scorerCases(false) {
		t.Run(caseName(spec), func(t *testing.T) {
			job := randomJob(t, spec)
			dev := &fakeDevice{}
			s := newScorer(dev)
			checkScorer(t, s, job)
			st := s.Stats()
			if st.Cells == 0 {
				t.Error("no cell scored by the kernels")
			}
			modes := map[mode]bool{}
			for c := range dev.kernels {
				modes[c.mode] = true
			}
			t.Logf("%s: %d calls, %d launches, kernels %v, %d cells on the device, %d on the CPU", describeJob(job),
				st.Calls, st.Launches, configList(dev.kernels), st.Cells, st.CPUCells)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if dev.live != 0 {
				t.Errorf("%d device buffers not freed", dev.live)
			}
		})
	}
}

func configList(m map[config]bool) string {
	var s []string
	for c := range m {
		s = append(s, c.String())
	}
	return strings.Join(sortStrings(s), " ")
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// TestModes checks which mode and bin reads get.
func TestModes(t *testing.T) {
	job := randomJob(t, jobSpec{model: core.DNA, taxa: 5, cols: 20, readLens: []int{5, 40, 1024, 1025}, params: core.DefaultParams, seed: 1})
	d := newJobData(job)
	want := []string{"table16-1x16", "table16-2x24", "table16-32x32", "cpu"}
	for q := range job.Queries {
		got := d.cfg[q].String()
		if d.onCPU[q] {
			got = "cpu"
		}
		if got != want[q] {
			t.Errorf("read %d (%d residues): %s, want %s", q, len(job.Queries[q].CStates), got, want[q])
		}
	}
	for _, c := range []struct {
		p    core.Params
		n    int
		want mode
	}{
		{core.DefaultParams, 1024, modeTable},
		{core.Params{GapOpen: -3, GapExtend: -1, Match: 40, MatchCGap: -50}, 799, modeTable},
		{core.Params{GapOpen: -3, GapExtend: -1, Match: 40, MatchCGap: -50}, 800, modeWide}, // 40 x 800 + 32 > 32000
		{core.Params{GapOpen: -3, GapExtend: -1, Match: 2, MatchCGap: -200}, 10, modeProfile},
		{core.Params{GapOpen: -1001, GapExtend: -1, Match: 2, MatchCGap: -3}, 10, modeWide},
		{core.Params{GapOpen: 1, GapExtend: -1, Match: 2, MatchCGap: -3}, 10, modeWide},
		{core.Params{GapOpen: -3, GapExtend: -1, Match: -1, MatchCGap: -3}, 10, modeWide},
	} {
		job := randomJob(t, jobSpec{model: core.DNA, taxa: 4, cols: 10, readLens: []int{c.n}, params: c.p, seed: 2})
		if got := newJobData(job).cfg[0].mode; got != c.want {
			t.Errorf("%+v, %d residues: %s, want %s", c.p, c.n, got, c.want)
		}
	}
}

// TestTableBytes decodes the byte table and compares every entry with
// PaPaRa's increments.
func TestTableBytes(t *testing.T) {
	job := randomJob(t, jobSpec{model: core.DNA, taxa: 9, cols: 25, readLens: []int{30, 40}, params: core.DefaultParams, seed: 3})
	d := newJobData(job)
	tab := d.cols[modeTable]
	P := d.nb / 2
	for c := 0; c < d.L; c++ {
		for e := 0; e < d.nb; e++ {
			st, cg := d.lane(e, c)
			at := (c*P + e/2) * 16
			for k, cs := range d.tableKinds {
				// the kernel's selector for residue k and its byte permute
				sel := 0xC480 + 0x1111*uint32(k)
				m := permute(u32At(tab[at:], 0), u32At(tab[at:], 1), sel)
				got := int(int16(m >> (16 * (e % 2))))
				if want := increment(job.Params, job.Model.States[cs], st, cg); got != want {
					t.Fatalf("column %d, branch %d, residue %d: %d, want %d", c, e, k, got, want)
				}
			}
			// the rows above a read: 0 or -1 in both halves
			if m := permute(u32At(tab[at:], 0), u32At(tab[at:], 1), 0x8888); m != 0 && m != 0xffffffff {
				t.Fatalf("neutral selector gives %#x", m)
			}
		}
	}
}

// permute is PTX prmt.b32 in its generic mode (the emulator's pp_perm).
func permute(a, b, sel uint32) uint32 {
	src := uint64(b)<<32 | uint64(a)
	var d uint32
	for i := 0; i < 4; i++ {
		nib := sel >> (4 * i) & 15
		x := uint32(src>>(8*(nib&7))) & 0xff
		if nib&8 != 0 {
			x = 0
			if src>>(8*(nib&7))&0x80 != 0 {
				x = 0xff
			}
		}
		d |= x << (8 * i)
	}
	return d
}

// TestKeys checks the result keys' order: higher score first, then the
// lower branch.
func TestKeys(t *testing.T) {
	if !(bestKey(5, 3) > bestKey(4, 0) && bestKey(5, 3) > bestKey(5, 4) && bestKey(-2, 0) > bestKey(-3, 0) && bestKey(-1<<31, 7) > 0) {
		t.Error("key order")
	}
	for _, c := range [][2]int{{0, 0}, {-7, 12}, {1 << 30, 1<<31 - 1}, {-1 << 31, 5}} {
		sc, br, ok := fromKey(bestKey(int32(c[0]), c[1]))
		if !ok || int(sc) != c[0] || br != c[1] {
			t.Errorf("%v: got %d %d %v", c, sc, br, ok)
		}
	}
}

// TestFailingDevice: a device that fails during a run hands its blocks
// back; the CPU scorers finish them and the results are the CPU's.
func TestFailingDevice(t *testing.T) {
	job := randomJob(t, jobSpec{model: core.DNA, taxa: 60, cols: 40, readLens: lengths(4, 40, 20, 120), params: core.DefaultParams, seed: 11})
	want := cpuResults(t, job)
	dev := &fakeDevice{failAt: 3}
	s := newScorer(dev)
	save := core.UnitCells
	core.UnitCells = 1e4
	got, stats, err := core.ScoreAll(job, []core.Scorer{s, &slowCPU{}}, nil)
	core.UnitCells = save
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, "after a device failure", job, got, want)
	if stats[0].Err == nil || !strings.Contains(stats[0].Err.Error(), "device lost") {
		t.Errorf("failure not reported: %v", stats[0].Err)
	}
	// alone, the failure is the run's
	if _, _, err := core.ScoreAll(job, []core.Scorer{newScorer(&fakeDevice{failAt: 1})}, nil); err == nil {
		t.Error("a run whose only scorer fails must fail")
	}
}

// TestPacing: the first take is small; later takes follow the measured
// speed.
func TestPacing(t *testing.T) {
	s := newScorer(&fakeDevice{})
	if s.Take() != firstTake {
		t.Errorf("first take %d", s.Take())
	}
	s.rate, s.unitCells = 1e12, 1e9
	if got := s.Take(); got != 250 {
		t.Errorf("take %d at 1e12 cells/s and 1e9 cells per block, want 250", got)
	}
	s.rate = 1
	if s.Take() != 1 {
		t.Error("take below 1")
	}
}

// TestUnitsOf: blocks become units of at most 32 branches whose pair span
// starts at an even branch.
func TestUnitsOf(t *testing.T) {
	for _, c := range []struct {
		b     core.Block
		pairs bool
		want  string
	}{
		{core.Block{Start: 0, End: 32}, true, "[[0 32]]"},
		{core.Block{Start: 3, End: 35}, false, "[[3 35]]"},
		{core.Block{Start: 3, End: 35}, true, "[[3 34] [34 35]]"},
		{core.Block{Start: 3, End: 34}, true, "[[3 34]]"},
	} {
		if got := fmt.Sprint(unitsOf(c.b, c.pairs)); got != c.want {
			t.Errorf("%+v pairs %v: %s, want %s", c.b, c.pairs, got, c.want)
		}
	}
}
