package hmm

import (
	"fmt"
	"io"
	"strings"

	"github.com/hmmgo/hmmgo/alphabet"
)

// Annotation flags of a model header (RF, MM, CONS, CS, MAP yes/no).
type annot struct{ rf, mm, cons, cs, mapped bool }

// set records a yes/no annotation header line (RF, MM, CONS, CS, MAP);
// HMMER takes the words in any case and rejects anything else.
func (an *annot) set(tag string, tok []byte) error {
	var yes bool
	switch {
	case strings.EqualFold(string(tok), "yes"):
		yes = true
	case strings.EqualFold(string(tok), "no"):
	default:
		return fmt.Errorf("%s header line must say yes or no, not %q", tag, tok)
	}
	switch tag {
	case "RF":
		an.rf = yes
	case "MM":
		an.mm = yes
	case "CONS":
		an.cons = yes
	case "CS":
		an.cs = yes
	case "MAP":
		an.mapped = yes
	}
	return nil
}

// readASCII3 parses one HMMER3 ASCII model (read_asc30hmm's rules).
func (r *Reader) readASCII3() (*HMM, error) {
	lr := r.lr
	if r.started {
		if !lr.next() {
			if lr.err != nil {
				return nil, r.ioError(lr.err, lr.num)
			}
			return nil, io.EOF
		}
		if tag := lr.token(); string(tag) != r.format.String() {
			return nil, r.errorf("expected %s to start the next model, found %q (all models of a file must have one format)", r.format, tag)
		}
	}
	r.started = true
	h := newHMM(r.format)
	var an annot
	if err := r.header3(h, &an); err != nil {
		return nil, err
	}
	h.allocBody(r.abc)
	if err := r.body3(h, an); err != nil {
		return nil, err
	}
	if r.format < Format3e {
		h.setConsensus()
	}
	return h, nil
}

// header3 reads tag lines up to and including the HMM line.
func (r *Reader) header3(h *HMM, an *annot) error {
	lr := r.lr
	var stats uint8 // which STATS lines were seen: 1 MSV, 2 Viterbi, 4 Forward
	var com []string
	haveName, haveAlph := false, false
	for {
		if !lr.next() {
			return r.eof("the model header has no HMM line")
		}
		tag := lr.token()
		switch string(tag) {
		case "NAME":
			tok := lr.token()
			if tok == nil {
				return r.errorf("no name on NAME line")
			}
			h.Name, haveName = string(tok), true
		case "ACC":
			tok := lr.token()
			if tok == nil {
				return r.errorf("no accession on ACC line")
			}
			h.Acc = string(tok)
		case "DESC":
			rest := lr.rest()
			if len(rest) == 0 {
				return r.errorf("no description on DESC line")
			}
			h.Desc = string(rest)
		case "LENG":
			tok := lr.token()
			m, ok := intPrefix(tok)
			if !ok || m <= 0 {
				return r.errorf("invalid model length %q on LENG line", tok)
			}
			h.M = m
		case "MAXL":
			if r.format < Format3c {
				continue // not a tag before 3/c
			}
			tok := lr.token()
			v, ok := intPrefix(tok)
			if !ok || v == 0 {
				return r.errorf("invalid max length %q on MAXL line", tok)
			}
			h.MaxLength = v
		case "ALPH":
			tok := lr.token()
			t, ok := alphabet.ParseType(string(tok))
			if !ok {
				return r.errorf("unrecognized or unsupported alphabet type %q on ALPH line", tok)
			}
			if err := r.setAlphabet(t); err != nil {
				return err
			}
			haveAlph = true
		case "RF", "MM", "CONS", "CS", "MAP":
			if err := an.set(string(tag), lr.token()); err != nil {
				return r.errorf("%v", err)
			}
		case "DATE":
			rest := lr.rest()
			if len(rest) == 0 {
				return r.errorf("no date on DATE line")
			}
			h.Date = string(rest)
		case "COM":
			if lr.token() == nil {
				return r.errorf("no command number on COM line")
			}
			rest := lr.rest()
			if len(rest) == 0 {
				return r.errorf("no command on COM line")
			}
			com = append(com, string(rest))
		case "NSEQ":
			tok := lr.token()
			v, ok := intPrefix(tok)
			if !ok || v == 0 {
				return r.errorf("invalid number of sequences %q on NSEQ line", tok)
			}
			h.NSeq = v
		case "EFFN":
			tok := lr.token()
			v, ok := realPrefix(tok)
			if !ok || !(float32(v) > 0) {
				return r.errorf("invalid effective number of sequences %q on EFFN line", tok)
			}
			h.EffNSeq = float32(v)
		case "CKSUM":
			tok := lr.token()
			v, ok := intPrefix(tok)
			if !ok {
				return r.errorf("invalid checksum %q on CKSUM line", tok)
			}
			h.Checksum, h.HasChksum = uint32(v), true
		case "STATS":
			bit, err := r.statsLine(h)
			if err != nil {
				return err
			}
			stats |= bit
		case "GA", "TC", "NC":
			if err := r.cutoffLine(h, string(tag)); err != nil {
				return err
			}
		case "HMM":
			switch {
			case !haveName:
				return r.errorf("model has no NAME line")
			case h.M == 0:
				return r.errorf("model %s has no LENG line", h.Name)
			case !haveAlph:
				return r.errorf("model %s has no ALPH line", h.Name)
			case stats != 0 && stats != 7:
				return r.errorf("model %s lacks one or more of its three STATS lines", h.Name)
			}
			h.HasStats = stats == 7
			h.ComLog = strings.Join(com, "\n")
			return nil
		}
	}
}

