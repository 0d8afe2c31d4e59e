package fwdback

import (
	"fmt"
	"math/rand"
	"testing"
	"unsafe"

	"github.com/hmmgo/hmmgo/internal/simd"
)

// withStreamMin runs fn with streamMin set to n.
func withStreamMin(n int, fn func()) {
	old := streamMin
	streamMin = n
	defer func() { streamMin = old }()
	fn()
}

// TestStreamRow copies 0 to 13 vectors (whole cache lines and tails) into
// a 16-byte aligned buffer and checks the copy and the guard vectors
// after it.
func TestStreamRow(t *testing.T) {
	if !useAsm() {
		t.Skip("no assembly kernels on this machine")
	}
	const guard = 3
	for n := 0; n <= 13; n++ {
		src, dst := make([]vec, n+1), make([]vec, n+guard)
		for j := range src {
			src[j] = vec{float32(j), -float32(j), 1.5, float32(n)}
		}
		for j := range dst {
			dst[j] = vec{7, 7, 7, 7}
		}
		streamRowSSE(asVec4(dst), asVec4(src), n)
		storeFence()
		for j := range dst {
			want := vec{7, 7, 7, 7}
			if j < n {
				want = src[j]
			}
			if dst[j] != want {
				t.Fatalf("n=%d: vector %d is %v, want %v", n, j, dst[j], want)
			}
		}
	}
}

// TestStreamedMatrices is TestRowKernelsRandom with every full matrix
// streamed: rows computed in the ring and copied into place must give
// the Go lanes' matrices bit for bit, through rescaling, Backward's own
// scales and wrong guesses of E.
func TestStreamedMatrices(t *testing.T) {
	if len(simd.Available()) < 2 {
		t.Skip("no assembly row kernels on this machine; nothing is streamed")
	}
	withStreamMin(1, func() {
		rng := rand.New(rand.NewSource(5))
		streamed := 0
		for trial := 0; trial < 200; trial++ {
			om, dsq := randomRowCase(rng, trial)
			compareLevels(t, "random, streamed", dsq, om)
			mx := NewMatrix()
			mx.grow(om.M, len(dsq), true)
			if mx.streams() {
				streamed++
			}
		}
		if streamed == 0 {
			t.Fatal("no matrix was streamed")
		}
	})
}

// TestStreamedMatricesReused: one pair of matrices, streamed, serves
// targets and models of changing sizes in turn, as domain definition's
// pair does, and must hold what fresh, unstreamed matrices hold, bit for
// bit. It guards the ring: rows computed in it must survive its reuse at
// another row width (a ring regrown between two rows of a pass loses the
// row before).
func TestStreamedMatricesReused(t *testing.T) {
	if !useAsm() {
		t.Skip("no assembly kernels on this machine; nothing is streamed")
	}
	rng := rand.New(rand.NewSource(8))
	fwd, bck := NewMatrix(), NewMatrix()
	streamed := 0
	for trial := 0; trial < 300; trial++ {
		om, dsq := randomRowCase(rng, trial)
		var want, got fbResult
		withStreamMin(0, func() { want = runFB(level, dsq, om, true) })
		withStreamMin(1, func() {
			got.fsc, got.ferr = Forward(dsq, om, fwd, true)
			if got.ferr == nil {
				got.bsc, got.berr = Backward(dsq, om, fwd, bck, true)
			}
			if fwd.streams() {
				streamed++
			}
		})
		what := fmt.Sprintf("trial %d (M=%d L=%d)", trial, om.M, len(dsq))
		if !sameBits(got.fsc, want.fsc) || (got.ferr == nil) != (want.ferr == nil) {
			t.Fatalf("%s: Forward %v (%v), fresh %v (%v)", what, got.fsc, got.ferr, want.fsc, want.ferr)
		}
		if where, ok := sameMatrix(fwd, want.fwd); !ok {
			t.Fatalf("%s: Forward matrix differs (%s)", what, where)
		}
		if want.ferr != nil {
			continue
		}
		if !sameBits(got.bsc, want.bsc) || (got.berr == nil) != (want.berr == nil) {
			t.Fatalf("%s: Backward %v (%v), fresh %v (%v)", what, got.bsc, got.berr, want.bsc, want.berr)
		}
		if len(dsq) > 0 {
			// Backward leaves row 0 alone unless it is row L, so a reused
			// matrix keeps old cells there.
			clear(bck.row(0))
		}
		if where, ok := sameMatrix(bck, want.bck); !ok {
			t.Fatalf("%s: Backward matrix differs (%s)", what, where)
		}
	}
	if streamed == 0 {
		t.Fatal("no matrix was streamed")
	}
}

// TestPutMisaligned: a matrix whose cells are not 16-byte aligned gets
// its rows copied plainly (non-temporal stores would fault).
func TestPutMisaligned(t *testing.T) {
	const Q, rows = 3, 4
	n := 3 * Q * rows
	f := make([]float32, 4*n+1)
	mx := &Matrix{M: 12, Q: Q, L: rows - 1, full: true}
	mx.dp = unsafe.Slice((*vec)(unsafe.Pointer(&f[1])), n)
	src := mx.ringRow(2)
	for j := range src {
		src[j] = vec{float32(j), 2, 3, 4}
	}
	mx.put(2, src)
	for j, v := range mx.row(2) {
		if v != src[j] {
			t.Fatalf("vector %d is %v, want %v", j, v, src[j])
		}
	}
}
