// Package viterbi implements HMMER 2.3.2's Plan 7 dynamic programming
// with its integer scores: the full-matrix Viterbi and traceback that
// hmm2search aligns hits with, the linear-memory variants it switches to
// for large problems, Forward, trace scoring and the null2 correction,
// and the score-only Viterbi kernels (one sequence at a time, and many
// sequences in lanes, ClawHMMER style) that decide which sequences are
// hits. Every function reproduces HMMER2's int32 arithmetic exactly,
// including the order of comparisons that decides ties in tracebacks.
package viterbi

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// State is a Plan 7 state type in a trace (HMMER2's STM, STD, ...).
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

func (s State) String() string {
	return [...]string{"BOGUS", "M", "D", "I", "S", "N", "B", "E", "C", "T", "J"}[s]
}

const negInf = -plan7.Infty

// Trace is a state path: element 0 is S, the last is T. Node is the
// model node (1..M) of M, D and I states, else 0; Pos is the residue
// (1..L) an emitting state emits, else 0.
type Trace struct {
	St   []State
	Node []int32
	Pos  []int32
}

// Len is the number of states in the trace.
func (t *Trace) Len() int { return len(t.St) }

func (t *Trace) add(st State, node, pos int32) {
	t.St = append(t.St, st)
	t.Node = append(t.Node, node)
	t.Pos = append(t.Pos, pos)
}

// reverse turns a back-to-front trace around (P7ReverseTrace).
func (t *Trace) reverse() {
	for i, j := 0, len(t.St)-1; i < j; i, j = i+1, j-1 {
		t.St[i], t.St[j] = t.St[j], t.St[i]
		t.Node[i], t.Node[j] = t.Node[j], t.Node[i]
		t.Pos[i], t.Pos[j] = t.Pos[j], t.Pos[i]
	}
}

// Decompose splits a multi-hit trace into one S-N-B...E-C-T trace per
// pass through the model (TraceDecompose), with nonemitting N and C.
func (t *Trace) Decompose() []*Trace {
	var out []*Trace
	for i := 0; i < len(t.St); i++ {
		if t.St[i] != StB {
			continue
		}
		d := &Trace{}
		d.add(StS, 0, 0)
		d.add(StN, 0, 0)
		for ; ; i++ {
			d.add(t.St[i], t.Node[i], t.Pos[i])
			if t.St[i] == StE {
				break
			}
		}
		d.add(StC, 0, 0)
		d.add(StT, 0, 0)
		out = append(out, d)
	}
	return out
}

// SimpleBounds returns the first and last residue and model node of a
// single-pass trace (TraceSimpleBounds): i1..i2 from the first and last
// M state, k1..k2 from the first and last M or D state.
func (t *Trace) SimpleBounds() (i1, i2, k1, k2 int, err error) {
	i1, i2, k1, k2 = -1, -1, -1, -1
	for p := 0; p < len(t.St); p++ {
		if k1 == -1 && (t.St[p] == StM || t.St[p] == StD) {
			k1 = int(t.Node[p])
		}
		if t.St[p] == StM {
			i1 = int(t.Pos[p])
			break
		}
	}
	for p := len(t.St) - 1; p >= 0; p-- {
		if k2 == -1 && (t.St[p] == StM || t.St[p] == StD) {
			k2 = int(t.Node[p])
		}
		if t.St[p] == StM {
			i2 = int(t.Pos[p])
			break
		}
	}
	if i1 == -1 || k1 == -1 || i2 == -1 || k2 == -1 {
		return 0, 0, 0, 0, fmt.Errorf("viterbi: trace has no match state")
	}
	return i1, i2, k1, k2, nil
}

