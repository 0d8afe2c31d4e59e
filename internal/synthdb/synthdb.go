// Package synthdb writes deterministic synthetic protein databases in
// FASTA: background sequences with Swiss-Prot's amino-acid composition
// and a lognormal length distribution, optionally with homologs sampled
// from profile HMMs (as hmmemit samples them) planted inside random
// flanks. A database is defined by its parameters and seed alone: the
// same bytes for any number of threads, on any machine.
package synthdb

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

// Defaults: Swiss-Prot's mean length is about 360 residues; sigma 0.70
// of log length puts the median near 280, as in Swiss-Prot, and matches
// the spread of log lengths of real proteomes (0.65 to 0.9).
const (
	DefaultMeanLength = 360
	DefaultSigma      = 0.70
	DefaultMinLength  = 10
	DefaultMaxLength  = 36000 // just above titin, the longest protein in Swiss-Prot
	DefaultWidth      = 60    // residues per line, as Easel writes FASTA
	minFlank          = 20    // planted homologs always have at least this much flank in all
)

// Params describes one database.
type Params struct {
	Residues   int64   // total residues, planted homologs and flanks included
	Seed       uint64  // every random choice follows from it
	MeanLength float64 // mean of the lognormal length distribution
	Sigma      float64 // standard deviation of log length
	MinLength  int     // lengths are clamped to [MinLength, MaxLength]
	MaxLength  int
	Width      int // residues per line; 0 writes each sequence on one line

	Models   []*hmm.HMM // models to plant homologs of (protein models)
	PerModel int        // homologs per model
	Mode     PlantMode

	Threads int // 0: all CPUs; the output does not depend on it
	// Progress, when set, is called after every block written with the
	// bytes written so far.
	Progress func(done int64)
}

// DefaultParams returns the documented defaults for n residues.
func DefaultParams(n int64, seed uint64) Params {
	return Params{
		Residues: n, Seed: seed, MeanLength: DefaultMeanLength, Sigma: DefaultSigma,
		MinLength: DefaultMinLength, MaxLength: DefaultMaxLength, Width: DefaultWidth,
	}
}

// Summary counts what was written.
type Summary struct {
	Sequences  int64 // all sequences
	Planted    int64 // planted homologs among them
	Residues   int64 // all residues (= Params.Residues)
	PlantedRes int64 // residues of planted sequences, flanks included
	Bytes      int64 // FASTA bytes written
}

// planted is one homolog, made in full before the database streams out.
type planted struct {
	name, desc string
	seq        []byte
	at         int64 // background residues written before it
}

// spec is one sequence of the output: a background sequence (plant nil)
// or a planted one.
type spec struct {
	index  int64 // background number, 0-based
	length int
	plant  *planted
}

type job struct {
	specs []spec
	res   int64
	buf   []byte
	done  chan struct{}
}

// jobResidues is the residues rendered per job: large enough that
// hand-offs cost nothing, small enough that memory stays a few MB.
const jobResidues = 1 << 20

