package core

import "fmt"

// Part returns a copy of p that aligns only the queries listed in keep
// (indices into p.Queries), for a run split across machines. The
// reference is shared, not copied.
func (p *Prepared) Part(keep []int) *Prepared {
	part := *p
	part.Queries = make([]Query, len(keep))
	for i, q := range keep {
		part.Queries[i] = p.Queries[q]
	}
	return &part
}

// Traces returns every query's alignment to its best branch, in query
// order, in the encoding Assemble takes back.
func (r *Result) Traces() [][]uint8 { return r.traces }

// Assemble rebuilds the result of a run over all of p's queries from the
// placements and traces of runs over parts of them (Part), both in p's
// query order, so that Render gives the alignment one whole run gives: the
// inserted columns depend on every read's trace.
func Assemble(p *Prepared, placements []Placement, traces [][]uint8) (*Result, error) {
	if len(placements) != len(p.Queries) || len(traces) != len(p.Queries) {
		return nil, fmt.Errorf("%d placements and %d traces for %d reads", len(placements), len(traces), len(p.Queries))
	}
	for i, q := range p.Queries {
		if placements[i].Query != q.Name {
			return nil, fmt.Errorf("read %d is %s, not %s", i+1, q.Name, placements[i].Query)
		}
		if b := placements[i].Branch; b < 0 || b >= p.Ref.Branches.N {
			return nil, fmt.Errorf("read %s: branch %d out of range", q.Name, b)
		}
		if err := checkTrace(traces[i], len(q.CStates), p.Ref.Branches.Len); err != nil {
			return nil, fmt.Errorf("read %s: %v", q.Name, err)
		}
	}
	return &Result{Placements: placements, prep: p, traces: traces}, nil
}

// checkTrace makes sure a trace consumes exactly the read's residues and
// the reference's columns, so that Render cannot index out of range.
func checkTrace(t []uint8, residues, columns int) error {
	var r, c int
	for _, op := range t {
		switch op {
		case opMatch:
			r++
			c++
		case opDelete:
			c++
		default:
			r++
		}
	}
	if r != residues || c != columns {
		return fmt.Errorf("alignment covers %d residues and %d columns, not %d and %d", r, c, residues, columns)
	}
	return nil
}
