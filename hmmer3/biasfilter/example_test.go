package biasfilter_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/hmmer3/biasfilter"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Bias filter scores of targets on the first GPU; each equals what
// FilterScore returns on the CPU with the background set to the target's
// length. Without a GPU the example prints nothing.
func ExampleGPU_Scores() {
	if cuda.Load() != nil {
		return // no driver: use profile.(*Background).FilterScore
	}
	devs, err := cuda.Devices()
	if err != nil || len(devs) == 0 {
		return
	}
	ctx, err := devs[0].Context()
	if err != nil {
		return
	}
	r, err := hmm.OpenFile("../../testdata/hmmer3/models/fn3.hmm.gz", nil)
	if err != nil {
		return
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		return
	}
	bg := profile.NewBackground(h.Alph)
	bg.SetFilter(h.M, h.Compo)
	abc := alphabet.New(alphabet.Amino)
	var dsqs [][]byte
	for _, s := range []string{"PSAPRNLTVTDVTSTSLTLSWEPPE", "QQQQQQQQQQQQQQQQQQQQQQQQQQQQ"} {
		d := make([]byte, len(s))
		for i := range d {
			d[i] = abc.Inmap[s[i]]
		}
		dsqs = append(dsqs, d)
	}
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	out := make([]float32, len(dsqs))
	if err := biasfilter.NewGPU(ctx).Scores(bg, db, nil, out); err != nil {
		fmt.Println(err)
		return
	}
	for i, d := range dsqs {
		bg.SetLength(len(d))
		fmt.Printf("target %d: %.4f nats, same as the CPU: %v\n", i, out[i], out[i] == bg.FilterScore(d))
	}
}
