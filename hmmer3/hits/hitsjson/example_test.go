package hitsjson_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hits/hitsjson"
)

// Load a recorded hmmsearch run and rank its hits as HMMER did.
func ExampleLoad() {
	d, err := hitsjson.Load("../../../testdata/hmmer3/report/fn3_7less/dump.json.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	q := &d.Queries[0]
	th := &hits.TopHits{Hits: q.HitList()}
	thr := q.HitsThresholds()
	th.Sort()
	th.Threshold(&thr)
	h := th.Hits[0]
	fmt.Printf("%s vs %s: %.1f bits, %d of %d domains reported\n", q.Name, h.Name, h.Score, h.NReported, len(h.Domains))
	// Output:
	// fn3 vs 7LESS_DROME: 178.0 bits, 9 of 9 domains reported
}
