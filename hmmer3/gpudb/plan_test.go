package gpudb

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/lenorder"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// lognormalEntries is n whole-target entries of protein-like lengths.
func lognormalEntries(n int) []entry {
	rng := rand.New(rand.NewSource(1))
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{i, 0, testmodels.ProteinLength(rng)}
	}
	return es
}

// BenchmarkPlanLayout plans one layout of a 485,000-target database (the
// 175M-residue benchmark's size): a run plans one per kernel shape.
func BenchmarkPlanLayout(b *testing.B) {
	es := lognormalEntries(485000)
	for b.Loop() {
		planLayout(es, 4)
	}
}

// BenchmarkLayoutPlanning plans the whole-database layout of one device
// holding the 485,000 targets longest first (hmmsearch --gpu on one
// GPU), per shape: at run time (planFor without a stored plan) and from
// makedb's stored table (checked against the targets). The targets share
// one buffer: planning reads only their lengths.
func BenchmarkLayoutPlanning(b *testing.B) {
	es := longestFirst(lognormalEntries(485000))
	buf := make([]byte, es[0].n)
	dsqs := make([][]byte, len(es))
	for k, e := range es {
		dsqs[k] = buf[:e.n]
	}
	sp := &StoredPlan{Order: make([]int, len(dsqs)), tables: map[int][]byte{}}
	for _, T := range []int{1, 4, 8} {
		var tb bytes.Buffer
		WriteBlockTable(&tb, len(dsqs), func(k int) int { return len(dsqs[k]) }, T)
		sp.tables[T] = tb.Bytes()
	}
	planned, stored := New(nil, dsqs), New(nil, dsqs)
	stored.UseStoredPlan(sp)
	for _, T := range []int{1, 4, 8} {
		for _, c := range []struct {
			name string
			db   *DB
		}{{"planned", planned}, {"stored", stored}} {
			b.Run(fmt.Sprintf("T=%d/%s", T, c.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := c.db.planFor(layoutKey{T: T}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDatabaseOrder is the sort hmmsearch --gpu makes once per run
// to split the database across devices, which the stored order saves.
func BenchmarkDatabaseOrder(b *testing.B) {
	es := lognormalEntries(485000)
	for b.Loop() {
		lenorder.LongestFirst(len(es), func(i int) int { return es[i].n })
	}
}

// TestSpan: a span counts what it adds.
func TestSpan(t *testing.T) {
	var s Span
	s.add(2 * time.Millisecond)
	s.add(3 * time.Millisecond)
	s.since(time.Now().Add(-time.Second))
	n, d := s.Total()
	if n != 3 || d < time.Second+5*time.Millisecond || d > 2*time.Second {
		t.Errorf("3 durations: got %d, %v", n, d)
	}
}
