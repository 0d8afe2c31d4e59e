package plan7

// Transition indices into HMM.T[k] and Profile.Tsc (TMM..TDD in HMMER2).
const (
	TMM = iota
	TMI
	TMD
	TIM
	TII
	TDM
	TDD
)

// Special-state indices into HMM.Xt and Profile.Xsc (XTN..XTJ), and the
// two transitions of each (MOVE, LOOP).
const (
	XTN = iota
	XTE
	XTC
	XTJ
)

const (
	Move = 0 // N->B, E->C, C->T, J->B
	Loop = 1 // N->N, E->J, C->C, J->J
)

// HMM is a Plan 7 model in probability form, as read from a save file
// and renormalised. Node k runs 1..M; index 0 of the per-node slices is
// the unused node 0 that HMMER2 also allocates.
type HMM struct {
	Name, Acc, Desc string
	HasAcc, HasDesc bool
	Alph            *Alphabet
	M               int

	RF, CS       []byte // 1..M annotation when HasRF/HasCS
	HasRF, HasCS bool
	HasMap       bool
	Map          []int
	Comlog       string
	Nseq         int
	Ctime        string
	Checksum     int

	// Pfam cutoffs (GA, TC, NC lines): per sequence, per domain.
	GA, TC, NC          [2]float32
	HasGA, HasTC, HasNC bool

	T     [][7]float32       // T[k][TMM..TDD], k = 1..M-1
	Mat   [][MaxAbet]float32 // match emissions, k = 1..M
	Ins   [][MaxAbet]float32 // insert emissions, k = 1..M-1
	Tbd1  float32            // B->D1
	Xt    [4][2]float32      // N,E,C,J: MOVE, LOOP
	Begin []float32          // B->M_k, k = 1..M
	End   []float32          // M_k->E, k = 1..M
	Null  [MaxAbet]float32   // null model emissions
	P1    float32            // null model loop probability

	// EVD parameters from hmm2calibrate (EVD line); valid when HasStats.
	Mu, Lambda float32
	HasStats   bool
}

// newBody allocates the per-node arrays for M nodes.
func (h *HMM) newBody(M int) {
	h.M = M
	h.RF = make([]byte, M+2)
	h.CS = make([]byte, M+2)
	h.Map = make([]int, M+1)
	h.T = make([][7]float32, M+1)
	h.Mat = make([][MaxAbet]float32, M+1)
	h.Ins = make([][MaxAbet]float32, M+1)
	h.Begin = make([]float32, M+1)
	h.End = make([]float32, M+1)
}

// Renormalize makes every probability vector sum to one, exactly as
// Plan7Renormalize() does after a save file is read (float rounding
// included: integer scores on disk round-trip only approximately).
func (h *HMM) Renormalize() {
	K := h.Alph.Size
	for k := 1; k <= h.M; k++ {
		FNorm(h.Mat[k][:K])
	}
	for k := 1; k < h.M; k++ {
		FNorm(h.Ins[k][:K])
	}
	d := FSum(h.Begin[1:h.M+1]) + h.Tbd1
	FScale(h.Begin[1:h.M+1], float32(1./float64(d)))
	h.Tbd1 /= d
	for k := 1; k < h.M; k++ {
		d := FSum(h.T[k][:3]) + h.End[k]
		FScale(h.T[k][:3], float32(1./float64(d)))
		h.End[k] /= d
		FNorm(h.T[k][3:5])
		FNorm(h.T[k][5:7])
	}
	FNorm(h.Null[:K])
	for st := 0; st < 4; st++ {
		FNorm(h.Xt[st][:])
	}
	h.T[0][TDM], h.T[0][TDD] = 0, 0
}
