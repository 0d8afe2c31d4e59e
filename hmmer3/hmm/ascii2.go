package hmm

import (
	"io"
	"strings"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/easel"
)

// readASCII2 converts one HMMER2.0 model as read_asc20hmm does: integer
// log-odds scores become probabilities against the file's NULE null
// model, inserts emit the HMMER3 background, the begin and end
// transitions are recast into node 0 and node M, and every distribution
// is renormalized. HMMER then calibrates the E-value parameters by
// simulation, which needs the search pipeline: the model comes back with
// Calibrate set and HasStats false.
func (r *Reader) readASCII2() (*HMM, error) {
	lr := r.lr
	if r.started {
		if !lr.next() {
			if lr.err != nil {
				return nil, r.ioError(lr.err, lr.num)
			}
			return nil, io.EOF
		}
		if tag := lr.token(); string(tag) != "HMMER2.0" {
			return nil, r.errorf("expected HMMER2.0 to start the next model, found %q", tag)
		}
	}
	r.started = true
	h := newHMM(Format20)
	h.Calibrate = true
	var an annot
	null, err := r.header2(h, &an)
	if err != nil {
		return nil, err
	}
	h.allocBody(r.abc)
	if err := r.body2(h, an, null); err != nil {
		return nil, err
	}
	h.renormalize()
	h.setConsensus()
	return h, nil
}

// header2 reads HMMER2 tag lines up to the HMM line and returns the
// NULE null model. XT, NULT, EVD and CKSUM lines mean nothing to HMMER3.
func (r *Reader) header2(h *HMM, an *annot) ([]float32, error) {
	lr := r.lr
	var null []float32
	var com []string
	haveName := false
	for {
		if !lr.next() {
			return nil, r.eof("the model header has no HMM line")
		}
		tag := lr.token()
		switch string(tag) {
		case "NAME", "ACC":
			tok := lr.token()
			if tok == nil {
				return nil, r.errorf("nothing follows %s", tag)
			}
			if string(tag) == "NAME" {
				h.Name, haveName = string(tok), true
			} else {
				h.Acc = string(tok)
			}
		case "DESC":
			// Some old SMART models have a bare DESC line.
			h.Desc = string(lr.rest())
		case "LENG":
			tok := lr.token()
			m, ok := intPrefix(tok)
			if !ok || m <= 0 {
				return nil, r.errorf("invalid model length %q on LENG line", tok)
			}
			h.M = m
		case "ALPH":
			tok := lr.token()
			var t alphabet.Type
			switch {
			case strings.EqualFold(string(tok), "amino"):
				t = alphabet.Amino
			case strings.EqualFold(string(tok), "nucleic"):
				t = alphabet.DNA
			default:
				return nil, r.errorf("unrecognized alphabet type %q on ALPH line (HMMER2: Amino or Nucleic)", tok)
			}
			if err := r.setAlphabet(t); err != nil {
				return nil, err
			}
		case "RF", "CS", "MAP":
			if err := an.set(string(tag), lr.token()); err != nil {
				return nil, r.errorf("%v", err)
			}
		case "DATE":
			rest := lr.rest()
			if len(rest) == 0 {
				return nil, r.errorf("no date on DATE line")
			}
			h.Date = string(rest)
		case "COM":
			rest := lr.rest()
			if len(rest) == 0 {
				return nil, r.errorf("no command on COM line")
			}
			com = append(com, string(rest))
		case "NSEQ":
			tok := lr.token()
			v, ok := intPrefix(tok)
			if !ok {
				return nil, r.errorf("invalid number of sequences %q on NSEQ line", tok)
			}
			h.NSeq = v
		case "GA", "TC", "NC":
			var v [2]float32
			for i := range v {
				tok := lr.token()
				x, ok := realPrefix(tok)
				if tok == nil || !ok {
					return nil, r.errorf("%s line needs two scores", tag)
				}
				v[i] = float32(x)
			}
			switch string(tag) {
			case "GA":
				h.Cutoff[GA1], h.Cutoff[GA2], h.HasGA = v[0], v[1], true
			case "TC":
				h.Cutoff[TC1], h.Cutoff[TC2], h.HasTC = v[0], v[1], true
			case "NC":
				h.Cutoff[NC1], h.Cutoff[NC2], h.HasNC = v[0], v[1], true
			}
		case "NULE":
			if r.abc == nil {
				return nil, r.errorf("ALPH must precede NULE in HMMER2 files")
			}
			null = make([]float32, r.abc.K)
			uniform := float32(1.0 / float64(float32(r.abc.K)))
			for x := range null {
				tok := lr.token()
				p, ok := h2prob(tok, uniform)
				if !ok {
					return nil, r.errorf("bad or missing score %q on NULE line", tok)
				}
				null[x] = p
			}
		case "HMM":
			switch {
			case !haveName:
				return nil, r.errorf("model has no NAME line")
			case h.M == 0:
				return nil, r.errorf("model %s has no LENG line", h.Name)
			case r.abc == nil:
				return nil, r.errorf("model %s has no ALPH line", h.Name)
			case null == nil:
				return nil, r.errorf("model %s has no NULE line", h.Name)
			}
			h.ComLog = strings.Join(com, "\n")
			return null, nil
		}
	}
}

