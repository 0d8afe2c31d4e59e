// Package hitsjson reads JSON dumps of HMMER 3.3.2's search results: the
// complete P7_TOPHITS list of each query as the library's serial pipeline
// left it (every hit and domain field, alignment display strings and,
// optionally, each domain's trace), the thresholds and pipeline counters.
// The dumps were written by a throwaway C driver linked against the
// HMMER library (see docs/hmmsearch-report.md); tests use them to check
// hit sorting, thresholding, alignment displays and report formatting
// without running our own pipeline.
package hitsjson

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/seqio"
)

// File is one dump: one hmmsearch run.
type File struct {
	Argv    []string `json:"argv"`
	HMMFile string   `json:"hmmfile"`
	SeqFile string   `json:"seqfile"`
	Queries []Query  `json:"queries"`
}

// Query is one query model's results.
type Query struct {
	Name      string     `json:"name"`
	Acc       string     `json:"acc"`
	Desc      string     `json:"desc"`
	M         int        `json:"M"`
	RF        string     `json:"rf"`
	MM        string     `json:"mm"`
	CS        string     `json:"cs"`
	Consensus string     `json:"consensus"`
	Alph      string     `json:"alph"`
	Pipeline  Thresholds `json:"thresholds"`
	Hits      []Hit      `json:"hits"` // database order, as the pipeline listed them
	Final     Final      `json:"final"`
	Stats     Stats      `json:"stats"`
}

// Thresholds is the P7_PIPELINE's reporting configuration after
// p7_pli_NewModel (model cutoffs applied).
type Thresholds struct {
	ByE            int     `json:"by_E"`
	E              float64 `json:"E"`
	T              float64 `json:"T"`
	DomByE         int     `json:"dom_by_E"`
	DomE           float64 `json:"domE"`
	DomT           float64 `json:"domT"`
	IncByE         int     `json:"inc_by_E"`
	IncE           float64 `json:"incE"`
	IncT           float64 `json:"incT"`
	IncDomByE      int     `json:"incdom_by_E"`
	IncDomE        float64 `json:"incdomE"`
	IncDomT        float64 `json:"incdomT"`
	UseBitCutoffs  int     `json:"use_bit_cutoffs"`
	ZSetBy         int     `json:"Z_setby"`
	DomZSetBy      int     `json:"domZ_setby"`
	Z              float64 `json:"Z"`
	DomZ           float64 `json:"domZ"`
	ShowAccessions int     `json:"show_accessions"`
	ShowAlignments int     `json:"show_alignments"`
}

// Hit is one P7_HIT.
type Hit struct {
	Name       string   `json:"name"`
	Acc        string   `json:"acc"`
	Desc       string   `json:"desc"`
	SortKey    float64  `json:"sortkey"`
	Score      float32  `json:"score"`
	PreScore   float32  `json:"pre_score"`
	SumScore   float32  `json:"sum_score"`
	LnP        float64  `json:"lnP"`
	PreLnP     float64  `json:"pre_lnP"`
	SumLnP     float64  `json:"sum_lnP"`
	NExpected  float32  `json:"nexpected"`
	NRegions   int      `json:"nregions"`
	NClustered int      `json:"nclustered"`
	NOverlaps  int      `json:"noverlaps"`
	NEnvelopes int      `json:"nenvelopes"`
	NDom       int      `json:"ndom"`
	Flags      uint32   `json:"flags"`
	NReported  int      `json:"nreported"`
	NIncluded  int      `json:"nincluded"`
	BestDomain int      `json:"best_domain"`
	SeqIdx     int64    `json:"seqidx"`
	Domains    []Domain `json:"dcl"`
}

// Domain is one P7_DOMAIN.
type Domain struct {
	IEnv          int64      `json:"ienv"`
	JEnv          int64      `json:"jenv"`
	IAli          int64      `json:"iali"`
	JAli          int64      `json:"jali"`
	EnvSc         float32    `json:"envsc"`
	DomCorrection float32    `json:"domcorrection"`
	DomBias       float32    `json:"dombias"`
	OASc          float32    `json:"oasc"`
	BitScore      float32    `json:"bitscore"`
	LnP           float64    `json:"lnP"`
	IsReported    int        `json:"is_reported"`
	IsIncluded    int        `json:"is_included"`
	Ad            AliDisplay `json:"ad"`
	Trace         *Trace     `json:"trace"`
}

// AliDisplay is one P7_ALIDISPLAY (absent lines are null, read as "").
type AliDisplay struct {
	RFLine  string `json:"rfline"`
	MMLine  string `json:"mmline"`
	CSLine  string `json:"csline"`
	Model   string `json:"model"`
	MLine   string `json:"mline"`
	ASeq    string `json:"aseq"`
	PPLine  string `json:"ppline"`
	N       int    `json:"N"`
	HMMName string `json:"hmmname"`
	HMMAcc  string `json:"hmmacc"`
	HMMDesc string `json:"hmmdesc"`
	HMMFrom int    `json:"hmmfrom"`
	HMMTo   int    `json:"hmmto"`
	M       int    `json:"M"`
	SqName  string `json:"sqname"`
	SqAcc   string `json:"sqacc"`
	SqDesc  string `json:"sqdesc"`
	SqFrom  int64  `json:"sqfrom"`
	SqTo    int64  `json:"sqto"`
	L       int64  `json:"L"`
}

