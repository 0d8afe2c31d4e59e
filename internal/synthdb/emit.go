package synthdb

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

// PlantMode is how a planted homolog is sampled from its model.
type PlantMode int

const (
	// Core samples from the core model, as hmmemit does by default
	// (p7_CoreEmit): a glocal path from node 1 to node M (begin into M1,
	// I0 or D1; every node's match, insert and delete transitions),
	// without the profile's N/C/J flanks, which synthdb adds itself.
	Core PlantMode = iota
	// Local samples one local fragment, as hmmemit -p --unilocal does
	// (p7_ProfileEmit in unilocal mode): the entry node k with
	// probability proportional to occ(k)*(M-k+1) (occ: match-state
	// occupancy, HMMER's local entry distribution times the number of
	// exits), the exit node uniform over k..M, the path between them by
	// the core transitions.
	Local
)

func (m PlantMode) String() string {
	if m == Local {
		return "local"
	}
	return "core"
}

// ParsePlantMode reads "core" or "local".
func ParsePlantMode(s string) (PlantMode, error) {
	switch s {
	case "core":
		return Core, nil
	case "local":
		return Local, nil
	}
	return 0, fmt.Errorf("unknown plant mode %q (want core or local)", s)
}

// emitter samples sequences from one Plan 7 model.
type emitter struct {
	h     *hmm.HMM
	mode  PlantMode
	entry []float64 // Local: entry weight of node k (index k; 0 unused)
	// record, when set (tests), sees every state visited: 'M', 'I' or
	// 'D', its node, and the residue emitted (0 for D).
	record func(st byte, k int, x byte)
}

// checkProtein refuses models of other alphabets.
func checkProtein(h *hmm.HMM) error {
	if h.Alph == nil || h.Alph.K != len(aminoSymbols) || h.Alph.Sym[:h.Alph.K] != aminoSymbols {
		return fmt.Errorf("model %s is not a protein model; synthdb writes protein databases", h.Name)
	}
	return nil
}

func newEmitter(h *hmm.HMM, mode PlantMode) (*emitter, error) {
	if err := checkProtein(h); err != nil {
		return nil, err
	}
	if h.M < 1 || len(h.T) != h.M+1 || len(h.Mat) != h.M+1 || len(h.Ins) != h.M+1 {
		return nil, fmt.Errorf("model %s has inconsistent node arrays", h.Name)
	}
	e := &emitter{h: h, mode: mode}
	if mode == Local {
		occ := occupancy(h)
		e.entry = make([]float64, h.M+1)
		for k := 1; k <= h.M; k++ {
			e.entry[k] = occ[k] * float64(h.M-k+1)
		}
	}
	return e, nil
}

// occupancy is the probability that a core path uses match state k
// (k = 1..M): a path reaches node k either in M/I of node k-1 and moves
// on to Mk, or in D(k-1) and moves to Mk.
func occupancy(h *hmm.HMM) []float64 {
	occ := make([]float64, h.M+1)
	occ[1] = float64(h.T[0][hmm.TMI]) + float64(h.T[0][hmm.TMM])
	for k := 2; k <= h.M; k++ {
		t := &h.T[k-1]
		occ[k] = occ[k-1]*(float64(t[hmm.TMM])+float64(t[hmm.TMI])) + (1-occ[k-1])*float64(t[hmm.TDM])
	}
	return occ
}

// choose samples an index of the (not necessarily normalised) weights p.
func choose[F float32 | float64](r *rng, p []F) int {
	var sum float64
	for _, x := range p {
		sum += float64(x)
	}
	u := r.float64() * sum
	last := 0
	for i, x := range p {
		if x <= 0 {
			continue
		}
		if u < float64(x) {
			return i
		}
		u -= float64(x)
		last = i
	}
	return last // rounding left u just above the total
}

// emission is one sampled homolog.
type emission struct {
	seq           []byte // residue letters
	kFirst, kLast int    // first and last match node used; 0 when none
}

// emit samples one sequence. States: 'M', 'I', 'D'; k is the node.
func (e *emitter) emit(r *rng) emission {
	h := e.h
	var out emission
	add := func(p []float32, k int, match bool) {
		x := aminoSymbols[choose(r, p[:len(aminoSymbols)])]
		out.seq = append(out.seq, x)
		if e.record != nil {
			e.record("IM"[b2i(match)], k, x)
		}
		if match {
			if out.kFirst == 0 {
				out.kFirst = k
			}
			out.kLast = k
		}
	}
	var st byte
	var k, kend int
	if e.mode == Local {
		k = choose(r, e.entry)
		kend = k + r.intn(h.M-k+1)
		st = 'M'
		add(h.Mat[k], k, true)
	} else {
		kend = h.M
		st, k = e.step(r, 'M', 0) // the begin state moves as M0 does
		if k > h.M {
			return out
		}
		switch st {
		case 'M':
			add(h.Mat[k], k, true)
		case 'I':
			add(h.Ins[k], k, false)
		case 'D':
			if e.record != nil {
				e.record('D', k, 0)
			}
		}
	}
	for {
		if (st == 'M' || st == 'D') && k == kend && e.mode == Local {
			return out
		}
		st, k = e.step(r, st, k)
		if k > h.M {
			return out // M_{M+1} is the end state
		}
		switch st {
		case 'M':
			add(h.Mat[k], k, true)
		case 'I':
			add(h.Ins[k], k, false)
		case 'D':
			if e.record != nil {
				e.record('D', k, 0)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// step samples the transition out of state st of node k and returns the
// new state and node.
func (e *emitter) step(r *rng, st byte, k int) (byte, int) {
	t := &e.h.T[k]
	switch st {
	case 'M':
		switch choose(r, t[hmm.TMM:hmm.TMD+1]) {
		case 0:
			return 'M', k + 1
		case 1:
			return 'I', k
		}
		return 'D', k + 1
	case 'I':
		if choose(r, t[hmm.TIM:hmm.TII+1]) == 0 {
			return 'M', k + 1
		}
		return 'I', k
	}
	if choose(r, t[hmm.TDM:hmm.TDD+1]) == 0 {
		return 'M', k + 1
	}
	return 'D', k + 1
}
