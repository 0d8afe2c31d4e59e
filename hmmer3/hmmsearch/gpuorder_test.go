package hmmsearch

import (
	"reflect"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestOwnOrderMatchesDatabaseOrder: a query on a device that holds every
// target runs in the device's order (longest first) and gives the hits,
// in database order, and counters of the search in database order; also
// for a shard of a database, whose indices the search composes with the
// device's order. The parts have no devices: their calls compute on the
// cores, in the device's order, as the kernels would.
func TestOwnOrderMatchesDatabaseOrder(t *testing.T) {
	names := []string{"fn3", "globins4", "Pkinase"}
	models, cfg, all := testQueries(t, names...)
	// A shard: every target but each third, numbered in the whole database.
	var shard []*seqio.Sequence
	var keep []int64
	for i, sq := range all {
		if i%3 != 1 {
			shard, keep = append(shard, sq), append(keep, int64(i))
		}
	}
	for _, c := range []struct {
		what    string
		seqs    []*seqio.Sequence
		indices []int64
	}{{"database", all, nil}, {"shard", shard, keep}} {
		var src func() pipeline.SequenceSource
		if c.indices == nil {
			src = func() pipeline.SequenceSource { return &pipeline.SliceSource{Seqs: c.seqs} }
		} else {
			src = func() pipeline.SequenceSource { return &pipeline.IndexedSlice{Seqs: c.seqs, Indices: c.indices} }
		}
		for _, setup := range []struct {
			parts int
			deal  bool
			own   bool
		}{{1, false, true}, {2, true, true}, {2, false, false}} {
			g := devicelessSearch(c.seqs, setup.parts, setup.deal, nil)
			if p := g.parts[0]; slices.IsSorted(p.index) {
				t.Fatalf("%s: the device's order is the database's: the test would compare nothing", c.what)
			}
			acc, done := g.forQuery(0)
			done()
			if own := acc.(gpuOn).own; own != setup.own {
				t.Fatalf("%s, %d parts, dealt %v: own order %v, want %v", c.what, setup.parts, setup.deal, own, setup.own)
			}
			for q, m := range models {
				wantList, wantStats, err := pipeline.Search(m, src(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if len(wantList) < 2 {
					t.Fatalf("%s finds %d targets: the test needs two to order", names[q], len(wantList))
				}
				list, st, err := g.searchQuery(m, c.indices, cfg, 0, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(list, wantList) || !reflect.DeepEqual(st, wantStats) {
					t.Errorf("%s, %d parts, dealt %v: %s: hits or counters differ from the search in database order", c.what, setup.parts, setup.deal, names[q])
				}
			}
		}
	}
}
