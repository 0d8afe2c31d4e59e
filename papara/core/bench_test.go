package core

import (
	"math/rand"
	"testing"
)

// syntheticJob makes a job of random branches (states and CGAP flags)
// and random reads, for kernel tests and benchmarks.
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
		n := readLen/2 + rng.Intn(readLen)
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

func benchmarkScoring(b *testing.B, m *Model, portable bool) {
	job := syntheticJob(m, 64, 1000, 50, 100, 1)
	s := &CPUScorer{}
	save := haveAVX2Override
	if portable {
		haveAVX2Override = 1
	}
	defer func() { haveAVX2Override = save }()
	q := NewQueue(job.Branches.N)
	blocks := q.Take(1 << 30)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := NewResults(len(job.Queries))
		if err := s.Score(job, blocks, res); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(job.Cells())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
}

// BenchmarkScoringDNA measures the scoring phase (one core, the fastest
// kernel this CPU has) in giga cell updates per second.
func BenchmarkScoringDNA(b *testing.B)         { benchmarkScoring(b, DNA, false) }
func BenchmarkScoringDNAPortable(b *testing.B) { benchmarkScoring(b, DNA, true) }
func BenchmarkScoringProtein(b *testing.B)     { benchmarkScoring(b, Protein, false) }
