package viterbi

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

func loadProfile(t testing.TB, name string) *plan7.Profile {
	t.Helper()
	hmms, err := plan7.ReadFile(testutil.Testdata(t, filepath.Join("hmmer2", "models", name)))
	if err != nil {
		t.Fatal(err)
	}
	return hmms[0].Logoddsify(true)
}

// randomSeqs makes sequences of random residue codes, degenerate codes
// included, with lengths from 1 up to maxLen.
func randomSeqs(r *rand.Rand, a *plan7.Alphabet, n, maxLen int) [][]byte {
	seqs := make([][]byte, n)
	for i := range seqs {
		L := 1 + r.Intn(maxLen)
		if i%7 == 0 {
			L = 1 + r.Intn(3) // very short sequences are edge cases
		}
		s := make([]byte, L)
		for j := range s {
			if r.Intn(50) == 0 {
				s[j] = byte(a.Size + r.Intn(a.Iupac-a.Size))
			} else {
				s[j] = byte(r.Intn(a.Size))
			}
		}
		seqs[i] = s
	}
	return seqs
}

func TestScorersAgree(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, name := range []string{"globin.hmm2", "globin_global.hmm2", "globin_sw.hmm2", "rrm.hmm2", "made1.hmm2"} {
		p := loadProfile(t, name)
		seqs := randomSeqs(r, p.HMM.Alph, 150, 400)
		want := make([]int32, len(seqs))
		var mx Matrix
		for i, s := range seqs {
			want[i] = ScoreOne(p, s)
			if f := mx.Fill(p, s); f != want[i] {
				t.Fatalf("%s seq %d: Fill %d, ScoreOne %d", name, i, f, want[i])
			}
		}
		for _, k := range []struct {
			name string
			rows func(*laneTables, *laneState, int)
		}{{"generic", rowsGeneric}, {KernelName(), rowsKernel}} {
			for _, workers := range []int{1, 3} {
				sc := NewCPUScorer(p, workers)
				sc.rows = k.rows
				got := make([]int32, len(seqs))
				if err := sc.Score(seqs, got); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s, %s kernel, %d workers, seq %d (L=%d): score %d, want %d",
							name, k.name, workers, i, len(seqs[i]), got[i], want[i])
					}
				}
			}
		}
	}
}

// TestImpossibleScores uses a model with zero probabilities, whose
// -INFTY scores make int32 sums wrap around: every kernel must wrap and
// clamp exactly as HMMER2's C code does.
func TestImpossibleScores(t *testing.T) {
	src, err := os.ReadFile(testutil.Testdata(t, "hmmer2/models/rrm.hmm2"))
	if err != nil {
		t.Fatal(err)
	}
	// Forbid W and Y at every match state and M->I everywhere.
	lines := strings.Split(string(src), "\n")
	inBody := false
	node := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "HMM ") {
			inBody = true
			continue
		}
		f := strings.Fields(l)
		if !inBody || len(f) < 10 {
			continue
		}
		if f[0] != "-" && len(f) >= 21 {
			node++
			f[19], f[20] = "*", "*"
			lines[i] = " " + strings.Join(f, " ")
		} else if f[0] == "-" && len(f) == 10 && node > 0 {
			f[2] = "*"
			lines[i] = " " + strings.Join(f, " ")
		}
	}
	path := filepath.Join(t.TempDir(), "zero.hmm2")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	hmms, err := plan7.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := hmms[0].Logoddsify(true)
	if p.Msc[18][1] != -plan7.Infty {
		t.Fatalf("W emission should be impossible, got %d", p.Msc[18][1])
	}
	r := rand.New(rand.NewSource(2))
	seqs := randomSeqs(r, p.HMM.Alph, 64, 200)
	for i := range seqs {
		if i%3 == 0 {
			for j := range seqs[i] {
				seqs[i][j] = 18 + byte(j%2) // only W and Y: no match state can emit
			}
		}
	}
	for _, row := range []func(*laneTables, *laneState, int){rowsGeneric, rowsKernel} {
		sc := NewCPUScorer(p, 2)
		sc.rows = row
		got := make([]int32, len(seqs))
		sc.Score(seqs, got)
		for i, s := range seqs {
			if want := ScoreOne(p, s); got[i] != want {
				t.Fatalf("seq %d: %d, want %d", i, got[i], want)
			}
		}
	}
}

