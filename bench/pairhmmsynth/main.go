// Command pairhmmsynth writes synthetic pair-HMM input in the PairHMM /
// gpuPairHMM record format, for throughput measurements: equal-length
// batches (peak GCUPS/TCUPS) or a realistic mix of lengths.
//
//	go run ./bench/pairhmmsynth -records 200 -reads 64 -haps 16 -readlen 150 -haplen 300 > equal150.in
//	go run ./bench/pairhmmsynth -mix -records 2000 > mix.in
//	go run ./bench/pairhmmsynth -records 20 -reads 8 -haps 4 -readlen 500 -haplen 2000 -qlo 2 -qhi 20 -gapq 10 -errors 0.1 > hard.in
//
// Reads are copies of a haplotype window with errors and indels, so the
// likelihoods are realistic (mostly float pass, a few double).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

func main() {
	records := flag.Int("records", 100, "number of records (groups)")
	reads := flag.Int("reads", 64, "reads per record")
	haps := flag.Int("haps", 16, "haplotypes per record")
	readLen := flag.Int("readlen", 150, "read length")
	hapLen := flag.Int("haplen", 300, "haplotype length")
	mix := flag.Bool("mix", false, "realistic mix: reads 10-250 (mostly 100-150), haplotypes 150-500, 2-16 haplotypes, 10-200 reads per record")
	seed := flag.Uint64("seed", 1, "random seed")
	qlo := flag.Int("qlo", 18, "lowest base quality (besides the Q6 of 1 base in 20)")
	qhi := flag.Int("qhi", 41, "highest base quality")
	gapq := flag.Int("gapq", 40, "lowest insertion/deletion open quality (up to 5 above)")
	sub := flag.Float64("errors", 0.02, "substitution rate of reads against their haplotype")
	flag.Parse()
	rng := rand.New(rand.NewPCG(*seed, 7))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	for g := 0; g < *records; g++ {
		nr, nh, hl := *reads, *haps, *hapLen
		if *mix {
			nr, nh, hl = 10+rng.IntN(191), 2+rng.IntN(15), 150+rng.IntN(351)
		}
		hs := make([][]byte, nh)
		base := randomBases(rng, hl)
		for h := range hs {
			hs[h] = mutate(rng, base, 0.01)
		}
		fmt.Fprintf(w, "%d %d\n", nr, nh)
		for r := 0; r < nr; r++ {
			rl := *readLen
			if *mix {
				rl = 100 + rng.IntN(51)
				if rng.IntN(4) == 0 {
					rl = 10 + rng.IntN(241)
				}
			}
			rl = min(rl, hl)
			start := rng.IntN(hl - rl + 1)
			bases := mutate(rng, hs[rng.IntN(nh)][start:start+rl], *sub)
			w.Write(bases)
			w.WriteByte(' ')
			for i := 0; i < rl; i++ { // base qualities, Q6 or Q18-Q41 as HaplotypeCaller passes them
				q := *qlo + rng.IntN(*qhi-*qlo+1)
				if rng.IntN(20) == 0 {
					q = 6
				}
				w.WriteByte(byte(33 + q))
			}
			for k := 0; k < 2; k++ { // insertion and deletion open qualities
				w.WriteByte(' ')
				for i := 0; i < rl; i++ {
					w.WriteByte(byte(33 + *gapq + rng.IntN(6)))
				}
			}
			w.WriteByte(' ')
			for i := 0; i < rl; i++ {
				w.WriteByte('+') // gap continuation Q10, as GATK's constant GCP
			}
			w.WriteByte('\n')
		}
		for _, h := range hs {
			w.Write(h)
			w.WriteByte('\n')
		}
	}
}

func randomBases(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "ACGT"[rng.IntN(4)]
	}
	return b
}

// mutate copies s with substitutions at the given rate, keeping its length.
func mutate(rng *rand.Rand, s []byte, rate float64) []byte {
	out := append([]byte(nil), s...)
	for i := range out {
		if rng.Float64() < rate {
			out[i] = "ACGT"[rng.IntN(4)]
		}
	}
	return out
}
