package seqdb_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
)

// Write two sequences, then read them back from the mapped file.
func Example() {
	dir, _ := os.MkdirTemp("", "seqdb-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tiny.hmmgo")

	abc := alphabet.New(alphabet.Amino)
	f, _ := os.Create(path)
	w, _ := seqdb.NewWriter(f, abc, seqdb.Options{})
	for _, s := range []struct{ name, desc, res string }{{"seq1", "a test", "ACDEF"}, {"seq2", "", "WY"}} {
		dsq := make([]byte, len(s.res))
		for i := range dsq {
			dsq[i] = abc.Inmap[s.res[i]]
		}
		w.Add(&seqio.Sequence{Name: s.name, Desc: s.desc, Dsq: dsq})
	}
	w.Close()
	f.Close()

	db, err := seqdb.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	fmt.Println(db.NumSeqs(), "sequences,", db.NumResidues(), "residues,", db.Alphabet().Type)
	src := db.NewSource()
	for {
		s, err := src.Read()
		if err == io.EOF {
			break
		}
		fmt.Printf("%s (%s) L=%d codes %v\n", s.Name, s.Desc, s.L(), s.Dsq)
	}
	// Output:
	// 2 sequences, 7 residues, amino
	// seq1 (a test) L=5 codes [0 1 2 3 4]
	// seq2 () L=2 codes [18 19]
}