// Write generates the database described by p on w.
func Write(w io.Writer, p Params) (Summary, error) {
	var sum Summary
	if err := p.check(); err != nil {
		return sum, err
	}
	table, err := residueTable(SwissProt[:], aminoSymbols)
	if err != nil {
		return sum, err
	}
	g := &generator{p: p, table: table}
	g.mu = easel.Log(p.MeanLength) - float64(p.Sigma*p.Sigma)/2
	plants, err := g.plant()
	if err != nil {
		return sum, err
	}
	var plantedRes int64
	for _, pl := range plants {
		plantedRes += int64(len(pl.seq))
	}
	if plantedRes > p.Residues {
		return sum, fmt.Errorf("-n %d is smaller than the %d residues of the planted homologs and their flanks", p.Residues, plantedRes)
	}
	background := p.Residues - plantedRes
	g.place(plants, background)
	sum.Planted, sum.PlantedRes, sum.Residues = int64(len(plants)), plantedRes, p.Residues

	threads := p.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// Written buffers go back to the planner for reuse: a steady state
	// of a few MB and no garbage to collect.
	free := make(chan []byte, 3*threads+1)
	g.free = free
	work := make(chan *job, threads)
	ordered := make(chan *job, 2*threads)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				g.render(j)
				close(j.done)
			}
		}()
	}
	// The planner decides every sequence in order; workers render jobs
	// in parallel; this goroutine writes them in order.
	go func() {
		defer close(ordered)
		defer close(work)
		g.planSequences(plants, background, func(j *job) bool {
			j.done = make(chan struct{})
			select {
			case <-stop:
				return false
			default:
			}
			select {
			case ordered <- j:
			case <-stop:
				return false
			}
			work <- j
			return true
		})
	}()
	var werr error
	for j := range ordered {
		<-j.done
		if werr == nil {
			n, err := w.Write(j.buf)
			sum.Bytes += int64(n)
			if err != nil {
				werr = err
				close(stop)
			}
			sum.Sequences += int64(len(j.specs))
			if p.Progress != nil {
				p.Progress(sum.Bytes)
			}
		}
		select {
		case free <- j.buf:
		default:
		}
	}
	wg.Wait()
	return sum, werr
}

func (p *Params) check() error {
	switch {
	case p.Residues < 1:
		return errors.New("the database needs at least one residue (-n)")
	case !(p.MeanLength >= 1) || math.IsInf(p.MeanLength, 0):
		return fmt.Errorf("mean length %g must be at least 1", p.MeanLength)
	case !(p.Sigma >= 0) || p.Sigma > 5:
		return fmt.Errorf("sigma %g must be in [0, 5]", p.Sigma)
	case p.MinLength < 1 || p.MaxLength < p.MinLength:
		return fmt.Errorf("length bounds [%d, %d] are not a range of positive lengths", p.MinLength, p.MaxLength)
	case p.Width < 0:
		return fmt.Errorf("line width %d must be 0 (unwrapped) or positive", p.Width)
	case p.PerModel < 0:
		return fmt.Errorf("homologs per model %d must not be negative", p.PerModel)
	}
	return nil
}

type generator struct {
	p     Params
	free  chan []byte // written buffers, for reuse
	table *[1 << 16]byte
	mu    float64
}

// length draws one sequence length from the lognormal distribution.
func (g *generator) length(r *rng) int {
	// The explicit conversion keeps the product from fusing into an FMA
	// on machines that have one, so lengths are the same everywhere.
	x := easel.Exp(float64(g.p.Sigma*r.normal()) + g.mu)
	l := int(math.Min(math.Round(x), float64(g.p.MaxLength)))
	return max(l, g.p.MinLength)
}

// plant samples every homolog with its flanks.
func (g *generator) plant() ([]*planted, error) {
	if g.p.PerModel == 0 || len(g.p.Models) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []*planted
	for _, h := range g.p.Models {
		if seen[h.Name] {
			return nil, fmt.Errorf("two models are named %s; planted homologs would share names", h.Name)
		}
		seen[h.Name] = true
		e, err := newEmitter(h, g.p.Mode)
		if err != nil {
			return nil, err
		}
		for s := 0; s < g.p.PerModel; s++ {
			n := len(out)
			r := newRNG(g.p.Seed, streamPlant, uint64(n))
			em := e.emit(r)
			flank := max(g.length(r)-len(em.seq), minFlank)
			left := r.intn(flank + 1)
			seq := make([]byte, flank+len(em.seq))
			r.fill(seq[:left], g.table)
			copy(seq[left:], em.seq)
			r.fill(seq[left+len(em.seq):], g.table)
			desc := fmt.Sprintf("synthdb %s sample of %s", g.p.Mode, h.Name)
			if h.Acc != "" {
				desc += " (" + h.Acc + ")"
			}
			if em.kFirst > 0 {
				desc += fmt.Sprintf(": model %d..%d", em.kFirst, em.kLast)
			} else {
				desc += ": no match state"
			}
			if len(em.seq) > 0 {
				desc += fmt.Sprintf(" at residues %d..%d of %d", left+1, left+len(em.seq), len(seq))
			}
			out = append(out, &planted{
				name: fmt.Sprintf("%s-sample%d", h.Name, s+1), desc: desc, seq: seq,
			})
		}
	}
	return out, nil
}

