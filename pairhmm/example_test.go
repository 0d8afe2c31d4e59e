package pairhmm_test

import (
	"fmt"
	"os"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/pairhmm"
)

// phred turns Phred+33 text into quality values.
func phred(s string) []byte {
	q := []byte(s)
	for i := range q {
		q[i] -= 33
	}
	return q
}

// The README example of gpuPairHMM: two reads against two haplotypes.
func ExampleCompute() {
	reads := []pairhmm.Read{
		{
			Bases:     []byte("CTGTGTCCATGTCAGAGCAATGGCCCAAGTCTGGGCCTGGG"),
			BaseQuals: phred("888888888888'88888888'8888888888888'8'888"),
			InsQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			DelQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			GCPQuals:  phred("+++++++++++++++++++++++++++++++++++++++++"),
		},
		{
			Bases:     []byte("ATGTCAGAGCAATGGCCCAAGTCTGGGTCTGGG"),
			BaseQuals: phred("<AFFFKKKKKKKKKKKKKKKKKKKKKKKKKKKK"),
			InsQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			DelQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			GCPQuals:  phred("+++++++++++++++++++++++++++++++++"),
		},
	}
	haps := [][]byte{
		[]byte("CTGTGTCCATGTCAGAGCAACGGCCCAAGTCTGGGTCTGGG"),
		[]byte("CTGTGTCCATGTCAGAGCAATGGCCCAAGTCTGGGTCTGGG"),
	}
	lk, err := pairhmm.Compute(reads, haps)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range lk {
		fmt.Printf("%.5f %.5f\n", row[0], row[1])
	}
	// Output:
	// -5.97153 -3.19660
	// -6.34042 -1.66333
}

// Scoring on a GPU when there is one: gpu/devices applies hmmgo's --gpu
// policy (here: the first usable GPU, else none), and the CUDA backend
// gives the CPU's numbers bit for bit. Without a GPU this runs on the CPU.
func ExampleNewGPU() {
	groups := []pairhmm.Group{{
		Reads: []pairhmm.Read{{
			Bases:     []byte("ACGTACGT"),
			BaseQuals: phred("IIIIIIII"), InsQuals: phred("IIIIIIII"),
			DelQuals: phred("IIIIIIII"), GCPQuals: phred("++++++++"),
		}},
		Haplotypes: [][]byte{[]byte("TTACGTACGTTT")},
	}}
	var backend pairhmm.Backend = pairhmm.NewCPU(pairhmm.CPUOptions{})
	devs, err := devices.Select(os.Stderr, "example", devices.Request{}, devices.Needs{})
	if err == nil && len(devs) > 0 {
		if gpu, err := pairhmm.NewGPU(devs, pairhmm.GPUOptions{}); err == nil {
			defer gpu.Close()
			backend = gpu
		}
	}
	lk, err := pairhmm.ComputeGroups(groups, pairhmm.Options{Backend: backend})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", lk[0][0])
	// Output:
	// -1.1258
}
