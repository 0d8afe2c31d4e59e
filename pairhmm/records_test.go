package pairhmm

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"
)

const twoRecords = "1 2\nACGTN ##### IIIII IIIII +++++\nACGT\nNNNNNN\n\n2 1\r\nAC 5' II II ++\r\nGT II II II ++\r\nACGTACGT\r\n"

func TestRecordReader(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(twoRecords))
	zw.Close()
	for name, data := range map[string][]byte{"plain": []byte(twoRecords), "gzip": z.Bytes()} {
		rr, err := NewRecordReader(bytes.NewReader(data), name)
		if err != nil {
			t.Fatal(err)
		}
		g1, err := rr.Next()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g2, err := rr.Next()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := rr.Next(); err != io.EOF {
			t.Fatalf("%s: after the last record: %v", name, err)
		}
		if len(g1.Reads) != 1 || len(g1.Haplotypes) != 2 || string(g1.Haplotypes[1]) != "NNNNNN" ||
			g1.Reads[0].BaseQuals[0] != 2 || g1.Reads[0].InsQuals[4] != 40 || g1.Reads[0].GCPQuals[0] != 10 {
			t.Errorf("%s: record 1 = %+v", name, g1)
		}
		if len(g2.Reads) != 2 || string(g2.Reads[1].Bases) != "GT" || g2.Reads[0].BaseQuals[1] != 6 || g2.Pairs() != 2 || g2.Cells() != 4*8 {
			t.Errorf("%s: record 2 = %+v", name, g2)
		}
	}
}

func TestValidateNamesTheProblem(t *testing.T) {
	ok := Read{Bases: []byte("AC"), BaseQuals: []byte{30, 30}, InsQuals: []byte{40, 40}, DelQuals: []byte{40, 40}, GCPQuals: []byte{10, 10}}
	bad := ok
	bad.DelQuals = []byte{40, 128}
	if _, err := Compute([]Read{ok, bad}, [][]byte{[]byte("ACGT")}); err == nil || !strings.Contains(err.Error(), "read 2: deletion quality 128 at position 2 is above 127") {
		t.Errorf("quality above 127: %v", err)
	}
	if _, err := Compute([]Read{ok}, [][]byte{[]byte("ACGU")}); err == nil || !strings.Contains(err.Error(), "haplotype 1: base 4 is 'U'") {
		t.Errorf("bad haplotype base: %v", err)
	}
	if _, err := Compute([]Read{ok}, [][]byte{{}}); err == nil || !strings.Contains(err.Error(), "empty haplotype") {
		t.Errorf("empty haplotype: %v", err)
	}
}

// Reading a file in the PairHMM record format and scoring each record.
func ExampleRecordReader() {
	input := "1 2\nACGT 5555 IIII IIII ++++\nACGT\nTTTT\n"
	rr, err := NewRecordReader(strings.NewReader(input), "example.in")
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		g, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := ComputeGroups([]Group{*g}, Options{Threads: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, v := range res[0] {
			fmt.Printf("%.4f\n", v)
		}
	}
	// Output:
	// -0.6655
	// -7.4913
}
