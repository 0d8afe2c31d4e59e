package sqio_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/hmmgo/hmmgo/hmmer2/sqio"
)

// Read FASTA from standard input ("-") the way hmm2search does: every
// non-space, non-digit character is a residue.
func ExampleOpen() {
	in := strings.NewReader(">seq1 a description\nMKV LA*\n>seq2\nacgt\n")
	rd, err := sqio.Open("-", sqio.Unknown, in, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rd.Close()
	var s sqio.Sequence
	for rd.Next(&s) != io.EOF {
		fmt.Printf("%s %q %s\n", s.Name, s.Desc, s.Seq)
	}
	// Output:
	// seq1 "a description" MKVLA*
	// seq2 "" acgt
}