// place draws each homolog's position in the background (a residue
// offset in [0, background]) and sorts them by it.
func (g *generator) place(plants []*planted, background int64) {
	r := newRNG(g.p.Seed, streamPlaces, 0)
	for _, pl := range plants {
		hi, _ := bits.Mul64(r.next(), uint64(background)+1)
		pl.at = int64(hi)
	}
	sort.SliceStable(plants, func(a, b int) bool { return plants[a].at < plants[b].at })
}

// planSequences decides every sequence in database order and hands them
// out in jobs. A homolog placed at offset o comes just before the first
// background sequence that starts at or after o. The last background
// sequence is cut so that the total is exactly Params.Residues.
func (g *generator) planSequences(plants []*planted, background int64, send func(*job) bool) {
	lengths := newRNG(g.p.Seed, streamLengths, 0)
	j := &job{}
	flush := func(force bool) bool {
		if len(j.specs) == 0 || (!force && j.res < jobResidues) {
			return true
		}
		ok := send(j)
		j = &job{}
		select {
		case j.buf = <-g.free:
		default:
		}
		return ok
	}
	add := func(s spec) bool {
		j.specs = append(j.specs, s)
		j.res += int64(s.length)
		return flush(false)
	}
	var at int64
	next := 0
	for idx := int64(0); at < background; idx++ {
		for ; next < len(plants) && plants[next].at <= at; next++ {
			if !add(spec{plant: plants[next], length: len(plants[next].seq)}) {
				return
			}
		}
		l := int64(g.length(lengths))
		l = min(l, background-at)
		if !add(spec{index: idx, length: int(l)}) {
			return
		}
		at += l
	}
	for ; next < len(plants); next++ {
		if !add(spec{plant: plants[next], length: len(plants[next].seq)}) {
			return
		}
	}
	flush(true)
}

// render writes a job's FASTA text into j.buf.
func (g *generator) render(j *job) {
	width := g.p.Width
	size := j.res + int64(len(j.specs))*32
	if width > 0 {
		size += j.res/int64(width) + int64(len(j.specs))
	}
	buf := j.buf[:0]
	if int64(cap(buf)) < size {
		buf = make([]byte, 0, size)
	}
	var scratch []byte
	for _, s := range j.specs {
		var res []byte
		if s.plant != nil {
			buf = append(buf, '>')
			buf = append(buf, s.plant.name...)
			buf = append(buf, ' ')
			buf = append(buf, s.plant.desc...)
			buf = append(buf, '\n')
			res = s.plant.seq
		} else {
			buf = appendName(buf, s.index+1)
			if cap(scratch) < s.length {
				scratch = make([]byte, s.length+s.length/2)
			}
			res = scratch[:s.length]
			newRNG(g.p.Seed, streamResidues, uint64(s.index)).fill(res, g.table)
		}
		buf = appendWrapped(buf, res, width)
	}
	j.buf = buf
}

// appendName writes the header of background sequence n: ">syn" and n
// in at least nine digits.
func appendName(buf []byte, n int64) []byte {
	buf = append(buf, ">syn"...)
	var d [20]byte
	s := strconv.AppendInt(d[:0], n, 10)
	for i := len(s); i < 9; i++ {
		buf = append(buf, '0')
	}
	buf = append(buf, s...)
	return append(buf, '\n')
}

func appendWrapped(buf, res []byte, width int) []byte {
	if width == 0 {
		buf = append(buf, res...)
		return append(buf, '\n')
	}
	for len(res) > width {
		buf = append(buf, res[:width]...)
		buf = append(buf, '\n')
		res = res[width:]
	}
	if len(res) > 0 {
		buf = append(buf, res...)
		buf = append(buf, '\n')
	}
	return buf
}
