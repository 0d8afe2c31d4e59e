package gpu

import (
	"compress/gzip"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// Helpers shared by the CPU-shim tests and the GPU tests: random HMMER2
// models in every configuration mode, the repository's models, and
// random sequences.

// modes are HMMER2's algorithm configurations, as hmm2build -g, (ls),
// -s, -f write them: global or glocal entry/exit, single or multiple hits.
var modes = []string{"global", "ls", "sw", "fs"}

// randomProfile makes a random model of M nodes in the given mode. With
// zeros, about one probability in twenty is exactly zero, so that
// -INFTY scores make HMMER2's int32 sums wrap around.
func randomProfile(rng *rand.Rand, a *plan7.Alphabet, M int, mode string, zeros bool) *plan7.Profile {
	h := &plan7.HMM{Name: "random", Alph: a, M: M}
	h.T = make([][7]float32, M+1)
	h.Mat = make([][plan7.MaxAbet]float32, M+1)
	h.Ins = make([][plan7.MaxAbet]float32, M+1)
	h.Begin = make([]float32, M+1)
	h.End = make([]float32, M+1)
	p := func() float32 {
		if zeros && rng.Intn(20) == 0 {
			return 0
		}
		return float32(0.001 + rng.Float64())
	}
	for k := 1; k <= M; k++ {
		for x := 0; x < a.Size; x++ {
			h.Mat[k][x] = p() * p()
			h.Ins[k][x] = p()
		}
		if k < M {
			h.T[k] = [7]float32{3 * p(), 0.1 * p(), 0.1 * p(), p(), p(), p(), p()}
		}
	}
	for x := 0; x < a.Size; x++ {
		h.Null[x] = float32(0.5 + rng.Float64())
	}
	h.P1 = 350. / 351.
	local := mode == "sw" || mode == "fs"
	h.Tbd1 = 0.05 * p()
	h.Begin[1] = 1
	h.End[M] = 1
	if local {
		for k := 2; k <= M; k++ {
			h.Begin[k] = p() / float32(M)
		}
		for k := 1; k < M; k++ {
			h.End[k] = p() / float32(M)
		}
	}
	h.Xt[plan7.XTN] = [2]float32{0.01, 0.99}
	h.Xt[plan7.XTC] = [2]float32{0.01, 0.99}
	h.Xt[plan7.XTJ] = [2]float32{0.01, 0.99}
	if mode == "global" || mode == "sw" {
		h.Xt[plan7.XTE] = [2]float32{1, 0}
	} else {
		h.Xt[plan7.XTE] = [2]float32{0.5, 0.5}
	}
	h.Renormalize()
	return h.Logoddsify(true)
}

// readProfile loads the first model of a file in testdata/hmmer2/models.
// Files ending in .gz are read through gzip.
func readProfile(t testing.TB, name string) *plan7.Profile {
	t.Helper()
	path := testutil.Testdata(t, filepath.Join("hmmer2", "models", name))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	h, err := plan7.NewReader(r, path).Next()
	if err != nil {
		t.Fatal(err)
	}
	return h.Logoddsify(true)
}

// impossibleProfile is viterbi's TestImpossibleScores model: rrm with W
// and Y forbidden at every match state and M->I forbidden everywhere.
func impossibleProfile(t testing.TB) *plan7.Profile {
	t.Helper()
	src, err := os.ReadFile(testutil.Testdata(t, "hmmer2/models/rrm.hmm2"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	inBody, node := false, 0
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
	return p
}

// randomSeqs makes n sequences of lengths 0..maxLen (a few very short
// ones), about one residue in fifty a degenerate code (HMMER2 scores
// unknown residues as such codes).
func randomSeqs(rng *rand.Rand, a *plan7.Alphabet, n, maxLen int) [][]byte {
	seqs := make([][]byte, n)
	for i := range seqs {
		L := rng.Intn(maxLen + 1)
		if i%7 == 0 {
			L = rng.Intn(4)
		}
		s := make([]byte, L)
		for j := range s {
			if rng.Intn(50) == 0 {
				s[j] = byte(a.Size + rng.Intn(a.Iupac-a.Size))
			} else {
				s[j] = byte(rng.Intn(a.Size))
			}
		}
		seqs[i] = s
	}
	return seqs
}

// onlyWY makes every third sequence all W and Y, which the impossible
// model cannot emit from any match state.
func onlyWY(seqs [][]byte) {
	for i := range seqs {
		if i%3 == 0 {
			for j := range seqs[i] {
				seqs[i][j] = 18 + byte(j%2)
			}
		}
	}
}

// wrapProfile is a model on which HMMER2's int32 sums really wrap: N->N
// is impossible (so B falls to -INFTY after the first residue), entry is
// only at node 1, no M->D is possible (D stays at -INFTY), and a run of
// three nodes has every transition into it impossible and cannot emit
// half of the residues. From the second residue on, M(k) in the run is
// (-INFTY + -INFTY) + -INFTY, which wraps to a large positive number
// (the clamp at -INFTY does not catch it) and flows into E, J and C.
func wrapProfile(rng *rand.Rand, a *plan7.Alphabet, M int) *plan7.Profile {
	p := randomProfile(rng, a, M, "global", false)
	h := p.HMM
	h.Xt[plan7.XTN] = [2]float32{1, 0}
	h.Tbd1 = 0
	for k := 1; k < M; k++ {
		h.T[k][plan7.TMD] = 0
	}
	for k := max(2, M/3); k < M/3+3 && k <= M; k++ {
		t := &h.T[k-1]
		t[plan7.TMM], t[plan7.TMI], t[plan7.TIM], t[plan7.TDM] = 0, 0, 0, 0
		h.End[k-1] = 0.5
		for x := 0; x < a.Size; x += 2 {
			h.Mat[k][x] = 0
		}
	}
	h.Renormalize()
	return h.Logoddsify(true)
}

// deadDeleteProfile is a random model whose D states are unreachable:
// M->D and D->D probabilities 0 (-INFTY scores, D->M 1) and no begin
// into D. Every D cell sums -INFTY twice, which HMMER2 clamps to -INFTY;
// without the clamp the D chain would wrap around within two nodes.
func deadDeleteProfile(rng *rand.Rand, a *plan7.Alphabet, M int, mode string) *plan7.Profile {
	p := randomProfile(rng, a, M, mode, false)
	h := p.HMM
	h.Tbd1 = 0
	for k := 1; k < M; k++ {
		h.T[k][plan7.TMD], h.T[k][plan7.TDD] = 0, 0
	}
	h.Renormalize()
	return h.Logoddsify(true)
}

// wraps reports whether some sequence's score is a wrapped one (large
// and positive: no real score comes near a million).
func wraps(p *plan7.Profile, seqs [][]byte) bool {
	for _, s := range seqs {
		if viterbi.ScoreOne(p, s) > 1e8 {
			return true
		}
	}
	return false
}
