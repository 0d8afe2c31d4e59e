package core

// The scoring kernels read a block profile: for every reference column,
// one vector (a lane per branch of the block) of match increments for each
// residue that occurs in the reads, then the gap-open and gap-extension
// vectors of that column (zero in CGAP lanes):
//
//	column c: inc[k=0][lanes] ... inc[k=K-1][lanes] open[lanes] ext[lanes]
//
// PaPaRa's "match increment" is Match when the read residue is in the
// ancestral state set, plus MatchCGap in CGAP columns.

// int16Small and int32Small are PaPaRa's "minus infinity" seeds for the
// 16-bit (DNA) and 32-bit (protein) kernels.
const (
	int16Small = -32000
	int32Small = -2100000000
)

// scoringPlan is what all kernels share for one job: the residues that
// occur in the reads (the profile rows) and the integer width.
type scoringPlan struct {
	kStates []uint8    // c-state of each profile row
	qRows   [][]uint16 // per query, per residue: offset of its row in a column
	wide    bool       // 32-bit lanes (protein, or scores that may overflow 16 bits)
	// fastCosts: the per-column open/extend vectors equal PaPaRa's rule
	// (a column's gap penalties are waived when its match increment is
	// negative) for every residue, so kernels may use them.
	fastCosts bool
	lanes     int // lanes per kernel call: 16 (int16) or 8 (int32)
}

func newScoringPlan(job *Job) *scoringPlan {
	p := &scoringPlan{}
	var kOf [256]int
	for i := range kOf {
		kOf[i] = -1
	}
	maxLen := 0
	for _, q := range job.Queries {
		maxLen = max(maxLen, len(q.CStates))
		for _, c := range q.CStates {
			if kOf[c] < 0 {
				kOf[c] = len(p.kStates)
				p.kStates = append(p.kStates, c)
			}
		}
	}
	pr := job.Params
	p.fastCosts = pr.Match >= 0 && pr.MatchCGap < 0 && pr.Match+pr.MatchCGap < 0
	// 16-bit lanes are exact when no value can wrap: with the fast-cost
	// conditions every cell score lies in [0, Match*len(read)] and the gap
	// states in [GapOpen, that], and the seed -32000 must survive one
	// extension.
	fits16 := p.fastCosts && pr.GapOpen <= 0 && pr.GapExtend <= 0 &&
		pr.GapOpen >= -1000 && pr.GapExtend >= -700 &&
		int64(pr.Match)*int64(maxLen) <= 32000
	p.wide = job.Model.Protein || !fits16
	p.lanes = 16
	if p.wide {
		p.lanes = 8
	}
	vec := p.lanes
	p.qRows = make([][]uint16, len(job.Queries))
	for i, q := range job.Queries {
		r := make([]uint16, len(q.CStates))
		for j, c := range q.CStates {
			r[j] = uint16(kOf[c] * vec)
		}
		p.qRows[i] = r
	}
	return p
}

// stride is the number of elements per column of a profile.
func (p *scoringPlan) stride() int { return (len(p.kStates) + 2) * p.lanes }

// buildProfile16 fills prof for branches [first, first+16) (lanes beyond
// the branch count repeat the last branch, as PaPaRa pads its blocks).
func (p *scoringPlan) buildProfile16(job *Job, first, n int, prof []int16) {
	br := job.Branches
	m := job.Model
	pr := job.Params
	stride := p.stride()
	K := len(p.kStates)
	for c := 0; c < br.Len; c++ {
		col := prof[c*stride : (c+1)*stride]
		for l := 0; l < 16; l++ {
			e := first + min(l, n-1)
			st, cg := br.At(e, c)
			for k, cs := range p.kStates {
				v := 0
				if m.States[cs]&st != 0 {
					v = pr.Match
				}
				if cg {
					v += pr.MatchCGap
				}
				col[k*16+l] = int16(v)
			}
			if cg {
				col[K*16+l], col[(K+1)*16+l] = 0, 0
			} else {
				col[K*16+l], col[(K+1)*16+l] = int16(pr.GapOpen), int16(pr.GapExtend)
			}
		}
	}
}

// buildProfile32 fills prof for the 8 branches [first, first+8) of a
// 32-bit plan (lanes beyond n repeat the last branch).
func (p *scoringPlan) buildProfile32(job *Job, first, n int, prof []int32) {
	br := job.Branches
	m := job.Model
	pr := job.Params
	stride := p.stride()
	K := len(p.kStates)
	for c := 0; c < br.Len; c++ {
		col := prof[c*stride : (c+1)*stride]
		for l := 0; l < 8; l++ {
			e := first + min(l, n-1)
			st, cg := br.At(e, c)
			for k, cs := range p.kStates {
				v := 0
				if m.States[cs]&st != 0 {
					v = pr.Match
				}
				if cg {
					v += pr.MatchCGap
				}
				col[k*8+l] = int32(v)
			}
			if cg {
				col[K*8+l], col[(K+1)*8+l] = 0, 0
			} else {
				col[K*8+l], col[(K+1)*8+l] = int32(pr.GapOpen), int32(pr.GapExtend)
			}
		}
	}
}
