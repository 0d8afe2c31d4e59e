package seqio_test

import (
	"fmt"
	"io"
	"log"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

func ExampleOpen() {
	abc := alphabet.New(alphabet.Amino)
	r, err := seqio.Open("testdata/uniprot.embl", nil, abc) // format detected from the ID line
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err) // path:line: message
		}
		fmt.Printf("%s %s L=%d first=%c desc=%q\n", s.Name, s.Acc, s.L(), abc.Sym[s.Dsq[0]], s.Desc)
	}
	// Output:
	// 7LESS_DROME P13368 L=2554 first=M desc="RecName: Full=Protein sevenless;          EC=2.7.10.1;"
	// TEST_HUMAN  L=20 first=M desc="RecName: Full=Test protein; AltName: Full=Another name; "
}
