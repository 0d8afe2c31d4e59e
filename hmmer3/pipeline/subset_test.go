package pipeline_test

import (
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestSubsetsKeepWholeSearchHits: searching a database in parts (shards
// of SubsetSource, blocks of IndexedSlice) keeps exactly the hits a search
// of the whole database keeps, with the same database indices. The E-value
// threshold is set so that the last hit of the database is kept only when
// its provisional Z is small: a part that numbered its targets from 0
// would keep it, the whole search does not.
func TestSubsetsKeepWholeSearchHits(t *testing.T) {
	h := testmodels.ReadModel(t, testutil.Testdata(t, "globins4.hmm"))
	var seqs []*seqio.Sequence
	r, err := seqio.Open(testutil.Testdata(t, "globins45.fa"), nil, h.Alph)
	if err != nil {
		t.Fatal(err)
	}
	for {
		sq, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, sq)
	}
	search := func(cfg pipeline.Config, src pipeline.SequenceSource) []*hits.Hit {
		m, err := pipeline.NewModel(h, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		list, _, err := pipeline.Search(m, src, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	cfg := pipeline.DefaultConfig()
	cfg.CPUs = 2
	all := search(cfg, &pipeline.SliceSource{Seqs: seqs})
	last := all[len(all)-1]
	if last.SeqIdx < 30 {
		t.Fatalf("last hit at index %d; the test needs one late in the database", last.SeqIdx)
	}
	// Kept at Z = index+1 only if index+1 <= E/P.
	cfg.Thresholds.E = math.Exp(last.LnP) * float64(last.SeqIdx+1) / 2
	want := search(cfg, &pipeline.SliceSource{Seqs: seqs})
	for _, x := range want {
		if x.SeqIdx == last.SeqIdx {
			t.Fatal("the threshold does not exclude the last hit")
		}
	}

	lengths := make([]int64, len(seqs))
	for i, sq := range seqs {
		lengths[i] = int64(sq.L())
	}
	check := func(label string, got []*hits.Hit) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d hits, whole search %d", label, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.SeqIdx != w.SeqIdx || g.Name != w.Name || g.Score != w.Score || g.LnP != w.LnP || len(g.Domains) != len(w.Domains) {
				t.Fatalf("%s: hit %d is %s (#%d, %v), whole search %s (#%d, %v)", label, i, g.Name, g.SeqIdx, g.Score, w.Name, w.SeqIdx, w.Score)
			}
		}
	}
	for _, n := range []int{2, 3, 7} {
		var got []*hits.Hit
		for i := 1; i <= n; i++ {
			keep := shard.Interleaved(lengths, shard.Spec{Index: i, Count: n})
			got = append(got, search(cfg, &pipeline.SubsetSource{Src: &pipeline.SliceSource{Seqs: seqs}, Keep: keep})...)
		}
		sortBySeqIdx(got)
		check("shards", got)
	}
	// Contiguous blocks, as the work queue cuts them.
	var got []*hits.Hit
	for first := 0; first < len(seqs); first += 10 {
		end := min(first+10, len(seqs))
		src := &pipeline.IndexedSlice{Seqs: seqs[first:end]}
		for i := first; i < end; i++ {
			src.Indices = append(src.Indices, int64(i))
		}
		got = append(got, search(cfg, src)...)
	}
	check("blocks", got)
}

func sortBySeqIdx(h []*hits.Hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].SeqIdx < h[j-1].SeqIdx; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

func ExampleSubsetSource() {
	seqs := []*seqio.Sequence{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
	src := &pipeline.SubsetSource{Src: &pipeline.SliceSource{Seqs: seqs}, Keep: []int64{1, 3}}
	for {
		sq, err := src.Read()
		if err != nil {
			break
		}
		fmt.Println(sq.Name, src.DatabaseIndex())
	}
	// Output:
	// b 1
	// d 3
}