func TestTracebackScoresMatch(t *testing.T) {
	p := loadProfile(t, "globin.hmm2")
	r := rand.New(rand.NewSource(3))
	var mx Matrix
	for i, s := range randomSeqs(r, p.HMM.Alph, 40, 300) {
		sc := mx.Fill(p, s)
		tr, err := mx.Traceback(p, s)
		if err != nil || tr == nil {
			t.Fatalf("seq %d: traceback %v", i, err)
		}
		// The Viterbi score is the score of its own path, except where
		// HMMER2 writes a folded entry/exit as explicit delete states.
		folded := false
		for j := range tr.St {
			if tr.St[j] == StD && (tr.St[j-1] == StB || tr.St[j+1] == StE) {
				folded = true
			}
		}
		got, err := tr.Score(p, s)
		if err != nil {
			t.Fatal(err)
		}
		if !folded && got != plan7.Scorify(sc) {
			t.Errorf("seq %d: trace scores %v, Viterbi %v", i, got, plan7.Scorify(sc))
		}
		for _, d := range tr.Decompose() {
			if _, _, _, _, err := d.SimpleBounds(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestSpaceFollowsRAMLimit(t *testing.T) {
	// 12 bytes per cell: 294 nodes fit about 9,500 residues in 32 MB.
	if ViterbiSizeMB(9000, 294) > RAMLimitMB || ViterbiSizeMB(10000, 294) <= RAMLimitMB {
		t.Fatalf("size estimate off: %d MB at L=9000, %d MB at L=10000",
			ViterbiSizeMB(9000, 294), ViterbiSizeMB(10000, 294))
	}
	sp := NewSpace(294)
	if !sp.OK(5000, 294) {
		t.Fatal("5000 residues must fit")
	}
	AdvanceSpace(9400, 294, &sp) // grows to 9425 rows only if that fits
	if sp.MaxN != 9425 {
		t.Fatalf("MaxN = %d, want 9425", sp.MaxN)
	}
	if sp.OK(20000, 294) {
		t.Fatal("20000 residues must not fit")
	}
}

// reportGCUPS reports giga cell updates per wall second and per CPU
// second of the process.
func reportGCUPS(b *testing.B, cells int, cpu0 float64) {
	total := float64(cells) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds()/1e9, "GCUPS")
	if cpu := cpuSeconds() - cpu0; cpu > 0 && cpu0 > 0 {
		b.ReportMetric(total/cpu/1e9, "GCUPS/cpu")
	}
}

func BenchmarkScorer(b *testing.B) {
	for _, name := range []string{"globin.hmm2", "pkinase.hmm2"} {
		p := loadProfile(b, name)
		r := rand.New(rand.NewSource(4))
		seqs := make([][]byte, 512)
		cells := 0
		for i := range seqs {
			L := 200 + r.Intn(300)
			s := make([]byte, L)
			for j := range s {
				s[j] = byte(r.Intn(20))
			}
			seqs[i] = s
			cells += L * p.M
		}
		out := make([]int32, len(seqs))
		for _, k := range []struct {
			name string
			rows func(*laneTables, *laneState, int)
		}{{"generic", rowsGeneric}, {KernelName(), rowsKernel}} {
			b.Run(name+"/"+k.name+"/1cpu", func(b *testing.B) {
				sc := NewCPUScorer(p, 1)
				sc.rows = k.rows
				cpu0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					sc.Score(seqs, out)
				}
				reportGCUPS(b, cells, cpu0)
			})
		}
		b.Run(name+"/scalar", func(b *testing.B) {
			cpu0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				for _, s := range seqs {
					ScoreOne(p, s)
				}
			}
			reportGCUPS(b, cells, cpu0)
		})
	}
}

func BenchmarkLinearMemory(b *testing.B) {
	p := loadProfile(b, "pkinase.hmm2")
	r := rand.New(rand.NewSource(5))
	seqs := randomSeqs(r, p.HMM.Alph, 8, 1000)
	cells := 0
	for _, s := range seqs {
		cells += len(s) * p.M
	}
	b.Run("parsing", func(b *testing.B) {
		cpu0 := cpuSeconds()
		for i := 0; i < b.N; i++ {
			for _, s := range seqs {
				ParsingViterbi(p, s)
			}
		}
		reportGCUPS(b, cells, cpu0)
	})
	b.Run("fill", func(b *testing.B) {
		cpu0 := cpuSeconds()
		var mx Matrix
		for i := 0; i < b.N; i++ {
			for _, s := range seqs {
				mx.Fill(p, s)
			}
		}
		reportGCUPS(b, cells, cpu0)
	})
	b.Run("wee", func(b *testing.B) {
		cpu0 := cpuSeconds()
		for i := 0; i < b.N; i++ {
			for _, s := range seqs {
				if len(s) > 1 {
					WeeViterbi(p, s)
				}
			}
		}
		reportGCUPS(b, cells, cpu0)
	})
	b.Run("forward", func(b *testing.B) {
		cpu0 := cpuSeconds()
		for i := 0; i < b.N; i++ {
			for _, s := range seqs {
				Forward(p, s)
			}
		}
		reportGCUPS(b, cells, cpu0)
	})
}
