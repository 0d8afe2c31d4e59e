// Package fwdback holds HMMER3's float dynamic programming over the
// striped odds profile: Forward and Backward with sparse rescaling,
// posterior decoding, null2, optimal-accuracy alignment and stochastic
// traceback. Every kernel repeats HMMER 3.3.2's SSE operations lane by
// lane in the same order, so scores agree to the last bit.
package fwdback

import (
	"os"
	"strconv"
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/hugemem"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// Special-state cells of a row, HMMER's p7X order.
const (
	XE = iota
	XN
	XJ
	XB
	XC
	XScale
	NXCells
)

// Cells of one striped vector triple (HMMER's p7X_M, D, I).
const (
	cM = 0
	cD = 1
	cI = 2
)

// Matrix is a striped DP matrix (P7_OMX): Q vector triples per row, and
// the special states of every row. A parser matrix keeps one vector row
// and all special rows.
type Matrix struct {
	M, Q, L      int
	full         bool
	dp           []vec // rows * Q * 3
	X            [][NXCells]float32
	TotScale     float32
	HasOwnScales bool

	// Workspace of the domain kernels: each row's posterior scale
	// (Decoding) and the transition masks of optimal accuracy.
	totr  []float32
	mask  []uint32
	ddAll [4]uint32
	plain []uint8 // per vector q: are all its eight masks all ones?

	// The transitions in the wide row kernels' layout (wideTransitions).
	tw []vec

	// Two rows in which Forward and Backward compute a streamed matrix's
	// rows (streams).
	ring []vec

	// Where dp lives when it is large, for matrices made by
	// NewHugePageMatrix; nil: the Go heap.
	mem *hugemem.Buffer
}

// NewMatrix returns an empty matrix; Forward and friends size it.
func NewMatrix() *Matrix { return &Matrix{} }

// NewHugePageMatrix returns an empty matrix whose cells, once they take
// a huge page or more, live outside the Go heap in huge pages
// (internal/hugemem): domain definition's matrices, hundreds of MB a core
// for long models, otherwise cost a page fault every 4 KiB at first touch
// and tenths of a second to unmap at exit (docs/BENCHMARKS.md). The
// cells go back to the kernel when the matrix grows past them, at
// Release, or once the matrix is unreachable, so its owner must keep it
// reachable while a kernel runs on it, as a worker holding its scratch
// does.
func NewHugePageMatrix() *Matrix { return &Matrix{mem: new(hugemem.Buffer)} }

// Release frees the matrix's cells (and returns huge-page ones to the
// kernel at once); the next call that sizes it allocates them again.
func (mx *Matrix) Release() {
	if mx.mem != nil {
		mx.mem.Release()
	}
	mx.dp, mx.X, mx.totr, mx.mask, mx.plain = nil, nil, nil, nil, nil
}

// Bytes is the memory the matrix holds for its cells and special rows.
func (mx *Matrix) Bytes() int {
	return cap(mx.dp)*int(unsafe.Sizeof(vec{})) + cap(mx.X)*int(unsafe.Sizeof(mx.X[0])) + 4*cap(mx.totr) + 4*cap(mx.mask) + cap(mx.plain)
}

func (mx *Matrix) grow(M, L int, full bool) {
	Q := oprofile.NumVecF(M)
	rows := 1
	if full {
		rows = L + 1
	}
	mx.M, mx.Q, mx.L, mx.full = M, Q, L, full
	mx.dp = mx.cells(rows * Q * 3)
	if cap(mx.X) < L+1 {
		mx.X = make([][NXCells]float32, L+1, withHeadroom(L+1))
	} else {
		mx.X = mx.X[:L+1]
	}
}

// cells returns mx.dp sized to need vectors, reallocated with headroom
// when they do not fit; in huge pages where the matrix wants them and
// need is a huge page or more (smaller ones stay on the heap, which
// keeps them 16-byte aligned as the SSE kernels require).
func (mx *Matrix) cells(need int) []vec {
	if cap(mx.dp) >= need {
		return mx.dp[:need]
	}
	const vecBytes = int(unsafe.Sizeof(vec{}))
	if mx.mem != nil && need*vecBytes >= hugemem.MinBytes {
		f := mx.mem.Resize(4*need, 4*withHeadroom(need))
		return unsafe.Slice((*vec)(unsafe.Pointer(&f[0])), cap(f)/4)[:need]
	}
	return make([]vec, need, withHeadroom(need))
}

// withHeadroom is the capacity a matrix grows to when n cells do not fit:
// a quarter more. Domain definition reuses one pair of full matrices for
// every envelope of a model, and envelope lengths scatter around the
// model's length, so growing to the exact size reallocated at nearly
// every new longest envelope: with 24 models against 5M residues, 217
// allocations and 7 GB that the runtime had to clear (make zeroes reused
// heap memory), 1.1 of 24 CPU seconds. With the headroom a worker's
// matrices are allocated about once.
//
// Nothing relies on those zeros, nor on a reused buffer being clean:
// every cell a kernel reads was written earlier in the same call chain.
// Forward writes row 0 (zeros) and all three cells of every vector of
// rows 1..L before the next row reads them; Backward writes row L whole,
// then every I, D and M cell of row i in phase 1 before phases 3-5 and
// row i-1 read them, and never reads its row 0; decoding clears the
// posterior row 0 and writes every cell of rows 1..L; optimal accuracy
// sets its row 0 to -inf and writes rows 1..L in order; null2 clears the
// row it sums into; the stochastic and OA tracebacks read rows 0..L of
// matrices so filled. HMMER's own matrices are reused uncleared as well.
func withHeadroom(n int) int { return n + n/4 }

// streamMin is the size from which a full matrix is streamed: Forward
// and Backward compute each row in a two-row ring (ringRow) and copy it
// into place with non-temporal stores (put). Such a matrix does not fit
// a core's caches and is read back only after the whole pass, and
// ordinary stores would first read every line they overwrite. On the
// Intel hosts of the GPU benchmarks that made a 2,405 x 2,445 envelope's
// Forward a third faster and the 24-model search about 7 % faster; on
// the AMD dev machine one envelope was 10-15 % slower (docs/BENCHMARKS.md).
// So the default is 2 MiB, a core's L2 on those Intel hosts, on Intel
// CPUs, and never elsewhere. HMMGO_STREAM_MIN=bytes sets it (0: never).
var streamMin = envBytes("HMMGO_STREAM_MIN", defaultStreamMin())

func defaultStreamMin() int {
	if simd.Intel {
		return 2 << 20
	}
	return 0
}

// streams reports whether Forward and Backward stream mx's rows.
func (mx *Matrix) streams() bool {
	return useAsm() && mx.full && streamMin > 0 && len(mx.dp)*int(unsafe.Sizeof(vec{})) >= streamMin
}

// ringRow returns the ring row in which row i is computed.
func (mx *Matrix) ringRow(i int) []vec {
	n := mx.Q * 3
	if cap(mx.ring) < 2*n {
		mx.ring = make([]vec, 2*n)
	}
	mx.ring = mx.ring[:2*n]
	return mx.ring[(i&1)*n : (i&1+1)*n]
}

// put copies row i, computed in ring row r, into the matrix with
// non-temporal stores; the pass ends with storeFence. Those stores fault
// on an address that is not 16-byte aligned, which Go's allocator does
// not promise for a []vec (its size classes give it, and huge-page
// mappings are page-aligned): such a row is copied plainly.
func (mx *Matrix) put(i int, r []vec) {
	row := mx.row(i)
	if uintptr(unsafe.Pointer(&row[0]))%16 != 0 {
		copy(row, r)
		return
	}
	streamRowSSE(asVec4(row), asVec4(r), len(r))
}

// row returns row i's vector triples (row 0 for parser matrices).
func (mx *Matrix) row(i int) []vec {
	if !mx.full {
		i = 0
	}
	n := mx.Q * 3
	return mx.dp[i*n : (i+1)*n]
}

// At returns cell s (cM, cD, cI) of node k (1..M) in row i of a full matrix.
func (mx *Matrix) at(i, k, s int) float32 {
	q, z := (k-1)%mx.Q, (k-1)/mx.Q
	return mx.row(i)[q*3+s][z]
}

// flat views vectors as their floats, lane z of vs[j] at 4*j+z: the Go
// kernels index single lanes instead of copying four-lane values.
func flat(vs []vec) []float32 {
	if len(vs) == 0 {
		return nil
	}
	return unsafe.Slice(&vs[0][0], 4*len(vs))
}

// wide returns tf in the wide row kernels' layout, kept in mx, or nil
// when those kernels do not run.
func (mx *Matrix) wide(tf []vec, Q int) []vec {
	if !useWide() {
		return nil
	}
	mx.tw = wideTransitions(tf, Q, mx.tw)
	return mx.tw
}

// wideTransitions lays out the transitions FBM..FII of vectors q = 2p and
// 2p+1 side by side, so that one 32-byte load gives both: pair p is 14
// vectors, transition t of q = 2p at 14p+2t and of q = 2p+1 at 14p+2t+1
// (zero when Q is odd and 2p+1 = Q). It reuses dst's memory. Rebuilt per
// Forward or Backward call, it costs one copy of the table, under 1% of
// even a parser's time: the profile's layout is HMMER's, which the SSE
// kernels and the other consumers of oprofile.FBProfile read.
func wideTransitions(tf []vec, Q int, dst []vec) []vec {
	n := 14 * ((Q + 1) / 2)
	if cap(dst) < n {
		dst = make([]vec, n)
	}
	dst = dst[:n]
	for q := 0; q < Q; q++ {
		w := dst[14*(q/2)+q%2:]
		for t := 0; t < 7; t++ {
			w[2*t] = tf[7*q+t]
		}
	}
	if Q%2 == 1 {
		w := dst[14*(Q/2)+1:]
		for t := 0; t < 7; t++ {
			w[2*t] = vec{}
		}
	}
	return dst
}

// envBytes reads a size in bytes from environment variable name, or
// returns def when it is unset or not a number (a benchmark knob).
func envBytes(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}
