package makedb_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/makedb"
	"github.com/hmmgo/hmmgo/seqdb"
)

func ExampleMake() {
	dir, _ := os.MkdirTemp("", "makedb-example")
	defer os.RemoveAll(dir)
	fa := filepath.Join(dir, "tiny.fa")
	os.WriteFile(fa, []byte(">seq1 first\nACDEFGHIK\n>seq2\nLMNPQ\n"), 0o644)
	db := filepath.Join(dir, "tiny.hmmgo")
	env := cli.Env{Stdout: os.Stdout, Stderr: os.Stderr}
	if err := makedb.Make(env, fa, db, alphabet.New(alphabet.Amino)); err != nil {
		fmt.Println(err)
		return
	}
	d, _ := seqdb.Open(db)
	defer d.Close()
	fmt.Println(d.NumSeqs(), d.NumResidues(), d.Name(0), d.Desc(0), d.Len(1))
	// The GPU layouts' plan: the sequences longest first, and the shapes
	// whose warp-block tables hmmsearch --gpu will not have to plan.
	plan, _ := gpudb.LoadStoredPlan(d)
	fmt.Println(plan.Order, plan.Threads())
	// Output:
	// 2 14 seq1 first 5
	// [0 1] [1 4 8]
}