// transitionScore is TransitionScoreLookup(): the score of one step.
func transitionScore(p *plan7.Profile, st1 State, k1 int32, st2 State, k2 int32) (int32, error) {
	bad := func() (int32, error) {
		return 0, fmt.Errorf("viterbi: illegal %s->%s transition in trace", st1, st2)
	}
	switch st1 {
	case StS, StT:
		return 0, nil
	case StN:
		switch st2 {
		case StB:
			return p.Xsc[plan7.XTN][plan7.Move], nil
		case StN:
			return p.Xsc[plan7.XTN][plan7.Loop], nil
		}
	case StB:
		switch st2 {
		case StM:
			return p.Bsc[k2], nil
		case StD:
			return plan7.Prob2Score(p.HMM.Tbd1, 1.), nil
		}
	case StM:
		switch st2 {
		case StM:
			return p.Tsc[plan7.TMM][k1], nil
		case StI:
			return p.Tsc[plan7.TMI][k1], nil
		case StD:
			return p.Tsc[plan7.TMD][k1], nil
		case StE:
			return p.Esc[k1], nil
		}
	case StI:
		switch st2 {
		case StM:
			return p.Tsc[plan7.TIM][k1], nil
		case StI:
			return p.Tsc[plan7.TII][k1], nil
		}
	case StD:
		switch st2 {
		case StM:
			return p.Tsc[plan7.TDM][k1], nil
		case StD:
			return p.Tsc[plan7.TDD][k1], nil
		case StE:
			return 0, nil
		}
	case StE:
		switch st2 {
		case StC:
			return p.Xsc[plan7.XTE][plan7.Move], nil
		case StJ:
			return p.Xsc[plan7.XTE][plan7.Loop], nil
		}
	case StJ:
		switch st2 {
		case StB:
			return p.Xsc[plan7.XTJ][plan7.Move], nil
		case StJ:
			return p.Xsc[plan7.XTJ][plan7.Loop], nil
		}
	case StC:
		switch st2 {
		case StT:
			return p.Xsc[plan7.XTC][plan7.Move], nil
		case StC:
			return p.Xsc[plan7.XTC][plan7.Loop], nil
		}
	}
	return bad()
}

// Score is the score of a trace in bits (P7TraceScore). dsq holds codes
// of residues 1..L at dsq[0..L-1].
func (t *Trace) Score(p *plan7.Profile, dsq []byte) (float32, error) {
	var sc int32
	for i := 0; i < len(t.St)-1; i++ {
		switch t.St[i] {
		case StM:
			sc += p.Msc[dsq[t.Pos[i]-1]][t.Node[i]]
		case StI:
			sc += p.Isc[dsq[t.Pos[i]-1]][t.Node[i]]
		}
		ts, err := transitionScore(p, t.St[i], t.Node[i], t.St[i+1], t.Node[i+1])
		if err != nil {
			return 0, err
		}
		sc += ts
	}
	return plan7.Scorify(sc), nil
}

// Null2Correction is the bits to subtract for HMMER2's second null
// model (TraceScoreCorrection): a composition model averaged over the
// M and I states of the trace, scored on the residues they emit, with
// an 8-bit prior penalty, combined with the first null by ILogsum.
func (t *Trace) Null2Correction(p *plan7.Profile, dsq []byte) float32 {
	if t == nil {
		return 0
	}
	h := p.HMM
	a := h.Alph
	var pr [plan7.MaxAbet]float32
	for i := range t.St {
		switch t.St[i] {
		case StM:
			for x := 0; x < a.Size; x++ {
				pr[x] += h.Mat[t.Node[i]][x]
			}
		case StI:
			for x := 0; x < a.Size; x++ {
				pr[x] += h.Ins[t.Node[i]][x]
			}
		}
	}
	plan7.FNorm(pr[:a.Size])
	var sc [plan7.MaxCode]int32
	for x := 0; x < a.Size; x++ {
		sc[x] = plan7.Prob2Score(pr[x], h.Null[x])
	}
	for x := a.Size; x < a.Iupac; x++ {
		sc[x] = plan7.DegenerateSymbolScore(a, pr[:], h.Null[:], x)
	}
	var score int32
	for i := range t.St {
		if t.St[i] == StM || t.St[i] == StI {
			score += sc[dsq[t.Pos[i]-1]]
		}
	}
	score -= 8 * plan7.IntScale
	return plan7.Scorify(plan7.ILogsum(0, score))
}