// statsLine reads "STATS LOCAL MSV|VITERBI|FORWARD a b" (3/b and later)
// or 3/a's "STATS LOCAL VLAMBDA|VMU|FTAU x".
func (r *Reader) statsLine(h *HMM) (uint8, error) {
	lr := r.lr
	local, kind := lr.token(), lr.token()
	var v [2]float64
	n := 2
	if r.format == Format3a {
		n = 1
	}
	for i := 0; i < n; i++ {
		tok := lr.token()
		if tok == nil {
			return 0, r.errorf("too few fields on STATS line")
		}
		x, ok := realPrefix(tok)
		if !ok {
			return 0, r.errorf("bad number %q on STATS line", tok)
		}
		v[i] = x
	}
	if !strings.EqualFold(string(local), "LOCAL") {
		return 0, r.errorf("STATS line: expected LOCAL, found %q", local)
	}
	a, b := float32(v[0]), float32(v[1])
	if r.format == Format3a {
		switch strings.ToUpper(string(kind)) {
		case "VLAMBDA":
			h.EvParam[MSVLambda], h.EvParam[VitLambda], h.EvParam[FwdLambda] = a, a, a
			return 1, nil
		case "VMU":
			h.EvParam[MSVMu], h.EvParam[VitMu] = a, a
			return 2, nil
		case "FTAU":
			h.EvParam[FwdTau] = a
			return 4, nil
		}
	} else {
		switch strings.ToUpper(string(kind)) {
		case "MSV":
			h.EvParam[MSVMu], h.EvParam[MSVLambda] = a, b
			return 1, nil
		case "VITERBI":
			h.EvParam[VitMu], h.EvParam[VitLambda] = a, b
			return 2, nil
		case "FORWARD":
			h.EvParam[FwdTau], h.EvParam[FwdLambda] = a, b
			return 4, nil
		}
	}
	return 0, r.errorf("STATS line: unrecognized kind %q", kind)
}

// cutoffLine reads GA, TC or NC: two scores (per sequence, per domain)
// for protein models, one (used for both) for DNA and RNA.
func (r *Reader) cutoffLine(h *HMM, tag string) error {
	if r.abc == nil {
		return r.errorf("%s line before the ALPH line", tag)
	}
	idx := map[string]int{"GA": GA1, "TC": TC1, "NC": NC1}[tag]
	n := 2
	if r.abc.Type == alphabet.DNA || r.abc.Type == alphabet.RNA {
		n = 1
	}
	for i := 0; i < n; i++ {
		tok := r.lr.token()
		if tok == nil {
			return r.errorf("too few fields on %s line", tag)
		}
		v, ok := realPrefix(tok)
		if !ok {
			return r.errorf("bad number %q on %s line", tok, tag)
		}
		h.Cutoff[idx+i] = float32(v)
	}
	if n == 1 {
		h.Cutoff[idx+1] = h.Cutoff[idx]
	}
	switch tag {
	case "GA":
		h.HasGA = true
	case "TC":
		h.HasTC = true
	case "NC":
		h.HasNC = true
	}
	return nil
}

