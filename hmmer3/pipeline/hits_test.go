package pipeline_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// The golden files testdata/hmmer3/hitsdump/<model>.txt hold what HMMER
// 3.3.2's p7_Pipeline puts in its hit list for each target of the test
// database (serial order, default options, seed 42): the filter pass
// counts, every hit's scores and domain-definition counters, and every
// domain's envelope, alignment span, scores (%a, bit for bit) and
// alignment display lines. They were made by a small C program that runs
// libhmmer's pipeline exactly as hmmsearch's serial loop does.

func fmtHit(h *hits.Hit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hit %s score=%s pre=%s sum=%s lnP=%s nexp=%s nreg=%d nclu=%d nov=%d nenv=%d ndom=%d best=%d\n",
		h.Name, ha(h.Score), ha(h.PreScore), ha(h.SumScore), ha64(h.LnP), ha(h.NExpected),
		h.NRegions, h.NClustered, h.NOverlaps, h.NEnvelopes, len(h.Domains), h.BestDomain)
	for _, d := range h.Domains {
		fmt.Fprintf(&b, "dom env=%d-%d ali=%d-%d hmm=%d-%d envsc=%s corr=%s bias=%s oasc=%s bits=%s lnP=%s\n",
			d.IEnv, d.JEnv, d.IAli, d.JAli, d.Ad.HMMFrom, d.Ad.HMMTo, ha(d.EnvSc), ha(d.DomCorrection),
			ha(d.DomBias), ha(d.OASc), ha(d.BitScore), ha64(d.LnP))
		pp := d.Ad.PPLine
		if pp == "" {
			pp = "-"
		}
		fmt.Fprintf(&b, "ali %s\nali %s\nali %s\nali %s\n", d.Ad.Model, d.Ad.MLine, d.Ad.ASeq, pp)
	}
	return b.String()
}

// ha prints a float32 as C's printf("%a") prints a float promoted to double.
func ha(x float32) string { return ha64(float64(x)) }

func ha64(x float64) string {
	switch {
	case x == 0 && math.Signbit(x):
		return "-0x0p+0"
	case x == 0:
		return "0x0p+0"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	// Go writes the exponent with at least two digits (p+07); C does not.
	mant, exp, _ := strings.Cut(fmt.Sprintf("%x", x), "p")
	digits := strings.TrimLeft(exp[1:], "0")
	if digits == "" {
		digits = "0"
	}
	return mant + "p" + exp[:1] + digits
}

func TestHitsMatchHMMER(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	golden, _ := filepath.Glob(filepath.Join(dir, "hitsdump", "*.txt"))
	if len(golden) == 0 {
		t.Fatal("no golden hit dumps")
	}
	for _, g := range golden {
		model := strings.TrimSuffix(filepath.Base(g), ".txt")
		t.Run(model, func(t *testing.T) {
			h := testmodels.ReadModel(t, filepath.Join(dir, "models", model+".hmm.gz"))
			db := "prot.fa"
			if h.Alph.K == 4 {
				db = "synth_dna.fa"
			}
			cfg := pipeline.DefaultConfig()
			cfg.CPUs = 2
			m, err := pipeline.NewModel(h, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			sr, err := seqio.Open(filepath.Join(dir, db), nil, h.Alph)
			if err != nil {
				t.Fatal(err)
			}
			defer sr.Close()
			hl, st, err := pipeline.Search(m, sr, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			fmt.Fprintf(&got, "#model %s nseqs %d nres %d msv %d bias %d vit %d fwd %d\n", h.Name,
				st.NSeqs, st.NRes, st.NPastMSV, st.NPastBias, st.NPastVit, st.NPastFwd)
			for _, hit := range hl {
				got.WriteString(fmtHit(hit))
			}
			want, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			compareLines(t, got.String(), string(want))
		})
	}
}

func compareLines(t *testing.T, got, want string) {
	t.Helper()
	gs := bufio.NewScanner(strings.NewReader(got))
	ws := bufio.NewScanner(strings.NewReader(want))
	n, bad := 0, 0
	for {
		gok, wok := gs.Scan(), ws.Scan()
		n++
		if !gok && !wok {
			return
		}
		if gs.Text() != ws.Text() {
			bad++
			if bad <= 8 {
				t.Errorf("line %d:\n got: %s\nwant: %s", n, gs.Text(), ws.Text())
			}
		}
		if !gok || !wok {
			t.Errorf("line %d: output lengths differ", n)
			return
		}
	}
}
