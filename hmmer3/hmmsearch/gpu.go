package hmmsearch

import (
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/msvfilter"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/seqio"
)

// normalizeGPUArgs turns "--gpu LIST" into "--gpu=LIST" and a bare
// "--gpu" into "--gpu=yes", since Easel's option rules give an option
// either always or never a value.
func normalizeGPUArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--gpu" && i+1 < len(args) && len(devices.NormalizeArgs(args[i:i+2])) == 1:
			out = append(out, "--gpu="+args[i+1])
			i++
		case a == "--gpu":
			out = append(out, "--gpu=yes")
		default:
			out = append(out, a)
		}
	}
	return out
}

// gpuRequest reads --gpu/--nogpu.
func (s *search) gpuRequest() (devices.Request, error) {
	if s.g.isOn("--nogpu") {
		return devices.Request{Mode: devices.Never}, nil
	}
	if !s.g.isOn("--gpu") {
		return devices.Request{Mode: devices.Auto}, nil
	}
	v := s.g.str("--gpu")
	if v == "yes" {
		v = ""
	}
	return devices.ParseGPU(v)
}

// gpuSearch runs the MSV filter of every query on GPUs: the database is
// read once, split across the devices in a length-balanced way and kept
// resident; every query of the run reuses it.
type gpuSearch struct {
	devs  []*cuda.Device
	seqs  []*seqio.Sequence
	abc   *alphabet.Alphabet
	parts []*gpuPart
}

type gpuPart struct {
	filter *msvfilter.GPU
	db     *gpudb.DB
	index  []int // database number of each of this device's targets
}

// load reads the whole database (in the query's alphabet) and uploads it.
func (g *gpuSearch) load(src pipeline.SequenceSource, abc *alphabet.Alphabet) error {
	for {
		sq, err := src.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		g.seqs = append(g.seqs, sq)
	}
	g.abc = abc
	n := len(g.devs)
	order := make([]int, len(g.seqs))
	for i := range order {
		order[i] = i
	}
	// Deal targets out round-robin in length order, so every device gets
	// the same mix of lengths (ClawHMMER's interleaved partitions).
	sortByLength(order, g.seqs)
	g.parts = make([]*gpuPart, n)
	for d, dev := range g.devs {
		ctx, err := dev.Context()
		if err != nil {
			return err
		}
		p := &gpuPart{filter: msvfilter.NewGPU(ctx)}
		var dsqs [][]byte
		for r := d; r < len(order); r += n {
			p.index = append(p.index, order[r])
			dsqs = append(dsqs, g.seqs[order[r]].Dsq)
		}
		p.db = gpudb.New(ctx, dsqs)
		g.parts[d] = p
	}
	return nil
}

// msvScores returns every target's MSV filter score, database order.
func (g *gpuSearch) msvScores(om *oprofile.MSVProfile) ([]float32, error) {
	scores := make([]float32, len(g.seqs))
	errs := make([]error, len(g.parts))
	var wg sync.WaitGroup
	for d, p := range g.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]float32, len(p.index))
			if err := p.filter.Scores(om, g.abc.Kp, p.db, out); err != nil {
				errs[d] = fmt.Errorf("GPU %d: %w", g.devs[d].Ordinal, err)
				return
			}
			for i, db := range p.index {
				scores[db] = out[i]
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return scores, nil
}

func (g *gpuSearch) free() {
	for _, p := range g.parts {
		if p != nil {
			p.db.Free()
		}
	}
}

func sortByLength(order []int, seqs []*seqio.Sequence) {
	sort.SliceStable(order, func(a, b int) bool { return seqs[order[a]].L() > seqs[order[b]].L() })
}
