package core

import (
	"math"

	"github.com/hmmgo/hmmgo/papara/newick"
)

// Branches holds, for every branch of the reference tree in PaPaRa's
// order, the parsimony state and the CGAP flag of every reference column
// at a virtual root placed on that branch.
type Branches struct {
	N, Len int
	model  *Model
	dna    []uint8  // N*Len, DNA: state | cgapBit8
	aa     []uint32 // N*Len, protein: state | cgapBit32
}

const (
	cgapBit8  = 0x80
	cgapBit32 = 1 << 31
)

// At returns the state and CGAP flag of column col at branch e.
func (b *Branches) At(e, col int) (state uint32, cgap bool) {
	i := e*b.Len + col
	if b.dna != nil {
		v := b.dna[i]
		return uint32(v &^ cgapBit8), v&cgapBit8 != 0
	}
	v := b.aa[i]
	return v &^ cgapBit32, v&cgapBit32 != 0
}

// PackedDNA returns the DNA branches as one array of N*Len bytes, branch
// by branch: the 4-bit parsimony state (A=1 C=2 G=4 T=8) with bit 7 set
// on CGAP columns. It is nil for protein. A GPU scorer can upload it as is.
func (b *Branches) PackedDNA() []uint8 { return b.dna }

// PackedProtein returns the protein branches as N*Len words: the 20-bit
// parsimony state with bit 31 set on CGAP columns (nil for DNA).
func (b *Branches) PackedProtein() []uint32 { return b.aa }

// Model is the sequence model of the branches.
func (b *Branches) Model() *Model { return b.model }

func (b *Branches) set(e, col int, state uint32, cgap bool) {
	i := e*b.Len + col
	if b.dna != nil {
		v := uint8(state)
		if cgap {
			v |= cgapBit8
		}
		b.dna[i] = v
		return
	}
	if cgap {
		state |= cgapBit32
	}
	b.aa[i] = state
}

// ancVec is PaPaRa's per-node ancestral vector (pvec_pgap): Fitch
// parsimony states and, per column, the likelihoods of "residue" (p0) and
// "gap" (p1) under the gap model.
type ancVec struct {
	state  []uint32
	p0, p1 []float64
}

func newAncVec(n int) *ancVec {
	return &ancVec{state: make([]uint32, n), p0: make([]float64, n), p1: make([]float64, n)}
}

// ancestralBuilder computes the vectors of all branches.
type ancestralBuilder struct {
	model *Model
	gm    *GapModel
	tips  map[*newick.Node]*ancVec
	up    map[*newick.Node]*ancVec
	pcach map[float64][2][2]float64
	n     int
}

func (a *ancestralBuilder) pmatrix(t float64) [2][2]float64 {
	p, ok := a.pcach[t]
	if !ok {
		p = a.gm.PMatrix(t)
		a.pcach[t] = p
	}
	return p
}

// 2^256 and its inverse: PaPaRa rescales a column whose two likelihoods
// both fall below 2^-256.
const (
	twoTo256    = 0x1p256
	minLikelihd = 0x1p-256
)

// combine is PaPaRa's newview: the vector of a node from its two children
// c1, c2 hanging below it on branches of length z1, z2.
func (a *ancestralBuilder) combine(dst, c1 *ancVec, z1 float64, c2 *ancVec, z2 float64) {
	pa, pb := a.pmatrix(z1), a.pmatrix(z2)
	for i := 0; i < a.n; i++ {
		s := c1.state[i] & c2.state[i]
		if s == 0 {
			s = c1.state[i] | c2.state[i]
		}
		dst.state[i] = s
		t10 := float64(pa[0][0]*c1.p0[i]) + float64(pa[0][1]*c1.p1[i])
		t11 := float64(pa[1][0]*c1.p0[i]) + float64(pa[1][1]*c1.p1[i])
		t20 := float64(pb[0][0]*c2.p0[i]) + float64(pb[0][1]*c2.p1[i])
		t21 := float64(pb[1][0]*c2.p0[i]) + float64(pb[1][1]*c2.p1[i])
		v0, v1 := float64(t10*t20), float64(t11*t21)
		if math.Abs(v0) < minLikelihd && math.Abs(v1) < minLikelihd {
			v0 *= twoTo256
			v1 *= twoTo256
		}
		dst.p0[i], dst.p1[i] = v0, v1
	}
}

// dirUp returns the vector of the subtree at l.Node seen from l.Back
// (memoised per node: every node but the start has one upward link).
func (a *ancestralBuilder) dirUp(l *newick.Link) *ancVec {
	if l.Node.IsTip {
		return a.tips[l.Node]
	}
	if v, ok := a.up[l.Node]; ok {
		return v
	}
	c1, c2 := l.Next.Back, l.Next.Next.Back
	v := newAncVec(a.n)
	a.combine(v, a.dirUp(c1), c1.Length, a.dirUp(c2), c2.Length)
	a.up[l.Node] = v
	return v
}

// BuildBranches computes the ancestral states and CGAP flags of every
// branch of tree, whose tips carry the reference rows (by tip name).
// Branches come in PaPaRa's order (newick.Tree.Edges).
func BuildBranches(model *Model, gm *GapModel, tree *newick.Tree, rows map[string][]byte, width int) (*Branches, []newick.Edge) {
	a := &ancestralBuilder{model: model, gm: gm, n: width,
		tips: make(map[*newick.Node]*ancVec), up: make(map[*newick.Node]*ancVec),
		pcach: make(map[float64][2][2]float64)}
	for _, t := range tree.Tips {
		v := newAncVec(width)
		for i, c := range rows[t.Name] {
			s, _ := model.RefState(c)
			v.state[i] = s
			if model.IsGapState(s) {
				v.p1[i] = 1
			} else {
				v.p0[i] = 1
			}
		}
		a.tips[t] = v
	}
	edges := tree.Edges()
	br := &Branches{N: len(edges), Len: width, model: model}
	if model.Protein {
		br.aa = make([]uint32, len(edges)*width)
	} else {
		br.dna = make([]uint8, len(edges)*width)
	}
	root := newAncVec(width)
	next := 0
	record := func(v *ancVec) {
		for i := 0; i < width; i++ {
			br.set(next, i, v.state[i], v.p0[i] < v.p1[i])
		}
		next++
	}
	// visit walks the branches in the order of newick.Tree.Edges. l is the
	// link of a node towards its parent and down the vector of the parent's
	// side of the branch.
	var visit func(l *newick.Link, down *ancVec)
	visit = func(l *newick.Link, down *ancVec) {
		a.combine(root, a.dirUp(l), l.Length, down, l.Back.Length)
		record(root)
		if l.Node.IsTip {
			return
		}
		c1, c2 := l.Next.Back, l.Next.Next.Back
		d := newAncVec(width)
		a.combine(d, a.dirUp(c2), c2.Length, down, l.Length)
		visit(c1, d)
		a.combine(d, a.dirUp(c1), c1.Length, down, l.Length)
		visit(c2, d)
	}
	s := tree.Start
	nb := []*newick.Link{s.Back, s.Next.Back, s.Next.Next.Back}
	if s.Node.IsTip {
		visit(s.Back, a.tips[s.Node])
	} else {
		d := newAncVec(width)
		for k := 0; k < 3; k++ {
			o1, o2 := nb[(k+1)%3], nb[(k+2)%3]
			a.combine(d, a.dirUp(o1), o1.Length, a.dirUp(o2), o2.Length)
			visit(nb[k], d)
		}
	}
	return br, edges
}
