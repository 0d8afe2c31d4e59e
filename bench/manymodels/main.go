// Command manymodels writes synthetic protein family alignments in one
// Stockholm file, for building many query models with hmmbuild (the
// 1,000-model benchmark): model lengths follow a lognormal close to
// Pfam-A's (median about 150 match columns, 5% above 500, none below 25 or
// above 2,500), and each family is a random ancestor with twelve
// descendants at about 30% substitutions and 3% gaps, so the models have
// realistic information content.
//
//	go run ./bench/manymodels -n 976 > families.sto
//	hmmbuild --cpu 16 --amino families.hmm families.sto
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
)

// background is the amino-acid composition the ancestors are drawn from
// (Swiss-Prot's, rounded), in "ACDEFGHIKLMNPQRSTVWY" order.
var (
	aminos     = "ACDEFGHIKLMNPQRSTVWY"
	background = []float64{8.25, 1.38, 5.46, 6.72, 3.86, 7.07, 2.27, 5.91, 5.80, 9.65,
		2.41, 4.06, 4.74, 3.93, 5.53, 6.63, 5.35, 6.86, 1.10, 2.92}
)

func main() {
	n := flag.Int("n", 976, "number of families")
	seqs := flag.Int("seqs", 12, "sequences per family")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	rng := rand.New(rand.NewPCG(*seed, 11))
	cum := make([]float64, len(background))
	total := 0.0
	for i, f := range background {
		total += f
		cum[i] = total
	}
	draw := func() byte {
		x := rng.Float64() * total
		for i, c := range cum {
			if x < c {
				return aminos[i]
			}
		}
		return aminos[len(aminos)-1]
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	for f := 0; f < *n; f++ {
		M := int(math.Round(math.Exp(math.Log(150) + 0.75*rng.NormFloat64())))
		M = min(2500, max(25, M))
		root := make([]byte, M)
		for i := range root {
			root[i] = draw()
		}
		fmt.Fprintf(w, "# STOCKHOLM 1.0\n#=GF ID synth%04d_M%d\n", f+1, M)
		row := make([]byte, M)
		for s := 0; s < *seqs; s++ {
			for i, c := range root {
				switch x := rng.Float64(); {
				case x < 0.03:
					row[i] = '-'
				case x < 0.33:
					row[i] = draw()
				default:
					row[i] = c
				}
			}
			fmt.Fprintf(w, "s%02d %s\n", s+1, row)
		}
		fmt.Fprintln(w, "//")
	}
}
