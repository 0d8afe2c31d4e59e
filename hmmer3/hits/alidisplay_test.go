package hits

import (
	"fmt"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/seqio"
)

// A two-domain trace on a 5-node model, worked out by hand from
// p7_alidisplay_Create's rules.
func toyTrace(t testing.TB) (*Trace, *DisplayModel, *seqio.Sequence) {
	abc := alphabet.New(alphabet.Amino)
	seq := "GACXDYJEW" // positions 1..9
	dsq := make([]byte, len(seq))
	for i := range seq {
		dsq[i] = abc.Inmap[seq[i]]
	}
	sq := &seqio.Sequence{Name: "seq1", Acc: "ACC1", Desc: "a toy target", Dsq: dsq}
	m := &DisplayModel{
		Name: "toy", Acc: "PF00000.1", Desc: "toy model", M: 5,
		RF: " abcde", Consensus: " AcDEf", Abc: abc,
		MatchOdds: func(k int, x byte) float32 {
			switch {
			case k == 5 && x == abc.Inmap['Y']:
				return 2
			case k == 4 && x == abc.Inmap['W']:
				return 1 // exactly 1 is not positive
			}
			return 0.5
		},
	}
	type step struct {
		st   State
		k, i int
		pp   float32
	}
	steps := []step{
		{StS, 0, 0, 0}, {StN, 0, 0, 0}, {StN, 0, 1, 0.9}, {StB, 0, 0, 0},
		{StM, 1, 2, 0.96}, {StM, 2, 3, 0.95}, {StI, 2, 4, 0}, {StM, 3, 5, 0.5}, {StD, 4, 0, 0}, {StM, 5, 6, 0.049},
		{StE, 0, 0, 0}, {StJ, 0, 0, 0}, {StJ, 0, 7, 1}, {StB, 0, 0, 0},
		{StD, 2, 0, 0}, {StM, 3, 8, 1}, {StM, 4, 9, 0.25}, {StD, 5, 0, 0},
		{StE, 0, 0, 0}, {StC, 0, 0, 0}, {StT, 0, 0, 0},
	}
	tr := &Trace{M: 5, L: 9}
	for _, s := range steps {
		tr.St = append(tr.St, s.st)
		tr.K = append(tr.K, s.k)
		tr.I = append(tr.I, s.i)
		tr.PP = append(tr.PP, s.pp)
	}
	return tr, m, sq
}

func TestNewAliDisplay(t *testing.T) {
	tr, m, sq := toyTrace(t)

	ad := NewAliDisplay(tr, 0, m, sq)
	want := AliDisplay{
		RFLine: "ab.cde", Model: "Ac.DEf", MLine: "Ac D +", ASeq: "ACxD-Y", PPLine: "*905.0", N: 6,
		HMMName: "toy", HMMAcc: "PF00000.1", HMMDesc: "toy model", HMMFrom: 1, HMMTo: 5, M: 5,
		SqName: "seq1", SqAcc: "ACC1", SqDesc: "a toy target", SqFrom: 2, SqTo: 6, L: 9,
	}
	if ad == nil || *ad != want {
		t.Fatalf("domain 0:\n got %+v\nwant %+v", ad, want)
	}

	// The second domain starts with a delete and ends with one: the
	// display trims both to the outermost match states.
	ad = NewAliDisplay(tr, 1, m, sq)
	want2 := AliDisplay{
		RFLine: "cd", Model: "DE", MLine: "  ", ASeq: "EW", PPLine: "*3", N: 2,
		HMMName: "toy", HMMAcc: "PF00000.1", HMMDesc: "toy model", HMMFrom: 3, HMMTo: 4, M: 5,
		SqName: "seq1", SqAcc: "ACC1", SqDesc: "a toy target", SqFrom: 8, SqTo: 9, L: 9,
	}
	if ad == nil || *ad != want2 {
		t.Fatalf("domain 1:\n got %+v\nwant %+v", ad, want2)
	}

	if ad := NewAliDisplay(tr, 2, m, sq); ad != nil {
		t.Errorf("domain 2 does not exist, got %+v", ad)
	}

	// Without posteriors or RF there are no PP and RF lines; CS is copied
	// like RF.
	tr.PP = nil
	m.RF = ""
	m.CS = " HHEE-"
	ad = NewAliDisplay(tr, 0, m, sq)
	if ad.PPLine != "" || ad.RFLine != "" || ad.CSLine != "HH.EE-" || ad.MMLine != "" {
		t.Errorf("optional lines: PP %q RF %q CS %q MM %q", ad.PPLine, ad.RFLine, ad.CSLine, ad.MMLine)
	}
}