// body2 reads the begin line, M nodes of three lines each, and the //.
func (r *Reader) body2(h *HMM, an annot, null []float32) error {
	lr := r.lr
	if !lr.next() || !lr.next() {
		return r.eof("no main model section after the HMM line")
	}
	// The begin line: B->M1, B->I0 (unused), B->D1.
	var beg [3]float32
	for i := range beg {
		tok := lr.token()
		p, ok := h2prob(tok, 1)
		if !ok {
			return r.errorf("bad or missing score %q on the begin transition line", tok)
		}
		beg[i] = p
	}
	h.T[0] = [NTransitions]float32{TMM: beg[0], TMD: beg[2], TIM: 1, TDM: 1}
	bg := background(r.abc)
	copy(h.Ins[0], bg)
	if an.rf {
		h.RF = blankLine(h.M)
	}
	if an.cs {
		h.CS = blankLine(h.M)
	}
	if an.mapped {
		h.Map = make([]int, h.M+1)
	}
	rf, cs := []byte(h.RF), []byte(h.CS)
	for k := 1; k <= h.M; k++ {
		if !lr.next() {
			return r.eof("model %s ends at node %d of %d", h.Name, k-1, h.M)
		}
		tok := lr.token()
		if n, ok := parseInt(tok); !ok || n != k {
			return r.errorf("expected the match line of node %d (of %d), found %q", k, h.M, tok)
		}
		for x := range h.Mat[k] {
			tok := lr.token()
			p, ok := h2prob(tok, null[x])
			if !ok {
				return r.errorf("bad or missing score %q on the match line of node %d", tok, k)
			}
			h.Mat[k][x] = p
		}
		if an.mapped {
			tok := lr.token()
			v, ok := parseInt(tok)
			if !ok {
				return r.errorf("bad or missing MAP field %q on the match line of node %d", tok, k)
			}
			h.Map[k] = v
		}
		// Insert line: RF character, then insert scores HMMER3 ignores.
		if !lr.next() {
			return r.eof("no insert line for node %d", k)
		}
		rfTok := lr.token()
		if rfTok == nil {
			return r.errorf("missing RF field on the insert line of node %d", k)
		}
		if an.rf {
			rf[k] = rfTok[0]
		}
		copy(h.Ins[k], bg)
		// Transition line: CS character, then 9 scores of which the first
		// 7 are HMMER3's; node M's are not compatible and are replaced.
		if !lr.next() {
			return r.eof("no transition line for node %d", k)
		}
		csTok := lr.token()
		if csTok == nil {
			return r.errorf("missing CS field on the transition line of node %d", k)
		}
		if an.cs {
			cs[k] = csTok[0]
		}
		if k < h.M {
			for x := range h.T[k] {
				tok := lr.token()
				p, ok := h2prob(tok, 1)
				if !ok {
					return r.errorf("bad or missing score %q on the transition line of node %d", tok, k)
				}
				h.T[k][x] = p
			}
		}
	}
	h.T[h.M] = [NTransitions]float32{TMM: 1, TIM: 1, TDM: 1}
	h.RF, h.CS = string(rf), string(cs)
	if !lr.next() {
		return r.eof("no closing // after node %d of model %s", h.M, h.Name)
	}
	if tok := lr.token(); string(tok) != "//" {
		return r.errorf("expected closing // after node %d (LENG %d), found %q", h.M, h.M, tok)
	}
	return nil
}

// h2prob converts a HMMER2 score (integer, in units of 1/1000 bit) back
// to a probability as HMMER3 does: null * exp(score * 0.00069314718) in
// double, rounded to float (under flush-to-zero); "*" is 0.
func h2prob(tok []byte, null float32) (float32, bool) {
	if len(tok) == 1 && tok[0] == '*' {
		return 0, true
	}
	n, ok := parseInt(tok)
	if !ok {
		return 0, false
	}
	return easel.Flush32(float32(float64(null) * easel.ExpFTZ(float64(n)*0.00069314718))), true
}

// renormalize is p7_hmm_Renormalize: every emission and transition
// distribution divided by its (Kahan) sum, then node M's delete state
// forced back to D->E.
func (h *HMM) renormalize() {
	for k := 0; k <= h.M; k++ {
		fnorm(h.Mat[k])
		fnorm(h.Ins[k])
		fnorm(h.T[k][TMM:TIM])
		fnorm(h.T[k][TIM:TDM])
		fnorm(h.T[k][TDM:])
	}
	h.T[h.M][TDM], h.T[h.M][TDD] = 1, 0
	if h.T[h.M][TMD] > 0 {
		h.T[h.M][TMD], h.T[h.M][TMM], h.T[h.M][TMI] = 0, 0.5, 0.5
	}
}
