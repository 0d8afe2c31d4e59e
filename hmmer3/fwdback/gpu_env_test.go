package fwdback

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// rescoreCPU is RescoreEnvelopeCPU of every job, on every core.
func rescoreCPU(om *oprofile.Profile, jobs []EnvJob) []EnvResult {
	out := make([]EnvResult, len(jobs))
	onEveryCore(len(jobs), func() [2]*Matrix { return [2]*Matrix{NewMatrix(), NewMatrix()} }, func(m [2]*Matrix, i int) {
		out[i] = RescoreEnvelopeCPU(om, jobs[i], m[0], m[1])
	})
	return out
}

// sameEnvResult reports the first difference between two rescorings, bit
// for bit; "" when none.
func sameEnvResult(got, want *EnvResult) string {
	bits := math.Float32bits
	switch {
	case bits(got.Score) != bits(want.Score) || (got.Err == nil) != (want.Err == nil):
		return fmt.Sprintf("score %v (%v), CPU %v (%v)", got.Score, got.Err, want.Score, want.Err)
	case want.Err != nil:
		return ""
	case got.Dropped != want.Dropped:
		return fmt.Sprintf("dropped %v, CPU %v", got.Dropped, want.Dropped)
	case want.Dropped:
		return ""
	case bits(got.OASc) != bits(want.OASc):
		return fmt.Sprintf("OA score %v, CPU %v", got.OASc, want.OASc)
	case len(got.Null2) != len(want.Null2):
		return fmt.Sprintf("%d null2 values, CPU %d", len(got.Null2), len(want.Null2))
	}
	for x := range want.Null2 {
		if bits(got.Null2[x]) != bits(want.Null2[x]) {
			return fmt.Sprintf("null2[%d] %v, CPU %v", x, got.Null2[x], want.Null2[x])
		}
	}
	return traceDiff(&got.Trace, &want.Trace)
}

// compareEnvelopes rescores jobs on the GPU and the CPU and checks every
// result; it returns how many were aligned (neither failed nor dropped).
func compareEnvelopes(t *testing.T, g *GPU, what string, om *oprofile.Profile, jobs []EnvJob) int {
	t.Helper()
	got, err := g.RescoreEnvelopes(om, jobs)
	if err != nil {
		t.Fatalf("%s (M=%d): %v", what, om.M, err)
	}
	want := rescoreCPU(om, jobs)
	bad, aligned := 0, 0
	for i := range jobs {
		if d := sameEnvResult(&got[i], &want[i]); d != "" {
			if bad++; bad <= 5 {
				t.Errorf("%s (M=%d, %s) envelope %d (Ld=%d, L=%d, null2 %v): %s", what, om.M, g.LastShape, i, len(jobs[i].Dsq), jobs[i].TargetLen, jobs[i].Null2, d)
			}
		}
		if want[i].Err == nil && !want[i].Dropped {
			aligned++
		}
	}
	return aligned
}

// envelopeJobs cuts envelopes out of homologs and random targets of h:
// n jobs, each with its whole target's length and null2 asked for at
// random.
func envelopeJobs(rng *rand.Rand, h *hmm.HMM, n int) []EnvJob {
	var jobs []EnvJob
	for len(jobs) < n {
		var d []byte
		if rng.Intn(4) == 0 {
			d = testmodels.RandomDsq(rng, h.Alph, 1+rng.Intn(3*h.M+20))
		} else {
			d = homolog(rng, h, 1+rng.Intn(2))
		}
		if len(d) == 0 {
			continue
		}
		i := rng.Intn(len(d))
		j := i + 1 + rng.Intn(len(d)-i)
		if rng.Intn(3) == 0 {
			i, j = 0, len(d)
		}
		jobs = append(jobs, EnvJob{Dsq: d[i:j], TargetLen: len(d) + rng.Intn(500), Null2: rng.Intn(4) > 0})
	}
	return jobs
}

// TestGPUEnvelopesMatchCPU: envelope rescoring on the GPU (Forward and
// Backward matrices, decoding, optimal accuracy, null2, the trace) gives
// RescoreEnvelopeCPU's bits for every envelope.
func TestGPUEnvelopesMatchCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	rng := rand.New(rand.NewSource(41))
	aligned := 0
	for _, M := range []int{1, 2, 3, 4, 5, 17, 64, 99, 100, 101, 150, 300, 640} {
		for _, abc := range []*alphabet.Alphabet{amino, dna} {
			if abc == dna && M%2 == 0 {
				continue
			}
			h := testmodels.RandomHMM(rng, abc, M)
			if M == 64 || M == 150 {
				h = deletionHeavy(h)
			}
			om := optimizedProfile(h)
			om.ReconfigUnihit(om.L)
			aligned += compareEnvelopes(t, g, fmt.Sprintf("random %s", abc.Type), om, envelopeJobs(rng, h, 60))
		}
	}
	for _, pl := range []Placement{PlaceShared, PlaceStateShared, PlaceGlobal} {
		g.Placement = pl
		h := testmodels.RandomHMM(rng, amino, 120)
		om := optimizedProfile(h)
		om.ReconfigUnihit(om.L)
		aligned += compareEnvelopes(t, g, "placement "+pl.String(), om, envelopeJobs(rng, h, 40))
	}
	g.Placement = PlaceAuto
	for _, h := range testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz")) {
		om := optimizedProfile(h)
		om.ReconfigUnihit(om.L)
		aligned += compareEnvelopes(t, g, h.Name, om, envelopeJobs(rng, h, 24))
	}
	t.Logf("%d envelopes aligned and compared", aligned)
}

