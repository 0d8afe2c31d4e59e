package fwdback

import (
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
