package core_test

import (
	"fmt"
	"os"

	"github.com/hmmgo/hmmgo/papara/alignio"
	"github.com/hmmgo/hmmgo/papara/core"
	"github.com/hmmgo/hmmgo/papara/newick"
)

// ExampleRun aligns two reads to a five-taxon reference, as
// `hmmgo papara` does, and prints PaPaRa's PHYLIP layout (the same bytes
// PaPaRa 2.5 writes for these inputs).
func ExampleRun() {
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
	res, err := core.Run(prep, core.Options{Params: core.DefaultParams, Scorers: core.CPUScorers(1)})
	if err != nil {
		fmt.Println(err)
		return
	}
	names, rows := res.Render(true)
	alignio.WritePhylip(os.Stdout, names, rows)
	for _, p := range res.Placements {
		fmt.Printf("%s: branch %d, score %d\n", p.Query, p.Branch, p.Score)
	}
	// Output:
	// 7 12
	// A  ACGTACGTACGT
	// B  ACGTAC-TACGT
	// C  ACGAACGTTCGT
	// D  AC--ACGTACGA
	// E  ACGTTCGTACGT
	// r1 --GTACGGTA--
	// r2 ACGAAC------
	// r1: branch 6, score 12
	// r2: branch 6, score 12
}