// Trace is the optimal accuracy trace the display was made from, with the
// Forward match odds p7_oprofile_FGetEmission gave for each match state's
// residue (0 elsewhere).
type Trace struct {
	St   []int     `json:"st"`
	K    []int     `json:"k"`
	I    []int     `json:"i"`
	PP   []float32 `json:"pp"`
	Odds []float32 `json:"odds"`
}

// Final is the list after p7_tophits_SortBySortkey and
// p7_tophits_Threshold: Order[r] is the database-order index of the hit
// ranked r; the other slices are in database order. DomFlags has one digit
// per domain: 1 reported, +2 included.
type Final struct {
	Order          []int    `json:"order"`
	Flags          []uint32 `json:"flags"`
	NReported      []int    `json:"nreported"`
	NIncluded      []int    `json:"nincluded"`
	DomFlags       []string `json:"dom_flags"`
	NReportedTotal int      `json:"nreported_total"`
	NIncludedTotal int      `json:"nincluded_total"`
	DomZ           float64  `json:"domZ"`
}

// Stats are the pipeline counters after the search.
type Stats struct {
	NModels   int64   `json:"nmodels"`
	NNodes    int64   `json:"nnodes"`
	NSeqs     int64   `json:"nseqs"`
	NRes      int64   `json:"nres"`
	NPastMSV  int64   `json:"n_past_msv"`
	NPastBias int64   `json:"n_past_bias"`
	NPastVit  int64   `json:"n_past_vit"`
	NPastFwd  int64   `json:"n_past_fwd"`
	F1        float64 `json:"F1"`
	F2        float64 `json:"F2"`
	F3        float64 `json:"F3"`
	Z         float64 `json:"Z"`
	DomZ      float64 `json:"domZ"`
	ZSetBy    int     `json:"Z_setby"`
	DomZSetBy int     `json:"domZ_setby"`
}

// Load reads a dump, gzip'd when the name ends in .gz.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = z
	}
	var d File
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

// HMMER's flags for the model cutoffs in use (p7H_GA, p7H_TC, p7H_NC).
const (
	cutGA = 1 << 10
	cutTC = 1 << 11
	cutNC = 1 << 12
)

// HMMER's hit flag bits (p7_IS_INCLUDED ... p7_IS_DUPLICATE).
var hmmerFlags = []struct{ c, ours uint32 }{
	{1 << 0, hits.IsIncluded}, {1 << 1, hits.IsReported}, {1 << 2, hits.IsNew},
	{1 << 3, hits.IsDropped}, {1 << 4, hits.IsDuplicate},
}

// Flags converts HMMER's P7_HIT flags to package hits' bits.
func Flags(c uint32) uint32 {
	var f uint32
	for _, b := range hmmerFlags {
		if c&b.c != 0 {
			f |= b.ours
		}
	}
	return f
}

// HitsThresholds converts the pipeline's configuration, with Z as the search
// ended. DomZ is the --domZ value when set by option, else 0 (Threshold
// sets it).
func (q *Query) HitsThresholds() hits.Thresholds {
	t := q.Pipeline
	h := hits.Thresholds{
		ByBits: t.ByE == 0, E: t.E, T: t.T,
		DomByBits: t.DomByE == 0, DomE: t.DomE, DomT: t.DomT,
		IncByBits: t.IncByE == 0, IncE: t.IncE, IncT: t.IncT,
		IncDomByBits: t.IncDomByE == 0, IncDomE: t.IncDomE, IncDomT: t.IncDomT,
		Z: q.Stats.Z, ZFromOption: q.Stats.ZSetBy == 1,
	}
	if q.Stats.DomZSetBy == 1 {
		h.DomZ, h.DomZFromOpt = q.Stats.DomZ, true
	}
	switch t.UseBitCutoffs {
	case cutGA:
		h.Cutoff = hits.CutGA
	case cutTC:
		h.Cutoff = hits.CutTC
	case cutNC:
		h.Cutoff = hits.CutNC
	}
	return h
}

