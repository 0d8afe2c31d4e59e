package hmm

import (
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// dump prints a model in the format of testdata/hmmdump.c, our C driver
// that prints what HMMER's own reader parsed, so the two can be compared
// line by line. HMMER2 models leave out the E-value parameters (HMMER
// computes them by simulation when reading).
func dump(w io.Writer, i int, h *HMM) {
	fmt.Fprintf(w, "HMM %d\nleng %d\nalph %s\n", i, h.M, h.Alph.Type)
	opt := func(tag, s string) {
		if s == "" {
			s = "(none)"
		}
		fmt.Fprintf(w, "%s %s\n", tag, s)
	}
	opt("name", h.Name)
	opt("acc", h.Acc)
	opt("desc", h.Desc)
	opt("rf", h.RF)
	opt("mm", h.MM)
	opt("cons", h.Consensus)
	opt("cs", h.CS)
	fmt.Fprint(w, "map")
	if h.Map == nil {
		fmt.Fprint(w, " (none)")
	}
	for _, v := range h.Map {
		fmt.Fprintf(w, " %d", v)
	}
	fmt.Fprintf(w, "\nnseq %d\neffn%s\nmaxl %d\n", h.NSeq, hex32(h.EffNSeq), h.MaxLength)
	fmt.Fprintf(w, "cksum %d %d\n", b2i(h.HasChksum), h.Checksum)
	if h.Format != Format20 {
		fmt.Fprintf(w, "stats %d%s\n", b2i(h.HasStats), hex32(h.EvParam[:]...))
	}
	fmt.Fprintf(w, "cutoffs %d %d %d%s\ncompo", b2i(h.HasGA), b2i(h.HasTC), b2i(h.HasNC), hex32(h.Cutoff[:]...))
	if h.Compo == nil {
		fmt.Fprint(w, " (none)")
	}
	fmt.Fprintf(w, "%s\n", hex32(h.Compo...))
	for k := 0; k <= h.M; k++ {
		fmt.Fprintf(w, "mat %d%s\nins %d%s\nt %d%s\n", k, hex32(h.Mat[k]...), k, hex32(h.Ins[k]...), k, hex32(h.T[k][:]...))
	}
	fmt.Fprint(w, "//\n")
}

func hex32(v ...float32) string {
	var b strings.Builder
	for _, x := range v {
		fmt.Fprintf(&b, " %08x", math.Float32bits(x))
	}
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// dumpFile reads every model of path and dumps them all.
func dumpFile(t *testing.T, path string) string {
	t.Helper()
	r, err := OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	for i := 0; ; i++ {
		h, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		dump(&b, i, h)
	}
	return b.String()
}
