package pipeline_test

import (
	"bufio"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/msvfilter"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/hmmer3/vitfilter"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// The golden files testdata/hmmer3/stages/<model>.txt hold, for every
// non-empty target of the test database, the values HMMER 3.3.2's
// library computes (printed with %a, so bit for bit): null model score,
// bias filter score, MSV, Viterbi filter, Forward and Backward parser
// scores. They were made by a small C program linked against HMMER
// 3.3.2's libhmmer that calls p7_bg_NullOne, p7_bg_FilterScore,
// p7_MSVFilter, p7_ViterbiFilter, p7_ForwardParser and
// p7_BackwardParser after the configuration hmmsearch uses.

type stageRow struct {
	name string
	L    int
	vals [6]float32
}

func readStages(t *testing.T, path string) []stageRow {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []stageRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 8 {
			t.Fatalf("%s: bad line %q", path, line)
		}
		r := stageRow{name: fs[0]}
		r.L, _ = strconv.Atoi(fs[1])
		for i := range r.vals {
			v, err := strconv.ParseFloat(fs[2+i], 32)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			r.vals[i] = float32(v)
		}
		rows = append(rows, r)
	}
	return rows
}

func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (math.IsNaN(float64(a)) && math.IsNaN(float64(b)))
}

// TestStageScoresMatchHMMER compares every stage's score, bit for bit,
// for every model of testdata/hmmer3/models against every target.
func TestStageScoresMatchHMMER(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	golden, _ := filepath.Glob(filepath.Join(dir, "stages", "*.txt"))
	if len(golden) == 0 {
		t.Fatal("no golden stage files")
	}
	stageNames := []string{"nullsc", "filtersc", "msv", "vitfilter", "forward", "backward"}
	for _, g := range golden {
		model := strings.TrimSuffix(filepath.Base(g), ".txt")
		t.Run(model, func(t *testing.T) {
			h := testmodels.ReadModel(t, filepath.Join(dir, "models", model+".hmm.gz"))
			db := "prot.fa"
			if h.Alph.K == 4 {
				db = "synth_dna.fa"
			}
			want := readStages(t, g)
			bg := profile.NewBackground(h.Alph)
			gm := profile.Config(h, bg, 100)
			om := oprofile.Convert(gm, h)
			bg.SetFilter(h.M, h.Compo)
			sr, err := seqio.Open(filepath.Join(dir, db), nil, h.Alph)
			if err != nil {
				t.Fatal(err)
			}
			defer sr.Close()
			oxf, oxb := fwdback.NewMatrix(), fwdback.NewMatrix()
			n, bad := 0, 0
			for {
				sq, err := sr.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if sq.L() == 0 {
					continue
				}
				if n >= len(want) {
					t.Fatalf("more targets than golden rows")
				}
				w := want[n]
				n++
				if w.name != sq.Name || w.L != sq.L() {
					t.Fatalf("target %d: got %s/%d, golden %s/%d", n, sq.Name, sq.L(), w.name, w.L)
				}
				L := sq.L()
				bg.SetLength(L)
				om.ReconfigLength(L)
				var got [6]float32
				got[0] = bg.NullOne(L)
				got[1] = bg.FilterScore(sq.Dsq)
				got[2] = msvfilter.Score(sq.Dsq, &om.MSV)
				got[3] = vitfilter.Score(sq.Dsq, &om.Vit)
				if got[4], err = fwdback.Forward(sq.Dsq, om, oxf, false); err != nil {
					t.Fatal(err)
				}
				if got[5], err = fwdback.Backward(sq.Dsq, om, oxf, oxb, false); err != nil {
					t.Fatal(err)
				}
				for s := range got {
					if !sameFloat(got[s], w.vals[s]) {
						bad++
						if bad <= 10 {
							t.Errorf("%s %s: %s = %v (%#08x), HMMER %v (%#08x)", model, sq.Name, stageNames[s], got[s], math.Float32bits(got[s]), w.vals[s], math.Float32bits(w.vals[s]))
						}
					}
				}
			}
			if n != len(want) {
				t.Errorf("%d targets, golden has %d", n, len(want))
			}
		})
	}
}
