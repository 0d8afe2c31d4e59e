package fwdback

import "github.com/hmmgo/hmmgo/hmmer3/hits"

// traceAppend adds one state to a trace being built backwards, recording
// residues and posteriors the way p7_trace_AppendWithPP does: N, C and J
// emit only when they follow themselves.
func traceAppend(tr *hits.Trace, st hits.State, k, i int, pp float32) {
	switch st {
	case hits.StN, hits.StC, hits.StJ:
		if n := len(tr.St); n > 0 && tr.St[n-1] == st {
			tr.I = append(tr.I, i)
			tr.PP = append(tr.PP, pp)
		} else {
			tr.I = append(tr.I, 0)
			tr.PP = append(tr.PP, 0)
		}
		tr.K = append(tr.K, 0)
	case hits.StD:
		tr.I = append(tr.I, 0)
		tr.PP = append(tr.PP, 0)
		tr.K = append(tr.K, k)
	case hits.StM, hits.StI:
		tr.I = append(tr.I, i)
		tr.PP = append(tr.PP, pp)
		tr.K = append(tr.K, k)
	default:
		tr.I = append(tr.I, 0)
		tr.PP = append(tr.PP, 0)
		tr.K = append(tr.K, 0)
	}
	tr.St = append(tr.St, st)
}

// traceReverse turns a backwards-built trace around (p7_trace_Reverse),
// first moving each N/C/J residue to the first state of its pair.
func traceReverse(tr *hits.Trace) {
	n := len(tr.St)
	for z := 0; z+1 < n; z++ {
		s := tr.St[z]
		if (s == hits.StN || s == hits.StC || s == hits.StJ) && tr.St[z+1] == s {
			if tr.I[z] == 0 && tr.I[z+1] > 0 {
				tr.I[z], tr.I[z+1] = tr.I[z+1], 0
				tr.PP[z], tr.PP[z+1] = tr.PP[z+1], 0
			}
		}
	}
	for a, b := 0, n-1; a < b; a, b = a+1, b-1 {
		tr.St[a], tr.St[b] = tr.St[b], tr.St[a]
		tr.K[a], tr.K[b] = tr.K[b], tr.K[a]
		tr.I[a], tr.I[b] = tr.I[b], tr.I[a]
		tr.PP[a], tr.PP[b] = tr.PP[b], tr.PP[a]
	}
}

// TraceDomain locates one B..E segment of a trace (p7_trace_Index):
// trace positions of B and E, and the first and last M state's residue
// and node.
type TraceDomain struct {
	TFrom, TTo     int
	SqFrom, SqTo   int
	HMMFrom, HMMTo int
}

// IndexTrace lists the domains of tr in order.
func IndexTrace(tr *hits.Trace) []TraceDomain {
	var doms []TraceDomain
	var cur TraceDomain
	for z, st := range tr.St {
		switch st {
		case hits.StB:
			cur = TraceDomain{TFrom: z}
		case hits.StM:
			if cur.SqFrom == 0 {
				cur.SqFrom = tr.I[z]
			}
			if cur.HMMFrom == 0 {
				cur.HMMFrom = tr.K[z]
			}
			cur.SqTo = tr.I[z]
			cur.HMMTo = tr.K[z]
		case hits.StE:
			cur.TTo = z
			doms = append(doms, cur)
		}
	}
	return doms
}

func resetTrace(tr *hits.Trace) {
	tr.St, tr.K, tr.I, tr.PP = tr.St[:0], tr.K[:0], tr.I[:0], tr.PP[:0]
}

// reserveTrace empties tr and gives it room for n states, so that a
// trace of a long envelope is not regrown a dozen times as it is built.
func reserveTrace(tr *hits.Trace, n int) {
	resetTrace(tr)
	if cap(tr.St) < n {
		tr.St = make([]hits.State, 0, n)
	}
	if cap(tr.K) < n {
		tr.K = make([]int, 0, n)
	}
	if cap(tr.I) < n {
		tr.I = make([]int, 0, n)
	}
	if cap(tr.PP) < n {
		tr.PP = make([]float32, 0, n)
	}
}
