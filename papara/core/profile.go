package core

// The scoring kernels read a block profile: for every reference column,
// one vector (a lane per branch of the block) of match increments for each
// residue that occurs in the reads, then the gap-open and gap-extension
// vectors of that column (zero in CGAP lanes):
//
//	column c: inc[k=0][lanes] ... inc[k=K-1][lanes] open[lanes] ext[lanes]
//
// PaPaRa's match increment is Match when the read residue is in the
// ancestral state set, plus MatchCGap in CGAP columns.

// int16Small and int32Small are PaPaRa's "minus infinity" seeds for the
// 16-bit (DNA) and 32-bit (protein) kernels.
const (
	int16Small = -32000
	int32Small = -2100000000
)

// Lane widths a read can be scored with.
const (
	lanes8  = iota // 32 branches per vector, saturating, biased
	lanes16        // 16 branches per vector (PaPaRa's DNA arithmetic)
	lanes32        // 8 branches per vector (PaPaRa's protein arithmetic)
)

// scoringPlan is what all kernels share for one job.
type scoringPlan struct {
	kStates []uint8    // c-state of each profile row
	qRows   [][]uint16 // per query, per residue: its profile row
	class   [3][]int   // queries by lane width
	// fastCosts: the per-column open/extend vectors equal PaPaRa's rule
	// (a lane's gap penalties are waived when its match increment is
	// negative) for every residue, so the AVX2 kernels may use them.
	fastCosts bool
	bias8     int // lane value of a score of 0 in the 8-bit kernel
}

func newScoringPlan(job *Job, avx2 bool) *scoringPlan {
	p := &scoringPlan{}
	var kOf [256]int
	for i := range kOf {
		kOf[i] = -1
	}
	for _, q := range job.Queries {
		for _, c := range q.CStates {
			if kOf[c] < 0 {
				kOf[c] = len(p.kStates)
				p.kStates = append(p.kStates, c)
			}
		}
	}
	pr := job.Params
	p.fastCosts = pr.Match >= 0 && pr.MatchCGap < 0 && pr.Match+pr.MatchCGap < 0
	// With the fast-cost conditions and non-positive gap scores every cell
	// score lies in [0, Match*len(read)] and every other value, once it can
	// matter, in [minV, that]. Narrow lanes are exact while that range fits:
	// 16-bit lanes also need the seed -32000 to survive one extension; the
	// 8-bit lanes saturate, and a value clamped at minV only ever meets a
	// max() against a value >= minV, so clamping changes nothing.
	gapsOK := p.fastCosts && pr.GapOpen <= 0 && pr.GapExtend <= 0
	minV := min(pr.GapOpen, pr.MatchCGap, 0)
	in8 := func(v int) bool { return v >= -128 && v <= 127 }
	ok8 := avx2 && gapsOK && in8(pr.Match) && in8(pr.MatchCGap) && in8(pr.GapOpen) && in8(pr.GapExtend) && minV >= -128
	ok16 := gapsOK && pr.GapOpen >= -1000 && pr.GapExtend >= -700
	p.bias8 = -128 - minV
	p.qRows = make([][]uint16, len(job.Queries))
	for i, q := range job.Queries {
		r := make([]uint16, len(q.CStates))
		for j, c := range q.CStates {
			r[j] = uint16(kOf[c])
		}
		p.qRows[i] = r
		top := int64(pr.Match) * int64(len(q.CStates))
		switch {
		case ok8 && top-int64(minV) <= 255:
			p.class[lanes8] = append(p.class[lanes8], i)
		case ok16 && top <= 32000:
			p.class[lanes16] = append(p.class[lanes16], i)
		default:
			p.class[lanes32] = append(p.class[lanes32], i)
		}
	}
	return p
}

// stride is the number of elements per profile column for a lane count.
func (p *scoringPlan) stride(lanes int) int { return (len(p.kStates) + 2) * lanes }

// buildProfile fills prof (lanes wide) for branches [first, first+n);
// lanes beyond n repeat the last branch, as PaPaRa pads its blocks.
func buildProfile[T int8 | int16 | int32](p *scoringPlan, job *Job, first, n, lanes int, prof []T) {
	br := job.Branches
	stride := p.stride(lanes)
	K := len(p.kStates)
	if br.dna != nil {
		// DNA columns are one byte (state | CGAP bit): look the whole
		// column vector up in a table of the 32 possible bytes.
		var table [32][]T
		for v := range table {
			st, cg := uint32(v&15), v&16 != 0
			table[v] = columnValues(p, job, st, cg, make([]T, K+2))
		}
		for l := 0; l < lanes; l++ {
			e := first + min(l, n-1)
			col := br.dna[e*br.Len : (e+1)*br.Len]
			for c, v := range col {
				t := table[v&15|(v>>3)&16]
				out := prof[c*stride+l:]
				for k, x := range t {
					out[k*lanes] = x
				}
			}
		}
		return
	}
	vals := make([]T, K+2)
	for c := 0; c < br.Len; c++ {
		col := prof[c*stride : (c+1)*stride]
		for l := 0; l < lanes; l++ {
			st, cg := br.At(first+min(l, n-1), c)
			for k, x := range columnValues(p, job, st, cg, vals) {
				col[k*lanes+l] = x
			}
		}
	}
}

// columnValues fills v with a lane's profile entries for a column with
// ancestral state st: the match increment of every profile residue, then
// the gap-open and gap-extension scores (0 on CGAP columns).
func columnValues[T int8 | int16 | int32](p *scoringPlan, job *Job, st uint32, cg bool, v []T) []T {
	pr := job.Params
	for k, cs := range p.kStates {
		x := 0
		if job.Model.States[cs]&st != 0 {
			x = pr.Match
		}
		if cg {
			x += pr.MatchCGap
		}
		v[k] = T(x)
	}
	K := len(p.kStates)
	if cg {
		v[K], v[K+1] = 0, 0
	} else {
		v[K], v[K+1] = T(pr.GapOpen), T(pr.GapExtend)
	}
	return v
}