// TestGPUEnvelopeThroughput times RescoreEnvelopes against the cores
// (HMMGO_GPU_BENCH set: envelopes per model, default 40) on the CUDAMPF
// models, each with envelopes cut from homologs: per model the GPU's wall
// time and the CPU's on every core, and the totals; then every model's
// call at once, on 4, 16 and 32 lanes, all compared bit for bit.
func TestGPUEnvelopeThroughput(t *testing.T) {
	per, _ := strconv.Atoi(os.Getenv("HMMGO_GPU_BENCH"))
	if os.Getenv("HMMGO_GPU_BENCH") == "" {
		t.Skip("set HMMGO_GPU_BENCH to time envelope rescoring")
	}
	if per <= 0 || per > 10000 {
		per = 40
	}
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	rng := rand.New(rand.NewSource(43))
	var gpuT, cpuT time.Duration
	var steps [4]time.Duration // Forward, Backward, decoding, trace
	var mu sync.Mutex
	envStepTimes = func(step int, d time.Duration) { mu.Lock(); steps[step] += d; mu.Unlock() }
	defer func() { envStepTimes = nil }()
	var cells int64
	type call struct {
		om        *oprofile.Profile
		jobs      []EnvJob
		want, got []EnvResult
	}
	var calls []call
	for _, h := range testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz")) {
		om := optimizedProfile(h)
		om.ReconfigUnihit(om.L)
		var jobs []EnvJob
		var c int64
		for len(jobs) < per {
			d := homolog(rng, h, 1)
			jobs = append(jobs, EnvJob{Dsq: d, TargetLen: len(d) + 200, Null2: true})
			c += int64(len(d)) * int64(h.M)
		}
		if _, err := g.RescoreEnvelopes(om, jobs[:1]); err != nil { // compiles
			t.Fatal(err)
		}
		t0 := time.Now()
		got, err := g.RescoreEnvelopes(om, jobs)
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		want := rescoreCPU(om, jobs)
		t2 := time.Now()
		for i := range jobs {
			if d := sameEnvResult(&got[i], &want[i]); d != "" {
				t.Fatalf("%s envelope %d: %s", h.Name, i, d)
			}
		}
		calls = append(calls, call{om: om, jobs: jobs, want: want})
		gpuT, cpuT, cells = gpuT+t1.Sub(t0), cpuT+t2.Sub(t1), cells+c
		fmt.Printf("%-24s M=%5d %3d envelopes %6.1f Mcells: GPU %7.1f ms, CPU (%d cores) %7.1f ms\n",
			h.Name, h.M, len(jobs), float64(c)/1e6, ms(t1.Sub(t0)), runtime.NumCPU(), ms(t2.Sub(t1)))
	}
	fmt.Printf("GPU steps: Forward %.0f ms, Backward %.0f ms, decoding and optimal accuracy %.0f ms, trace %.0f ms\n",
		ms(steps[0]), ms(steps[1]), ms(steps[2]), ms(steps[3]))
	fmt.Printf("all: %.0f Mcells: GPU %.0f ms (%.2f GCUPS), CPU %d cores %.0f ms (%.2f GCUPS)\n", float64(cells)/1e6,
		ms(gpuT), float64(cells)/gpuT.Seconds()/1e9, runtime.NumCPU(), ms(cpuT), float64(cells)/cpuT.Seconds()/1e9)

	// All the models' calls at once, as the queries in flight make
	// them, on devices of 4, 16 and 32 envelope lanes: pass 1 grows the
	// lanes' buffers, pass 2 reuses them.
	envStepTimes = nil
	defer func(n int) { envLanesPerGPU = n }(envLanesPerGPU)
	for _, lanes := range []int{4, 16, 32} {
		envLanesPerGPU = lanes
		g := NewGPU(ctx)
		if _, err := g.RescoreEnvelopes(calls[0].om, calls[0].jobs[:1]); err != nil {
			t.Fatal(err)
		}
		for pass := 1; pass <= 2; pass++ {
			t0 := time.Now()
			var wg sync.WaitGroup
			errs := make([]error, len(calls))
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					calls[i].got, errs[i] = g.RescoreEnvelopes(calls[i].om, calls[i].jobs)
				}()
			}
			wg.Wait()
			d := time.Since(t0)
			for i, c := range calls {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				for k := range c.jobs {
					if diff := sameEnvResult(&c.got[k], &c.want[k]); diff != "" {
						t.Fatalf("all at once, model %d envelope %d: %s", i, k, diff)
					}
				}
			}
			fmt.Printf("all %d models at once, %d lanes, pass %d: GPU %.0f ms (%.2f GCUPS)\n", len(calls), lanes, pass, ms(d),
				float64(cells)/d.Seconds()/1e9)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
