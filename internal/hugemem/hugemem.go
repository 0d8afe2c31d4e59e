// Package hugemem keeps large float32 buffers outside the Go heap, in
// anonymous mappings advised for transparent huge pages (Linux's
// MADV_HUGEPAGE; the hosts run THP in "madvise" mode, so the Go heap
// gets 4 KiB pages). Domain definition's DP matrices reach hundreds of
// megabytes a core; in 4 KiB pages their first touch costs a page fault
// every 4 KiB and the process's exit spends tenths of a second unmapping
// them (docs/BENCHMARKS.md, issue 5). In 2 MiB pages both are 512 times
// fewer.
//
// The memory holds no pointers, so the collector never needs to scan it,
// and it is never reused while a Buffer owns it: a Buffer's mapping goes
// back to the kernel only at Resize (when it must grow), Release, or a
// cleanup once the Buffer is unreachable. Slices a Buffer handed out are
// therefore valid only while the Buffer is reachable and not resized or
// released: the owner must outlive every use of them.
//
// Buffers smaller than MinBytes, other systems, and failed mappings get
// ordinary Go slices.
package hugemem

import (
	"os"
	"runtime"
	"sync/atomic"
)

// MinBytes is the smallest buffer that gets a mapping of its own: one
// huge page. Below it a mapping saves nothing and rounds up memory.
const MinBytes = 2 << 20

// reserveFactor is how many times the floats asked for a mapping
// reserves. A mapping costs memory only where it is touched, but growing
// one means a fresh mapping whose pages fault in and are zeroed again
// (the heap, by contrast, reuses freed memory): domain definition's
// matrices grow with the longest envelope, and with 25% headroom the 24
// models' run on 2 cores mapped 3.4 GB for a 0.9 GB peak, spending more
// kernel time zeroing pages than the 4 KiB heap pages had. Growing
// fourfold, the pages faulted in stay within a third more than the
// largest matrix.
const reserveFactor = 4

// pageBytes is the huge page size mappings are aligned and rounded to.
const pageBytes = 2 << 20

// Buffer owns one []float32 that may live in a mapping. The zero value
// is empty and ready; a Buffer must not be copied once used.
type Buffer struct {
	st *state
}

// state is what the cleanup frees: a separate object, so that the
// cleanup does not keep its Buffer reachable.
type state struct {
	floats []float32
	m      mapping // zero when floats is a Go slice
}

// Resize returns the buffer's floats with length n, keeping the
// current memory when it holds n floats (its contents then are whatever
// was there) and otherwise replacing it, after freeing the old memory,
// with fresh zeroed memory of capacity at least capacity (at least n;
// a mapping reserves reserveFactor times n).
func (b *Buffer) Resize(n, capacity int) []float32 {
	if b.st == nil {
		b.st = &state{}
		runtime.AddCleanup(b, (*state).free, b.st)
	}
	s := b.st
	if n <= cap(s.floats) {
		s.floats = s.floats[:n]
		return s.floats
	}
	s.free()
	capacity = max(capacity, n)
	if capacity*4 >= MinBytes && !disabled {
		if f, m, ok := mapFloats(max(capacity, reserveFactor*n)); ok {
			s.floats, s.m = f[:n], m
			mappedBytes.Add(int64(m.bytes()))
			return s.floats
		}
	}
	s.floats = make([]float32, n, capacity)
	return s.floats
}

// Floats returns the buffer's current floats (nil when empty).
func (b *Buffer) Floats() []float32 {
	if b.st == nil {
		return nil
	}
	return b.st.floats
}

// Cap is how many floats the buffer holds without replacing its memory.
func (b *Buffer) Cap() int {
	if b.st == nil {
		return 0
	}
	return cap(b.st.floats)
}

// Mapped reports whether the buffer's memory is a mapping of its own.
func (b *Buffer) Mapped() bool { return b.st != nil && b.st.m.bytes() > 0 }

// Release frees the buffer's memory now (unmapping it); the buffer is
// empty after, and slices it handed out must not be used.
func (b *Buffer) Release() {
	if b.st != nil {
		b.st.free()
	}
}

func (s *state) free() {
	if n := s.m.bytes(); n > 0 {
		unmap(s.m)
		mappedBytes.Add(-int64(n))
	}
	s.floats, s.m = nil, mapping{}
}

// mappedBytes is the size of all live mappings, for tests and stage
// reports.
var mappedBytes atomic.Int64

// MappedBytes returns the bytes mapped by live Buffers.
func MappedBytes() int64 { return mappedBytes.Load() }

// disabled turns mappings off (HMMGO_HUGEMEM=off), for A/B runs.
var disabled = os.Getenv("HMMGO_HUGEMEM") == "off"

// roundUp rounds n up to a multiple of pageBytes.
func roundUp(n int) int { return (n + pageBytes - 1) &^ (pageBytes - 1) }