// body3 reads from the line after HMM to the closing //.
func (r *Reader) body3(h *HMM, an annot) error {
	lr := r.lr
	K := r.abc.K
	// The HMM line is followed by the transition-name line; both are
	// headings only.
	if !lr.next() || !lr.next() {
		return r.eof("no main model section after the HMM line")
	}
	first := lr.token()
	if string(first) == "COMPO" {
		h.Compo = make([]float32, K)
		if err := r.probs(h.Compo, nil, "COMPO line"); err != nil {
			return err
		}
		if !lr.next() {
			return r.eof("no node 0 insert emission line after COMPO")
		}
		first = lr.token()
	}
	if err := r.probs(h.Ins[0], first, "insert emission line of node 0"); err != nil {
		return err
	}
	if !lr.next() {
		return r.eof("no node 0 transition line")
	}
	if err := r.transitions(&h.T[0], 0); err != nil {
		return err
	}
	if an.rf {
		h.RF = blankLine(h.M)
	}
	if an.mm && r.format >= Format3f {
		h.MM = blankLine(h.M)
	}
	if an.cons && r.format >= Format3e {
		h.Consensus = blankLine(h.M)
	}
	if an.cs {
		h.CS = blankLine(h.M)
	}
	if an.mapped {
		h.Map = make([]int, h.M+1)
	}
	rf, mm, cons, cs := []byte(h.RF), []byte(h.MM), []byte(h.Consensus), []byte(h.CS)
	for k := 1; k <= h.M; k++ {
		if !lr.next() {
			return r.eof("model %s ends at node %d of %d", h.Name, k-1, h.M)
		}
		tok := lr.token()
		if n, ok := parseInt(tok); !ok || n != k {
			return r.errorf("expected the match line of node %d (of %d), found %q", k, h.M, tok)
		}
		if err := r.probs(h.Mat[k], nil, "match emission line"); err != nil {
			return err
		}
		// Annotation fields follow the emissions: MAP, CONS (3/e on),
		// RF, MM (3/f), CS; each is present ("-" when unused).
		tok = lr.token()
		if tok == nil {
			return r.errorf("missing MAP field on the match line of node %d", k)
		}
		if an.mapped {
			v, ok := parseInt(tok)
			if !ok {
				return r.errorf("bad MAP field %q on the match line of node %d", tok, k)
			}
			h.Map[k] = v
		}
		for _, f := range []struct {
			name  string
			used  bool
			on    bool
			store []byte
		}{
			{"CONS", r.format >= Format3e, an.cons, cons},
			{"RF", true, an.rf, rf},
			{"MM", r.format >= Format3f, an.mm, mm},
			{"CS", true, an.cs, cs},
		} {
			if !f.used {
				continue
			}
			tok = lr.token()
			if tok == nil {
				return r.errorf("missing %s field on the match line of node %d", f.name, k)
			}
			if f.on {
				f.store[k] = tok[0]
			}
		}
		if !lr.next() {
			return r.eof("no insert emission line for node %d", k)
		}
		if err := r.probs(h.Ins[k], nil, "insert emission line"); err != nil {
			return err
		}
		if !lr.next() {
			return r.eof("no transition line for node %d", k)
		}
		if err := r.transitions(&h.T[k], k); err != nil {
			return err
		}
	}
	h.RF, h.MM, h.Consensus, h.CS = string(rf), string(mm), string(cons), string(cs)
	if !lr.next() {
		return r.eof("no closing // after node %d of model %s", h.M, h.Name)
	}
	if tok := lr.token(); string(tok) != "//" {
		return r.errorf("expected closing // after node %d (LENG %d), found %q", h.M, h.M, tok)
	}
	return nil
}

// probs reads len(p) parameter fields from the current line (the first
// one already in hand if first != nil) and checks that they form a
// probability distribution.
func (r *Reader) probs(p []float32, first []byte, what string) error {
	for x := range p {
		tok := first
		if x > 0 || tok == nil {
			tok = r.lr.token()
		}
		if tok == nil {
			return r.errorf("too few fields on %s: expected %d, found %d", what, len(p), x)
		}
		v, ok := probability(tok)
		if !ok {
			return r.errorf("bad probability field %q on %s (want -ln(p) >= 0 or *)", tok, what)
		}
		p[x] = v
	}
	if !sumsToOne(p) {
		return r.errorf("the probabilities on %s do not sum to 1", what)
	}
	return nil
}

// transitions reads the 7 transition fields of node k: the M, I and D
// groups (MM MI MD, IM II, DM DD) must each sum to 1.
func (r *Reader) transitions(t *[NTransitions]float32, k int) error {
	for x := range t {
		tok := r.lr.token()
		if tok == nil {
			return r.errorf("too few fields on the transition line of node %d: expected %d, found %d", k, NTransitions, x)
		}
		v, ok := probability(tok)
		if !ok {
			return r.errorf("bad probability field %q on the transition line of node %d (want -ln(p) >= 0 or *)", tok, k)
		}
		t[x] = v
	}
	if !sumsToOne(t[TMM:TIM]) || !sumsToOne(t[TIM:TDM]) || !sumsToOne(t[TDM:]) {
		return r.errorf("the transition probabilities of node %d do not sum to 1 (per state)", k)
	}
	return nil
}

// blankLine returns M+1 blanks: node 0's blank and M to be filled.
func blankLine(M int) string { return strings.Repeat(" ", M+1) }
