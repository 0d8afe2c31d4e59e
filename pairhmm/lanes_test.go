package pairhmm

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// rawSums runs a lane kernel over every group, k.width reads at a time in
// input order, and returns the raw float sums in read-major order.
func rawSums(k laneKernel, groups []Group) []float32 {
	var out []float32
	var prepared [maxLaneWidth]preparedRead
	var b laneBatch
	raw := make([]float32, k.width)
	for g := range groups {
		res := make([]float32, groups[g].Pairs())
		nh := len(groups[g].Haplotypes)
		reads := groups[g].Reads
		for i := 0; i < len(reads); i += k.width {
			n := min(k.width, len(reads)-i)
			for l := range n {
				prepared[l].prepare(&reads[i+l])
			}
			b.load(prepared[:n], k.width)
			for h, hap := range groups[g].Haplotypes {
				codes, _ := encodeBases(nil, hap)
				k.run(&k, &b, codes, raw)
				for l := range n {
					res[(i+l)*nh+h] = raw[l]
				}
			}
		}
		out = append(out, res...)
	}
	return out
}

// simdKernels returns the vector kernels this CPU runs, or skips.
func simdKernels(t *testing.T) []laneKernel {
	ks := gklLaneKernels.available()[1:]
	if len(ks) == 0 {
		t.Skip("no AVX2 on this CPU: only the portable kernel can run")
	}
	return ks
}

// mixedGroups are synthetic groups with reads of many lengths in one
// batch (so strips end early at many rows), odd read counts that leave
// lanes empty, and a one-base haplotype.
func mixedGroups(seed uint64) []Group {
	rng := rand.New(rand.NewPCG(seed, 2))
	var groups []Group
	for range 6 {
		haps := [][]byte{synthHap(rng, 50+rng.IntN(400)), synthHap(rng, 1+rng.IntN(30)), synthHap(rng, 1)}
		var reads []Read
		for range 1 + rng.IntN(40) {
			reads = append(reads, synthRead(rng, haps[0], 1+rng.IntN(300), rng.IntN(20), 20+rng.IntN(40), rng.IntN(3) > 0))
		}
		groups = append(groups, Group{Reads: reads, Haplotypes: haps})
	}
	return groups
}

// hardGroups are what the GATK sets lack: low qualities, reads of 250+
// bases, haplotypes of 1,000+ bases, unrelated pairs far below the float
// range, and lane batches filled to 1, 3, 15, 17 and 33 reads.
func hardGroups(seed uint64) []Group {
	rng := rand.New(rand.NewPCG(seed, 7))
	var groups []Group
	for _, nr := range []int{1, 3, 15, 17, 33} {
		haps := [][]byte{synthHap(rng, 1000+rng.IntN(600)), synthHap(rng, 250+rng.IntN(100))}
		var reads []Read
		for range nr {
			n := 250 + rng.IntN(150)
			switch rng.IntN(3) {
			case 0: // low qualities
				reads = append(reads, synthRead(rng, haps[0], n, 0, 12, true))
			case 1: // unrelated: the double pass
				reads = append(reads, synthRead(rng, haps[0], n, 20, 40, false))
			default:
				reads = append(reads, synthRead(rng, haps[0], n, 10, 40, true))
			}
		}
		groups = append(groups, Group{Reads: reads, Haplotypes: haps})
	}
	return groups
}

// sameRaw fails unless two kernels' raw sums are identical to the bit.
func sameRaw(t *testing.T, what string, want, got []float32, wantName, gotName string) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d and %d sums", what, len(want), len(got))
	}
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			t.Fatalf("%s pair %d: %s kernel %x, %s kernel %x", what, i, wantName, want[i], gotName, got[i])
		}
	}
}

// sameResults fails unless two backends' likelihoods are identical.
func sameResults(t *testing.T, groups []Group, a, b string) {
	t.Helper()
	ra, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Kernel: a})})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Kernel: b})})
	if err != nil {
		t.Fatal(err)
	}
	for g := range ra {
		for i := range ra[g] {
			if math.Float64bits(ra[g][i]) != math.Float64bits(rb[g][i]) {
				t.Fatalf("group %d pair %d: %s %v, %s %v", g, i, a, ra[g][i], b, rb[g][i])
			}
		}
	}
}

