package search

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hmmgo/hmmgo/hmmer2/sqio"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
)

// shardCommand names hmm2search's shard files for hmmgo merge.
const shardCommand = "hmm2search"

// shardPlan is what a --shard run learns from reading the whole
// database once before it searches.
type shardPlan struct {
	keep     []int64 // this shard's sequences, by database index
	count    int64   // sequences in the database
	residues int64
	nonEmpty int64 // sequences with residues: each puts a score in the histogram
}

// planShard reads every sequence's length and deals the sequences out
// with shard.Interleaved (longest first, round-robin), so that every
// shard gets the same mix of lengths and the shards finish together.
func planShard(o *Options, format sqio.Format, stdin io.Reader) (*shardPlan, error) {
	rd, err := sqio.Open(o.SeqFile, format, stdin, "BLASTDB")
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	plan := &shardPlan{}
	var lengths []int64
	var s sqio.Sequence
	for {
		err := rd.Next(&s)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		L := int64(len(s.Seq))
		lengths = append(lengths, L)
		plan.residues += L
		if L > 0 {
			plan.nonEmpty++
		}
	}
	plan.count = int64(len(lengths))
	plan.keep = shard.Interleaved(lengths, *o.Shard)
	return plan, nil
}

// canonicalArgs is the command line that decides a run's report, in a
// canonical form: the options that change results or name the output,
// in the order of hmm2search's table, then "--" and the two files. It
// leaves out --shard and --shard-out, and options that only choose
// where or how fast the work runs (--cpu n > 0, --batch, --gpu,
// --nogpu): shards run on different machines still merge.
func canonicalArgs(o *Options) []string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var a []string
	if o.Alimit != math.MaxInt32 {
		a = append(a, "-A", strconv.Itoa(o.Alimit))
	}
	if o.GlobE != 10.0 {
		a = append(a, "-E", num(o.GlobE))
	}
	if o.GlobT != -math.MaxFloat32 {
		a = append(a, "-T", num(float64(o.GlobT)))
	}
	if o.Z != 0 {
		a = append(a, "-Z", strconv.Itoa(o.Z))
	}
	if o.Output != "" {
		a = append(a, "-o", o.Output)
	}
	if o.Compat {
		a = append(a, "--compat")
	}
	if o.cpuSet && o.CPU == 0 {
		a = append(a, "--cpu=0") // HMMER2's serial mode counts sequences differently
	}
	switch o.Autocut {
	case cutGA:
		a = append(a, "--cut_ga")
	case cutNC:
		a = append(a, "--cut_nc")
	case cutTC:
		a = append(a, "--cut_tc")
	}
	if o.DomE != math.MaxFloat32 {
		a = append(a, "--domE="+num(o.DomE))
	}
	if o.DomT != -math.MaxFloat32 {
		a = append(a, "--domT="+num(float64(o.DomT)))
	}
	if o.Forward {
		a = append(a, "--forward")
	}
	if o.Informat != "" {
		a = append(a, "--informat="+o.Informat)
	}
	if !o.Null2 {
		a = append(a, "--null2")
	}
	return append(a, "--", o.HMMFile, o.SeqFile)
}

// shardPayload is the body of an hmm2search shard file: everything the
// report needs, at full precision (gob keeps floats bit for bit).
type shardPayload struct {
	Model shardModel
	// Thresholds after the model's Pfam cutoffs were applied.
	GlobE, DomE float64
	GlobT, DomT float32
	Z           int

	NSeq     int   // sequences hmm2search counts in the whole database (its Z)
	DBCount  int64 // sequences in the whole database
	NonEmpty int64 // of them with residues
	Searched int64 // sequences of this shard

	Hist    []histBin // this shard's scores
	Global  []shardHit
	Domains []shardHit
}

// shardModel is what the report prints or uses of the model.
type shardModel struct {
	Name, Acc, Desc          string
	HasAcc, HasDesc, HasStat bool
	Mu, Lambda               float32
	M                        int
}

type histBin struct{ Score, N int }

// shardHit is a hit with the database index of its sequence: the merge
// registers all shards' hits in database order, as one run registers
// them, so that the stable sort breaks ties the same way.
type shardHit struct {
	Idx                          int64
	Sortkey                      float64
	Score, Mothersc              float32
	Pvalue, Motherp              float64
	Name, Acc, Desc              string
	HasAcc, HasDesc              bool
	Sqfrom, Sqto, Sqlen          int
	Hmmfrom, Hmmto, Domidx, Ndom int
	Ali                          *shardAli
	AliHasRF, AliHasCS, HasAli   bool
}

type shardAli struct {
	RF, CS, Model, Mline, Seq []byte
	Query, Target             string
	Sqfrom, Sqto              int
}

