// Package pipeline runs HMMER3's per-target search pipeline: the MSV,
// bias and Viterbi filters, Forward, and for survivors Backward, domain
// definition and scoring, with HMMER 3.3.2's numbers.
package pipeline

import (
	"fmt"
	"io"
	"math"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/seqio"
)

// Config is one search's settings (hmmsearch's options that the pipeline
// itself reads; reporting thresholds included).
type Config struct {
	F1, F2, F3 float64
	Max        bool // --max: no bias filter, all filter thresholds 1.0
	NoBias     bool
	NoNull2    bool
	Seed       uint32 // --seed; 0 means an arbitrary seed, never reset
	Thresholds hits.Thresholds
	CPUs       int // worker goroutines; results do not depend on it

	// TimeStages records the time of each stage in Stats.StageTime.
	TimeStages bool
}

// DefaultConfig returns hmmsearch's defaults.
func DefaultConfig() Config {
	return Config{
		F1: 0.02, F2: 1e-3, F3: 1e-5, Seed: 42, CPUs: 1,
		Thresholds: hits.Thresholds{E: 10, DomE: 10, IncE: 0.01, IncDomE: 0.01},
	}
}

// filterThresholds returns F1, F2, F3 as the pipeline applies them:
// capped at 1, and all 1 with --max.
func (c *Config) filterThresholds() (f1, f2, f3 float64) {
	if c.Max {
		return 1, 1, 1
	}
	return math.Min(1, c.F1), math.Min(1, c.F2), math.Min(1, c.F3)
}

func (c *Config) biasFilter() bool { return !c.Max && !c.NoBias }

// SequenceSource yields targets in database order; Read returns io.EOF at the end.
type SequenceSource interface {
	Read() (*seqio.Sequence, error)
}

// SliceSource reads targets held in memory.
type SliceSource struct {
	Seqs []*seqio.Sequence
	next int
}

// Read returns the next target, io.EOF after the last.
func (s *SliceSource) Read() (*seqio.Sequence, error) {
	if s.next >= len(s.Seqs) {
		return nil, io.EOF
	}
	s.next++
	return s.Seqs[s.next-1], nil
}

// Model is one query prepared for searching: its profile in every score
// system, the null model, and the thresholds that apply to it (with
// --cut_ga/tc/nc, its own cutoffs).
type Model struct {
	HMM        *hmm.HMM
	Abc        *alphabet.Alphabet
	OM         *oprofile.Profile
	BG         *profile.Background
	Thresholds hits.Thresholds
	Display    *hits.DisplayModel
}

// NewModel prepares h for searching with cfg (hmmsearch's
// p7_ProfileConfig(L=100, local) + p7_oprofile_Convert + p7_pli_NewModel).
func NewModel(h *hmm.HMM, cfg *Config) (*Model, error) {
	bg := profile.NewBackground(h.Alph)
	gm := profile.Config(h, bg, 100)
	om := oprofile.Convert(gm, h)
	if cfg.biasFilter() {
		compo := h.Compo
		if compo == nil {
			// HMMER leaves an absent composition at its "unset" value -1
			// and filters with it anyway; so do we.
			compo = make([]float32, h.Alph.K)
			for i := range compo {
				compo[i] = -1
			}
		}
		bg.SetFilter(h.M, compo)
	}
	m := &Model{HMM: h, Abc: h.Alph, OM: om, BG: bg, Thresholds: cfg.Thresholds}
	if err := m.applyCutoffs(cfg.Thresholds.Cutoff); err != nil {
		return nil, err
	}
	m.Display = hits.NewDisplayModel(h, m.MatchOdds)
	return m, nil
}

func (m *Model) applyCutoffs(c hits.Cutoff) error {
	h := m.HMM
	var ok bool
	var name string
	var i1, i2 int
	switch c {
	case hits.NoCutoff:
		return nil
	case hits.CutGA:
		ok, name, i1, i2 = h.HasGA, "GA", hmm.GA1, hmm.GA2
	case hits.CutTC:
		ok, name, i1, i2 = h.HasTC, "TC", hmm.TC1, hmm.TC2
	case hits.CutNC:
		ok, name, i1, i2 = h.HasNC, "NC", hmm.NC1, hmm.NC2
	}
	if !ok {
		return fmt.Errorf("%s bit thresholds unavailable on model %s", name, h.Name)
	}
	m.Thresholds.ApplyCutoffs(h.Cutoff[i1], h.Cutoff[i2])
	return nil
}

// MatchOdds is the Forward match odds of node k (1..M) for residue x, used
// by the alignment display's match line.
func (m *Model) MatchOdds(k int, x byte) float32 {
	fb := &m.OM.FB
	return fb.RF[x][(k-1)%fb.Q][(k-1)/fb.Q]
}
