package gpu_test

import (
	"fmt"
	"os"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/papara/alignio"
	"github.com/hmmgo/hmmgo/papara/core"
	"github.com/hmmgo/hmmgo/papara/gpu"
	"github.com/hmmgo/hmmgo/papara/newick"
)

// A hybrid run: the GPU scorer takes blocks of the same queue as two CPU
// threads, when a GPU is usable (gpu/devices applies hmmgo's policy: here
// the first usable GPU, else none, and the run is the CPU's alone). The
// result is the same either way: the output below.
func ExampleNew() {
	tree, _ := newick.Parse("tree", []byte("((A:0.1,B:0.2):0.05,C:0.3,(D:0.1,E:0.1):0.2);"))
	aln := &alignio.Alignment{File: "aln", Rows: []alignio.Record{
		{Name: "A", Seq: []byte("ACGTACGTACGT")},
		{Name: "B", Seq: []byte("ACGTAC-TACGT")},
		{Name: "C", Seq: []byte("ACGAACGTTCGT")},
		{Name: "D", Seq: []byte("AC--ACGTACGA")},
		{Name: "E", Seq: []byte("ACGTTCGTACGT")},
	}}
	reads := []alignio.Record{{Name: "r1", Seq: []byte("GTACGGTA")}, {Name: "r2", Seq: []byte("ACGAAC")}}
	prep, err := core.Prepare(&core.Input{Model: core.DNA, Tree: tree, Alignment: aln, Reads: reads})
	if err != nil {
		fmt.Println(err)
		return
	}
	scorers := core.CPUScorers(2)
	devs, err := devices.Select(os.Stderr, "example", devices.Request{}, devices.Needs{})
	if err == nil && len(devs) > 0 {
		g, err := gpu.New(devs[0])
		if err != nil {
			fmt.Println(err)
			return
		}
		defer g.Close()
		scorers = append(scorers, g)
	}
	res, err := core.Run(prep, core.Options{Params: core.DefaultParams, Scorers: scorers})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Placements {
		fmt.Printf("%s: branch %d, score %d\n", p.Query, p.Branch, p.Score)
	}
	// Output:
	// r1: branch 6, score 12
	// r2: branch 6, score 12
}