// TestKernelsIdentical: every float kernel the CPU can run gives the same
// raw sums as the Go kernel, bit for bit, on reads of mixed lengths in
// one batch and on the 10s set, with every strip height; and the same
// likelihoods through the backend.
func TestKernelsIdentical(t *testing.T) {
	ks := simdKernels(t)
	groups := append(mixedGroups(1), loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))...)
	want := rawSums(goLaneKernel, groups)
	for _, k := range ks {
		for strip := 1; strip <= k.maxStrip; strip++ {
			ks := k
			ks.strip = strip
			sameRaw(t, fmt.Sprintf("%s strip %d", k.name, strip), want, rawSums(ks, groups), "go", k.name)
		}
		sameResults(t, groups, "go", k.name)
		t.Logf("%s: %d pairs identical, strips 1..%d", k.name, len(want), k.maxStrip)
	}
}

// TestKernelsHardCases: the same on long reads, long haplotypes, low
// qualities and partly filled batches.
func TestKernelsHardCases(t *testing.T) {
	ks := simdKernels(t)
	groups := hardGroups(3)
	want := rawSums(goLaneKernel, groups)
	for _, k := range ks {
		sameRaw(t, k.name, want, rawSums(k, groups), "go", k.name)
		sameResults(t, groups, "go", k.name)
	}
}

// TestAVX512Kernel runs the AVX-512 kernel on everything: synthetic and
// hard groups, every strip height, and the 10s and 1m sets through the
// backend, against the Go and AVX2 kernels.
func TestAVX512Kernel(t *testing.T) {
	if simd.Best < simd.AVX512 {
		t.Skip("this CPU lacks AVX-512 (F, BW, DQ, VL): the avx512 kernel cannot run here")
	}
	k, _, err := gklLaneKernels.byName("avx512")
	if err != nil {
		t.Fatal(err)
	}
	groups := append(mixedGroups(11), hardGroups(12)...)
	want := rawSums(goLaneKernel, groups)
	for strip := 1; strip <= k.maxStrip; strip++ {
		ks := k
		ks.strip = strip
		sameRaw(t, fmt.Sprintf("strip %d", strip), want, rawSums(ks, groups), "go", "avx512")
	}
	for _, ds := range datasets[1:] {
		sets := loadGroups(t, testutil.SharedData(t, ds.input))
		sameRaw(t, ds.name, rawSums(goLaneKernel, sets), rawSums(k, sets), "go", "avx512")
		sameResults(t, sets, "go", "avx512")
		sameResults(t, sets, "avx2", "avx512")
	}
	if got := NewCPU(CPUOptions{Threads: 3}).Name(); simd.Selected == simd.AVX512 && got != "cpu/avx512 (3 threads)" {
		t.Errorf("auto picks %q", got)
	}
}

// TestKernelChoice: names, errors for kernels this CPU lacks, auto.
func TestKernelChoice(t *testing.T) {
	if err := NewCPU(CPUOptions{Kernel: "sse"}).Compute(nil, nil); err == nil {
		t.Error("unknown kernel accepted")
	}
	for _, name := range []string{"avx2", "avx512"} {
		_, _, lacks := gklLaneKernels.byName(name)
		err := NewCPU(CPUOptions{Kernel: name}).Compute(nil, nil)
		if (err != nil) != (lacks != nil) {
			t.Errorf("%s: error %v, CPU lacks it: %v", name, err, lacks)
		}
		if got := NewCPU(CPUOptions{Kernel: name, Threads: 2}).Name(); got != "cpu/"+name+" (2 threads)" {
			t.Errorf("%s: Name %q", name, got)
		}
	}
	want := map[simd.Level]string{simd.Generic: "go", simd.SSE: "go", simd.AVX2: "avx2", simd.AVX512: "avx512"}
	for l := simd.Generic; l <= simd.Best; l++ {
		if got := gklLaneKernels.best(l).name; got != want[l] {
			t.Errorf("level %s: kernel %s, want %s", l, got, want[l])
		}
	}
}

