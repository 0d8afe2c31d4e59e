// Package hits holds what the hmmsearch pipeline finds: traces, domains,
// alignment displays and per-target hits, with the reporting and
// inclusion thresholds applied to them. It is the boundary between the
// dynamic programming (which fills these types) and the report writers
// (which print them).
package hits

import "time"

// State is a Plan 7 trace state, numbered as HMMER numbers them.
type State byte

const (
	StBogus State = iota
	StM
	StD
	StI
	StS
	StN
	StB
	StE
	StC
	StT
	StJ
)

// Trace is a state path. Index 0 is S and the last is T. K is the node
// (1..M) of M, D and I states, else 0; I is the residue emitted (1..L),
// else 0; PP is the posterior probability of that residue, else 0.
type Trace struct {
	St []State
	K  []int
	I  []int
	PP []float32
	M  int
	L  int
}

// AliDisplay is one domain's alignment as printed: parallel strings of
// equal length N. Optional lines are empty when the model or trace lacks
// them.
type AliDisplay struct {
	RFLine, MMLine, CSLine string
	Model                  string // query consensus
	MLine                  string // identities and conservative substitutions
	ASeq                   string // aligned target
	PPLine                 string
	N                      int

	HMMName, HMMAcc, HMMDesc string
	HMMFrom, HMMTo, M        int

	SqName, SqAcc, SqDesc string
	SqFrom, SqTo, L       int64
}

// Domain is one domain of a hit. Scores in nats unless named Bit.
type Domain struct {
	IEnv, JEnv    int64
	IAli, JAli    int64
	EnvSc         float32 // Forward score of the envelope, no null2
	DomCorrection float32 // null2 correction
	DomBias       float32 // FLogsum(0, log omega + DomCorrection)
	OASc          float32 // optimal accuracy score
	BitScore      float32
	LnP           float64
	IsReported    bool
	IsIncluded    bool
	Ad            *AliDisplay
}

// Hit flags.
const (
	IsReported = 1 << iota
	IsIncluded
	IsNew
	IsDropped
	IsDuplicate
)

// Hit is one target sequence that passed the pipeline.
type Hit struct {
	Name, Acc, Desc string
	SortKey         float64

	Score, PreScore, SumScore float32 // bits
	LnP, PreLnP, SumLnP       float64

	NExpected  float32
	NRegions   int
	NClustered int
	NOverlaps  int
	NEnvelopes int

	Flags      uint32
	NReported  int
	NIncluded  int
	BestDomain int

	SeqIdx  int64 // position of the target in the database, for stable merges
	Domains []Domain
}

// Cutoff names which model cutoffs (--cut_ga/--cut_nc/--cut_tc), if
// any, replace the E-value and bit-score thresholds.
type Cutoff int

const (
	NoCutoff Cutoff = iota
	CutGA
	CutTC
	CutNC
)

// Thresholds are the reporting and inclusion rules of one search, as
// HMMER's pipeline object carries them.
type Thresholds struct {
	// Reporting: by E-value unless ByBits, then score >= T.
	ByBits bool
	E, T   float64
	// Per-domain reporting.
	DomByBits  bool
	DomE, DomT float64
	// Inclusion.
	IncByBits  bool
	IncE, IncT float64
	// Per-domain inclusion.
	IncDomByBits     bool
	IncDomE, IncDomT float64

	Cutoff Cutoff

	Z           float64
	ZFromOption bool
	DomZ        float64
	DomZFromOpt bool
}

// Stats are the pipeline's per-query counters, printed as the
// "Internal pipeline statistics summary".
type Stats struct {
	NModels, NNodes int64
	NSeqs, NRes     int64
	NPastMSV        int64
	NPastBias       int64
	NPastVit        int64
	NPastFwd        int64
	// StageTime is the time spent in each stage, summed over workers,
	// when the pipeline was asked to measure it (Config.TimeStages).
	StageTime  [NStages]time.Duration
	F1, F2, F3 float64
}

// Add accumulates another worker's counters into s.
func (s *Stats) Add(o *Stats) {
	s.NSeqs += o.NSeqs
	s.NRes += o.NRes
	s.NPastMSV += o.NPastMSV
	s.NPastBias += o.NPastBias
	s.NPastVit += o.NPastVit
	s.NPastFwd += o.NPastFwd
	for i := range s.StageTime {
		s.StageTime[i] += o.StageTime[i]
	}
}

// Pipeline stages whose time Stats.StageTime records.
const (
	StageMSV = iota
	StageBias
	StageVit
	StageFwd
	StageDomains
	NStages
)

// StageNames names the stages for reports.
var StageNames = [NStages]string{"MSV", "bias", "Viterbi", "Forward", "domains"}
