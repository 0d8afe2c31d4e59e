package core

import (
	"math/rand"
	"runtime"
	"testing"
)

// syntheticJob makes a job of random branches (states and CGAP flags)
// and random reads of readLen/2 to 3*readLen/2 residues, for kernel tests
// and benchmarks.
func syntheticJob(m *Model, branches, L, reads, readLen int, seed int64) *Job {
	rng := rand.New(rand.NewSource(seed))
	br := &Branches{N: branches, Len: L, model: m}
	if m.Protein {
		br.aa = make([]uint32, branches*L)
	} else {
		br.dna = make([]uint8, branches*L)
	}
	nres := 4
	if m.Protein {
		nres = 20
	}
	for e := 0; e < branches; e++ {
		for c := 0; c < L; c++ {
			var st uint32
			switch rng.Intn(8) {
			case 0:
				st = m.GapState
			default:
				st = m.States[1+rng.Intn(nres-1)]
				if !m.Protein {
					st = 1 << rng.Intn(4)
				}
				if rng.Intn(5) == 0 {
					st |= m.States[rng.Intn(nres)]
				}
			}
			br.set(e, c, st, rng.Intn(6) == 0)
		}
	}
	job := &Job{Model: m, Params: DefaultParams, Branches: br}
	for i := 0; i < reads; i++ {
		n := readLen/2 + rng.Intn(readLen+1)
		q := Query{Name: "r", CStates: make([]uint8, n)}
		for j := range q.CStates {
			if m.Protein {
				q.CStates[j] = uint8(rng.Intn(20))
			} else {
				q.CStates[j] = []uint8{1, 2, 4, 8}[rng.Intn(4)]
			}
		}
		job.Queries = append(job.Queries, q)
	}
	return job
}

// BenchmarkScoring measures the scoring phase on one core in giga cell
// updates per second (wall time, and CPU time of the thread: "GCUPS/cpu"
// is the one to trust on a busy machine). 64 branches x 1,000 columns.
//
//	dna-short    reads of 50-150 bp: 8-bit lanes, 32 branches per vector
//	dna-long     reads of 150-450 bp: 16-bit lanes (PaPaRa's arithmetic)
//	protein      reads of 50-150 aa, 20 residue rows in the profile
//	portable     dna-short with the portable Go kernel
func BenchmarkScoring(b *testing.B) {
	for _, c := range []struct {
		name     string
		m        *Model
		readLen  int
		portable bool
	}{
		{"dna-short", DNA, 100, false},
		{"dna-long", DNA, 300, false},
		{"protein", Protein, 100, false},
		{"portable", DNA, 100, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			job := syntheticJob(c.m, 64, 1000, 50, c.readLen, 1)
			save := haveAVX2Override
			if c.portable {
				haveAVX2Override = 1
			}
			defer func() { haveAVX2Override = save; forgetPlan(job) }()
			s := &CPUScorer{}
			blocks := NewQueue(job.Branches.N).Take(1 << 30)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu0 := threadCPUTime()
			for i := 0; i < b.N; i++ {
				if err := s.Score(job, blocks, NewResults(len(job.Queries))); err != nil {
					b.Fatal(err)
				}
			}
			cells := float64(job.Cells()) * float64(b.N)
			b.ReportMetric(cells/b.Elapsed().Seconds()/1e9, "GCUPS")
			if cpu := threadCPUTime() - cpu0; cpu > 0 {
				b.ReportMetric(cells/cpu.Seconds()/1e9, "GCUPS/cpu")
			}
		})
	}
}

// BenchmarkTraceback measures the alignment of reads to their best
// branch (PaPaRa's scalar DP with traceback).
func BenchmarkTraceback(b *testing.B) {
	job := syntheticJob(DNA, 4, 1000, 20, 100, 3)
	var a aligner
	cells := 0
	for _, q := range job.Queries {
		cells += len(q.CStates) * job.Branches.Len
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, q := range job.Queries {
			a.alignPaPaRa(job.Branches, 1, DNA, q.CStates, DefaultParams, nil)
		}
	}
	b.ReportMetric(float64(cells)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
}