// BenchmarkLaneKernels: one thread, the float pass alone (reads
// prepared beforehand) of 48 reads of 150 bases against a haplotype of
// 300, and of 48 reads of 250 against 1,000; the SIMD kernels with every
// strip height.
//
//	go test -run - -bench LaneKernels ./pairhmm
func BenchmarkLaneKernels(b *testing.B) {
	for _, shape := range []struct{ read, hap int }{{150, 300}, {250, 1000}} {
		rng := rand.New(rand.NewPCG(1, 1))
		hap := synthHap(rng, shape.hap)
		codes, _ := encodeBases(nil, hap)
		reads := make([]Read, 48)
		prepared := make([]preparedRead, len(reads))
		for i := range reads {
			reads[i] = synthRead(rng, hap, shape.read, 20, 40, true)
			prepared[i].prepare(&reads[i])
		}
		cells := float64(len(reads) * shape.read * shape.hap)
		for _, k := range gklLaneKernels.available() {
			batches := make([]laneBatch, len(reads)/k.width)
			for i := range batches {
				batches[i].load(prepared[i*k.width:(i+1)*k.width], k.width)
			}
			out := make([]float32, k.width)
			for strip := min(1, k.strip); strip <= k.maxStrip; strip++ {
				ks := k
				ks.strip = strip
				name := fmt.Sprintf("%dx%d/%s", shape.read, shape.hap, k.name)
				if k.strip > 0 {
					name += fmt.Sprintf("/strip=%d", strip)
				}
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						for i := range batches {
							ks.run(&ks, &batches[i], codes, out)
						}
					}
					b.ReportMetric(cells*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
				})
			}
		}
	}
}

func TestAlignedFloats(t *testing.T) {
	for n := 1; n < 100; n += 7 {
		s := alignedFloats(n)
		if len(s) != n || uintptr(unsafe.Pointer(&s[0]))%64 != 0 {
			t.Fatalf("alignedFloats(%d): len %d at %p", n, len(s), &s[0])
		}
	}
}

// forwardKeepingSubnormals is forwardFloat without flush-to-zero: plain
// float32 products, subnormals kept. Tests use it to find pairs on which
// the flush makes a difference.
func forwardKeepingSubnormals(rows []row[float32], hap []uint8, initial float32) float32 {
	h := len(hap)
	m, x, y := make([]float32, h+1), make([]float32, h+1), make([]float32, h+1)
	for j := range y {
		y[j] = initial / float32(h)
	}
	for i := range rows {
		p := &rows[i]
		dM, dX, dY := m[0], x[0], y[0]
		m[0], x[0], y[0] = 0, 0, 0
		var lM, lY float32
		for j := 1; j <= h; j++ {
			uM, uX, uY := m[j], x[j], y[j]
			cm := (float32(dM*p.mm) + float32(dX*p.gapm) + float32(dY*p.gapm)) * p.emis[hap[j-1]&7]
			cx := float32(uM*p.mx) + float32(uX*p.gcp)
			cy := float32(lM*p.my) + float32(lY*p.gcp)
			m[j], x[j], y[j] = cm, cx, cy
			dM, dX, dY = uM, uX, uY
			lM, lY = cm, cy
		}
	}
	return sumLastRow(m, x)
}

// subnormalGroups returns pairs whose float pass reaches the subnormal
// range (reads of one base against a haplotype of another, high base
// qualities), keeping only those whose raw sum flush-to-zero changes; it
// fails if there are none, so that the tests using them can tell a
// kernel that flushes from one that does not.
func subnormalGroups(t *testing.T) []Group {
	t.Helper()
	hap := []byte(strings.Repeat("CAG", 40))
	codes, _ := encodeBases(nil, hap)
	var g Group
	g.Haplotypes = [][]byte{hap}
	for n := 4; n <= 40; n++ {
		for _, q := range []byte{30, 40, 50} {
			r := Read{Bases: []byte(strings.Repeat("T", n))}
			for _, qs := range []*[]byte{&r.BaseQuals, &r.InsQuals, &r.DelQuals, &r.GCPQuals} {
				*qs = bytes.Repeat([]byte{q}, n)
			}
			var p preparedRead
			p.prepare(&r)
			s := make([]float32, len(hap)+1)
			a := forwardFloat(p.rows32, codes, initial32, s, slices.Clone(s), slices.Clone(s))
			b := forwardKeepingSubnormals(p.rows32, codes, initial32)
			if math.Float32bits(a) != math.Float32bits(b) {
				g.Reads = append(g.Reads, r)
			}
		}
	}
	if len(g.Reads) == 0 {
		t.Fatal("no pair reaches the subnormal range: the flush-to-zero tests would test nothing")
	}
	return []Group{g}
}

// TestForwardFloatFlushes: the portable float pass agrees with the SIMD
// kernels (FTZ set in them) also where flushing changes the raw sum.
func TestForwardFloatFlushes(t *testing.T) {
	groups := subnormalGroups(t)
	t.Logf("%d pairs whose raw float sum flush-to-zero changes", groups[0].Pairs())
	want := rawSums(goLaneKernel, groups)
	for _, k := range gklLaneKernels.available()[1:] {
		sameRaw(t, k.name, want, rawSums(k, groups), "go", k.name)
	}
}
