package pairhmm

import (
	"fmt"
	"runtime"
)

// Backend computes likelihoods for whole groups. Implementations must
// return GATK's numbers bit for bit, whatever hardware they use: the CPU
// backend and the CUDA backend perform the same floating-point operations
// in the same order.
type Backend interface {
	// Name says which implementation runs, e.g. "cpu/avx2 (16 threads)".
	Name() string
	// Compute fills out[g][r*H+h] with the log10 likelihood of read r of
	// groups[g] given haplotype h. The groups have been validated.
	Compute(groups []Group, out [][]float64) error
}

// Options tunes ComputeGroups.
type Options struct {
	// Backend runs the computation; nil means the CPU with Threads.
	Backend Backend
	// Threads for the default CPU backend; 0 means all cores.
	Threads int
}

// Compute returns the log10 likelihood of every read given every
// haplotype, indexed [read][haplotype], using all CPU cores.
func Compute(reads []Read, haplotypes [][]byte) ([][]float64, error) {
	flat, err := ComputeGroups([]Group{{Reads: reads, Haplotypes: haplotypes}}, Options{})
	if err != nil {
		return nil, err
	}
	out := make([][]float64, len(reads))
	h := len(haplotypes)
	for r := range out {
		out[r] = flat[0][r*h : (r+1)*h : (r+1)*h]
	}
	return out, nil
}

// ComputeGroups scores a batch of groups and returns, for each group, its
// likelihoods in read-major order (read 0 against every haplotype, then
// read 1, ...), the order of the PairHMM .out files.
func ComputeGroups(groups []Group, opt Options) ([][]float64, error) {
	if err := Validate(groups); err != nil {
		return nil, err
	}
	b := opt.Backend
	if b == nil {
		b = NewCPU(CPUOptions{Threads: opt.Threads})
	}
	out := make([][]float64, len(groups))
	for g := range groups {
		out[g] = make([]float64, groups[g].Pairs())
	}
	if err := b.Compute(groups, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Validate checks every read and haplotype, naming the first bad one.
func Validate(groups []Group) error {
	for g := range groups {
		for r := range groups[g].Reads {
			if err := groups[g].Reads[r].Validate(); err != nil {
				return fmt.Errorf("group %d, read %d: %w", g+1, r+1, err)
			}
		}
		for h, hap := range groups[g].Haplotypes {
			if err := validateHaplotype(hap); err != nil {
				return fmt.Errorf("group %d, haplotype %d: %w", g+1, h+1, err)
			}
		}
	}
	return nil
}

func defaultThreads(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}