// noteHit remembers the database index of a registered hit (shard runs).
func (e *engine) noteHit(h *hit, idx int64) {
	if e.hitIdx != nil {
		e.hitIdx[h] = idx
	}
}

func (e *engine) wireHits(t *tophits) []shardHit {
	out := make([]shardHit, len(t.hits))
	for i, h := range t.hits {
		w := shardHit{
			Idx: e.hitIdx[h], Sortkey: h.sortkey, Score: h.score, Mothersc: h.mothersc,
			Pvalue: h.pvalue, Motherp: h.motherp,
			Name: h.name, Acc: h.acc, Desc: h.desc, HasAcc: h.hasAcc, HasDesc: h.hasDesc,
			Sqfrom: h.sqfrom, Sqto: h.sqto, Sqlen: h.sqlen,
			Hmmfrom: h.hmmfrom, Hmmto: h.hmmto, Domidx: h.domidx, Ndom: h.ndom,
		}
		if a := h.ali; a != nil {
			w.HasAli, w.AliHasRF, w.AliHasCS = true, a.rf != nil, a.cs != nil
			w.Ali = &shardAli{RF: a.rf, CS: a.cs, Model: a.model, Mline: a.mline, Seq: a.seq,
				Query: a.query, Target: a.target, Sqfrom: a.sqfrom, Sqto: a.sqto}
		}
		out[i] = w
	}
	return out
}

// hit turns a shard's hit back into a report's hit.
func (w *shardHit) hit() *hit {
	h := &hit{
		sortkey: w.Sortkey, score: w.Score, mothersc: w.Mothersc, pvalue: w.Pvalue, motherp: w.Motherp,
		name: w.Name, acc: w.Acc, desc: w.Desc, hasAcc: w.HasAcc, hasDesc: w.HasDesc,
		sqfrom: w.Sqfrom, sqto: w.Sqto, sqlen: w.Sqlen,
		hmmfrom: w.Hmmfrom, hmmto: w.Hmmto, domidx: w.Domidx, ndom: w.Ndom,
	}
	if w.HasAli && w.Ali != nil {
		a := w.Ali
		h.ali = &fancyAli{model: nonNil(a.Model), mline: nonNil(a.Mline), seq: nonNil(a.Seq),
			query: a.Query, target: a.Target, sqfrom: a.Sqfrom, sqto: a.Sqto}
		if w.AliHasRF {
			h.ali.rf = nonNil(a.RF)
		}
		if w.AliHasCS {
			h.ali.cs = nonNil(a.CS)
		}
	}
	return h
}

// nonNil undoes gob's decoding of an empty slice as nil.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// writeShard saves a shard's results in its --shard-out file.
func writeShard(env cli.Env, o *Options, e *engine, th thresholds, plan *shardPlan, hmmSum string) error {
	h := e.h
	p := &shardPayload{
		Model: shardModel{Name: h.Name, Acc: h.Acc, Desc: h.Desc, HasAcc: h.HasAcc, HasDesc: h.HasDesc,
			HasStat: h.HasStats, Mu: h.Mu, Lambda: h.Lambda, M: h.M},
		GlobE: th.globE, GlobT: th.globT, DomE: th.domE, DomT: th.domT, Z: th.Z,
		NSeq: e.nseq, DBCount: plan.count, NonEmpty: plan.nonEmpty, Searched: int64(len(plan.keep)),
		Global: e.wireHits(&e.ghit), Domains: e.wireHits(&e.dhit),
	}
	for i, n := range e.hist.bins {
		if n > 0 {
			p.Hist = append(p.Hist, histBin{Score: e.hist.min + i, N: n})
		}
	}
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(p); err != nil {
		return err
	}
	hdr := shard.Header{Command: shardCommand, Shard: o.Shard.Index, Of: o.Shard.Count, Args: canonicalArgs(o),
		Inputs: []string{
			fmt.Sprintf("%s: %d sequences, %d residues", o.SeqFile, plan.count, plan.residues),
			fmt.Sprintf("%s: model %s, SHA-256 %s", o.HMMFile, h.Name, hmmSum),
		}}
	out, err := cli.CreateOutput(o.ShardOut, env.Stdout)
	if err != nil {
		return err
	}
	if err := shard.Encode(out, hdr, body.Bytes()); err != nil {
		out.Abort()
		return fmt.Errorf("writing %s: %w", o.ShardOut, err)
	}
	return out.Commit()
}

// fileSHA256 fingerprints the model file, so that shards of a changed
// model (a new calibration, say) are never merged.
func fileSHA256(path string) (string, error) {
	f, err := openHMM(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return "", fmt.Errorf("reading %s: %v", path, err)
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}
