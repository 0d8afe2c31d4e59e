package search

import (
	"fmt"
	"io"
	"sort"
)

// Sizes of HMMER2's structures on a 64-bit build; TophitsReport()
// prints memory use computed from them, so they are part of the output.
const (
	hitStructBytes      = 104 // struct hit_s
	tophitStructBytes   = 32  // struct tophit_s
	fancyAliStructBytes = 72  // struct fancyali_s
	hitLump             = 200 // AllocTophits(200)
)

// hit is one entry of a hit list (hit_s).
type hit struct {
	sortkey    float64
	score      float32
	pvalue     float64
	mothersc   float32
	motherp    float64
	name       string
	acc, desc  string
	hasAcc     bool
	hasDesc    bool
	sqfrom     int
	sqto       int
	sqlen      int
	hmmfrom    int
	hmmto      int
	domidx     int
	ndom       int
	ali        *fancyAli
	registered int // order of registration, for the stable sort
}

// tophits is a hit list (tophit_s), sorted once at the end.
type tophits struct {
	hits []*hit
}

func (t *tophits) register(h *hit) {
	h.registered = len(t.hits)
	t.hits = append(t.hits, h)
}

// sort orders hits by decreasing sort key. HMMER2 uses qsort(), which
// in glibc is a stable merge sort for lists this size, so equal keys
// keep their registration order.
func (t *tophits) sort() {
	sort.SliceStable(t.hits, func(i, j int) bool { return t.hits[i].sortkey > t.hits[j].sortkey })
}

// maxName is TophitsMaxName(): the longest name in the list.
func (t *tophits) maxName() int {
	m := 0
	for _, h := range t.hits {
		if len(h.name) > m {
			m = len(h.name)
		}
	}
	return m
}

// report prints TophitsReport(): list size, hits under the E cutoff
// (computed with the number of sequences searched, not Z) and HMMER2's
// estimate of the list's memory use.
func (t *tophits) report(w io.Writer, E float64, nseq int) {
	alloc := hitLump
	for alloc < len(t.hits) {
		alloc += hitLump
	}
	mem := hitStructBytes*alloc + tophitStructBytes
	for _, h := range t.hits {
		mem += len(h.name) + 1
		if h.hasAcc {
			mem += len(h.acc) + 1
		}
		if h.hasDesc {
			mem += len(h.desc) + 1
		}
		if h.ali != nil {
			mem += h.ali.memBytes()
		}
	}
	n := 0
	for _, h := range t.hits {
		if h.pvalue*float64(nseq) >= E {
			break
		}
		n++
	}
	fmt.Fprintf(w, "tophits_s report:\n")
	fmt.Fprintf(w, "     Total hits:           %d\n", len(t.hits))
	fmt.Fprintf(w, "     Satisfying E cutoff:  %d\n", n)
	fmt.Fprintf(w, "     Total memory:         %dK\n", mem/1000)
}
