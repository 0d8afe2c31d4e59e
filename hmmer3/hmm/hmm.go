// Package hmm holds HMMER3's Plan 7 profile HMM in probability space and
// reads it as HMMER 3.3.2's hmmsearch does: HMMER3 ASCII formats 3/a to
// 3/f, their binary (hmmpress'd .h3m) forms, and HMMER2.0 ASCII files,
// plain or gzip'd, with many models per file.
package hmm

import "github.com/hmmgo/hmmgo/alphabet"

// Transition indices into HMM.T[k], in the order HMMER3 files list them.
const (
	TMM = iota
	TMI
	TMD
	TIM
	TII
	TDM
	TDD
	NTransitions
)

// E-value parameter indices into HMM.EvParam (STATS LOCAL lines).
const (
	MSVMu = iota
	MSVLambda
	VitMu
	VitLambda
	FwdTau
	FwdLambda
	NEvParam
)

// Cutoff indices into HMM.Cutoff (GA, TC, NC lines: per sequence, per domain).
const (
	GA1 = iota
	GA2
	TC1
	TC2
	NC1
	NC2
	NCutoffs
)

// Unset is the value of an evparam or cutoff that the file did not give.
const Unset = -99999

// HMM is one Plan 7 model. Arrays are indexed by node k = 0..M; node 0
// carries only the begin transitions and insert 0.
type HMM struct {
	Name, Acc, Desc string
	M               int
	Alph            *alphabet.Alphabet
	T               [][NTransitions]float32 // T[0..M]
	Mat             [][]float32             // Mat[0..M][0..K-1]; Mat[0] = {1,0,0...}
	Ins             [][]float32             // Ins[0..M][0..K-1]

	// Optional per-node annotation, each a string of length M+1 with a
	// leading blank for node 0 (as HMMER stores them); empty when absent.
	RF, MM, Consensus, CS string
	Map                   []int // alignment column of each node; nil when absent

	NSeq      int     // -1 when absent
	EffNSeq   float32 // -1 when absent
	MaxLength int     // -1 when absent
	Checksum  uint32
	HasChksum bool
	EvParam   [NEvParam]float32
	HasStats  bool
	Cutoff    [NCutoffs]float32
	HasGA     bool
	HasTC     bool
	HasNC     bool
	Compo     []float32 // mean match composition, nil when absent

	Format Format // the file format the model was read from
	Date   string // DATE line; empty when absent
	ComLog string // COM lines, joined with newlines; empty when absent

	// Calibrate is set for HMMER2 models. They carry no HMMER3 E-value
	// parameters, so hmmsearch 3.3.2 computes them when it reads the
	// model (p7_Calibrate with its own seed-42 RNG and default sample
	// sizes); HasStats stays false here and the pipeline must do that.
	Calibrate bool
}