// HitList converts the hits, in database order, as the pipeline left them
// (before sorting and thresholding).
func (q *Query) HitList() []*hits.Hit {
	out := make([]*hits.Hit, len(q.Hits))
	for i := range q.Hits {
		h := &q.Hits[i]
		g := &hits.Hit{
			Name: h.Name, Acc: h.Acc, Desc: h.Desc, SortKey: h.SortKey,
			Score: h.Score, PreScore: h.PreScore, SumScore: h.SumScore,
			LnP: h.LnP, PreLnP: h.PreLnP, SumLnP: h.SumLnP,
			NExpected: h.NExpected, NRegions: h.NRegions, NClustered: h.NClustered,
			NOverlaps: h.NOverlaps, NEnvelopes: h.NEnvelopes,
			Flags: Flags(h.Flags), NReported: h.NReported, NIncluded: h.NIncluded,
			BestDomain: h.BestDomain, SeqIdx: h.SeqIdx,
		}
		for j := range h.Domains {
			d := &h.Domains[j]
			ad := d.Ad.Convert()
			g.Domains = append(g.Domains, hits.Domain{
				IEnv: d.IEnv, JEnv: d.JEnv, IAli: d.IAli, JAli: d.JAli,
				EnvSc: d.EnvSc, DomCorrection: d.DomCorrection, DomBias: d.DomBias,
				OASc: d.OASc, BitScore: d.BitScore, LnP: d.LnP,
				IsReported: d.IsReported != 0, IsIncluded: d.IsIncluded != 0,
				Ad: &ad,
			})
		}
		out[i] = g
	}
	return out
}

// Convert returns the display as package hits holds it.
func (a *AliDisplay) Convert() hits.AliDisplay {
	return hits.AliDisplay{
		RFLine: a.RFLine, MMLine: a.MMLine, CSLine: a.CSLine,
		Model: a.Model, MLine: a.MLine, ASeq: a.ASeq, PPLine: a.PPLine, N: a.N,
		HMMName: a.HMMName, HMMAcc: a.HMMAcc, HMMDesc: a.HMMDesc,
		HMMFrom: a.HMMFrom, HMMTo: a.HMMTo, M: a.M,
		SqName: a.SqName, SqAcc: a.SqAcc, SqDesc: a.SqDesc,
		SqFrom: a.SqFrom, SqTo: a.SqTo, L: a.L,
	}
}

// HitsStats converts the counters.
func (q *Query) HitsStats() hits.Stats {
	s := q.Stats
	return hits.Stats{
		NModels: s.NModels, NNodes: s.NNodes, NSeqs: s.NSeqs, NRes: s.NRes,
		NPastMSV: s.NPastMSV, NPastBias: s.NPastBias, NPastVit: s.NPastVit, NPastFwd: s.NPastFwd,
		F1: s.F1, F2: s.F2, F3: s.F3,
	}
}

// Alphabet is the query's alphabet.
func (q *Query) Alphabet() (*alphabet.Alphabet, error) {
	t, ok := alphabet.ParseType(q.Alph)
	if !ok {
		return nil, fmt.Errorf("unknown alphabet %q", q.Alph)
	}
	return alphabet.New(t), nil
}

// DisplayInputs rebuilds what p7_alidisplay_Create saw for domain d:
// its trace, the model's display fields with a MatchOdds that answers
// from the recorded odds, and a target sequence with the aligned
// residues in place (other positions hold the "any" residue, which the
// display never reads). ok is false when the dump has no trace.
func (q *Query) DisplayInputs(d *Domain) (tr *hits.Trace, m *hits.DisplayModel, sq *seqio.Sequence, ok bool, err error) {
	if d.Trace == nil {
		return nil, nil, nil, false, nil
	}
	abc, err := q.Alphabet()
	if err != nil {
		return nil, nil, nil, false, err
	}
	rt := d.Trace
	tr = &hits.Trace{K: rt.K, I: rt.I, PP: rt.PP, M: q.M, L: int(d.Ad.L)}
	for _, s := range rt.St {
		tr.St = append(tr.St, hits.State(s))
	}
	dsq := make([]byte, d.Ad.L)
	for i := range dsq {
		dsq[i] = abc.Unknown()
	}
	type key struct {
		k int
		x byte
	}
	odds := map[key]float32{}
	// Walk the display's columns alongside the trace positions they came
	// from to put each aligned residue back at its sequence position.
	z1 := -1
	for z := range rt.St {
		if hits.State(rt.St[z]) == hits.StM && int64(rt.I[z]) == d.Ad.SqFrom && rt.K[z] == d.Ad.HMMFrom {
			z1 = z
			break
		}
	}
	if z1 < 0 {
		return nil, nil, nil, false, fmt.Errorf("trace does not match display %s/%d-%d", d.Ad.SqName, d.Ad.SqFrom, d.Ad.SqTo)
	}
	for c := 0; c < d.Ad.N; c++ {
		z := z1 + c
		if r := d.Ad.ASeq[c]; r != '-' {
			x := abc.Inmap[r]
			dsq[rt.I[z]-1] = x
			if hits.State(rt.St[z]) == hits.StM {
				odds[key{rt.K[z], x}] = rt.Odds[z]
			}
		}
	}
	m = &hits.DisplayModel{
		Name: q.Name, Acc: q.Acc, Desc: q.Desc, M: q.M,
		RF: q.RF, MM: q.MM, CS: q.CS, Consensus: q.Consensus, Abc: abc,
		MatchOdds: func(k int, x byte) float32 { return odds[key{k, x}] },
	}
	sq = &seqio.Sequence{Name: d.Ad.SqName, Acc: d.Ad.SqAcc, Desc: d.Ad.SqDesc, Dsq: dsq}
	return tr, m, sq, true, nil
}
