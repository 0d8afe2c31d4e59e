package synthdb

import (
	"fmt"
	"sort"
)

// SwissProt is the amino-acid composition of UniProtKB/Swiss-Prot in
// percent, as its release statistics give it (release 2024_01, two
// decimals; they sum to 99.90 because ambiguous residues are left out,
// and are normalised before use). Order: Easel's amino alphabet,
// ACDEFGHIKLMNPQRSTVWY.
var SwissProt = [20]float64{
	8.25, // A
	1.38, // C
	5.46, // D
	6.72, // E
	3.86, // F
	7.07, // G
	2.27, // H
	5.91, // I
	5.79, // K
	9.64, // L
	2.41, // M
	4.06, // N
	4.74, // P
	3.93, // Q
	5.52, // R
	6.65, // S
	5.36, // T
	6.86, // V
	1.10, // W
	2.92, // Y
}

const aminoSymbols = "ACDEFGHIKLMNPQRSTVWY"

// residueTable maps 16 random bits to a residue letter so that letter i
// fills a share of the 65536 entries proportional to freq[i]. The
// composition is thus quantised to 1/65536 (error below 1.5e-5 per
// residue): entries are given by largest remainder, ties to the earlier
// residue, so the table is the same on every machine.
func residueTable(freq []float64, symbols string) (*[1 << 16]byte, error) {
	if len(freq) != len(symbols) {
		return nil, fmt.Errorf("composition has %d values for %d residues", len(freq), len(symbols))
	}
	var total float64
	for i, f := range freq {
		if !(f >= 0) {
			return nil, fmt.Errorf("composition: %c has frequency %g", symbols[i], f)
		}
		total += f
	}
	if total <= 0 {
		return nil, fmt.Errorf("composition: frequencies sum to %g", total)
	}
	const n = 1 << 16
	count := make([]int, len(freq))
	rem := make([]float64, len(freq))
	used := 0
	for i, f := range freq {
		exact := f / total * n
		count[i] = int(exact)
		rem[i] = exact - float64(count[i])
		used += count[i]
	}
	order := make([]int, len(freq))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for j := 0; used < n; j++ {
		count[order[j%len(order)]]++
		used++
	}
	t := new([1 << 16]byte)
	k := 0
	for i, c := range count {
		for ; c > 0; c-- {
			t[k] = symbols[i]
			k++
		}
	}
	return t, nil
}