func TestNewAliDisplayNoMatch(t *testing.T) {
	_, m, sq := toyTrace(t)
	tr := &Trace{
		St: []State{StS, StN, StB, StD, StD, StE, StC, StT},
		K:  []int{0, 0, 0, 1, 2, 0, 0, 0},
		I:  make([]int, 8),
	}
	if ad := NewAliDisplay(tr, 0, m, sq); ad != nil {
		t.Errorf("a domain without match states has no display, got %+v", ad)
	}
}

func TestEncodePostProb(t *testing.T) {
	cases := []struct {
		p    float32
		want byte
	}{
		{0, '0'}, {0.049, '0'}, {0.05, '1'}, {0.1499, '1'}, {0.5, '5'},
		{0.8499, '8'}, {0.85, '9'}, {0.95, '9'}, // float32(0.95) is just below 0.95
		{0.9500001, '*'}, {1, '*'},
	}
	for _, c := range cases {
		if got := EncodePostProb(c.p); got != c.want {
			t.Errorf("EncodePostProb(%v) = %q, want %q", c.p, got, c.want)
		}
	}
}

func ExampleNewAliDisplay() {
	abc := alphabet.New(alphabet.Amino)
	m := &DisplayModel{
		Name: "tiny", M: 3, Consensus: " MKv", Abc: abc,
		MatchOdds: func(k int, x byte) float32 { return 1.5 },
	}
	sq := &seqio.Sequence{Name: "target", Dsq: []byte{abc.Inmap['M'], abc.Inmap['R'], abc.Inmap['G'], abc.Inmap['V']}}
	tr := &Trace{
		St: []State{StS, StN, StB, StM, StM, StI, StM, StE, StC, StT},
		K:  []int{0, 0, 0, 1, 2, 2, 3, 0, 0, 0},
		I:  []int{0, 0, 0, 1, 2, 3, 4, 0, 0, 0},
	}
	ad := NewAliDisplay(tr, 0, m, sq)
	fmt.Println(ad.Model)
	fmt.Println(ad.MLine)
	fmt.Println(ad.ASeq)
	fmt.Println(ad.HMMFrom, ad.HMMTo, ad.SqFrom, ad.SqTo)
	// Output:
	// MK.v
	// M+ v
	// MRgV
	// 1 3 1 4
}

func TestNewDisplayModelConsensus(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	row := func(x byte, p float32) []float32 {
		r := make([]float32, abc.K)
		for i := range r {
			r[i] = (1 - p) / float32(abc.K-1)
		}
		r[abc.Inmap[x]] = p
		return r
	}
	h := &hmm.HMM{Name: "m", M: 3, Alph: abc, Mat: [][]float32{nil, row('W', 0.5), row('K', 0.49), make([]float32, abc.K)}}
	dm := NewDisplayModel(h, nil)
	// Node 3 is all zeros: the first residue wins ties, as FArgMax does.
	if dm.Consensus != " Wka" {
		t.Errorf("consensus %q, want %q", dm.Consensus, " Wka")
	}
	h.Consensus = " XYZ"
	if dm := NewDisplayModel(h, nil); dm.Consensus != " XYZ" {
		t.Errorf("a consensus line from the file must be kept, got %q", dm.Consensus)
	}
}
