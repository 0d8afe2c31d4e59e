package msvfilter

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The portable fast kernel: eight byte cells per uint64 ("SIMD within a
// register"). MSV has no dependency inside a row, so a row is computed
// eight nodes at a time from the previous row shifted by one byte.
//
// SSV is computed in the same unsigned form: a cell w = v+128 of HMMER's
// signed SSV cell v obeys w' = (w + bias) -sat cost, floored at 0 as SSV
// floors at the begin level. HMMER's unsigned view of v is w+128 while
// w < 128; a cell reaching w >= 127-bias is exactly HMMER's overflow test
// (xE >= 255-bias), and before that point w never wraps.

const (
	lo7  = 0x7f7f7f7f7f7f7f7f
	hi1  = 0x8080808080808080
	ones = 0x0101010101010101
)

func splat8(b uint8) uint64 { return uint64(b) * ones }

// addsat8 adds bytes lane by lane, saturating at 255.
func addsat8(a, b uint64) uint64 {
	s := ((a & lo7) + (b & lo7)) ^ ((a ^ b) & hi1)
	carry := ((a & b) | ((a | b) &^ s)) & hi1
	return s | (carry>>7)*0xff
}

// subsat8 subtracts bytes lane by lane, saturating at 0.
func subsat8(a, b uint64) uint64 {
	d := ((a | hi1) - (b & lo7)) ^ ((a ^ ^b) & hi1)
	borrow := ((^a & b) | (^(a ^ b) & d)) & hi1
	return d &^ ((borrow >> 7) * 0xff)
}

// max8 is the lane-wise unsigned maximum.
func max8(a, b uint64) uint64 { return subsat8(a, b) + b }

func hmax8(a uint64) int {
	m := 0
	for ; a != 0; a >>= 8 {
		if v := int(a & 0xff); v > m {
			m = v
		}
	}
	return m
}

// kernel is one reusable set of padded rows and cost vectors.
type kernel struct {
	prev, cur []byte
}

// rows returns two zeroed rows with room for unaligned 8-byte loads:
// index 0 is node 0 (always 0) and nodes run to M padded to a multiple of 8.
func (kn *kernel) rows(M int) (prev, cur []byte) {
	n := (M+7)/8*8 + 8
	if cap(kn.prev) < n {
		kn.prev, kn.cur = make([]byte, n), make([]byte, n)
	}
	prev, cur = kn.prev[:n], kn.cur[:n]
	for i := range prev {
		prev[i], cur[i] = 0, 0
	}
	return prev, cur
}

var kernels = sync.Pool{New: func() any { return new(kernel) }}

func swarScore(dsq []byte, om *oprofile.MSVProfile) float32 {
	kn := kernels.Get().(*kernel)
	defer kernels.Put(kn)
	if ssvApplies(om) {
		if sc, ok := ssvDecide(swarSSVMaxCell(kn, dsq, om), om); ok {
			return sc
		}
	}
	return swarMSV(kn, dsq, om)
}

func swarSSVMaxCell(kn *kernel, dsq []byte, om *oprofile.MSVProfile) uint8 {
	costs := om.Padded
	prev, cur := kn.rows(om.M)
	bias := splat8(om.Bias)
	limit := 127 - int(om.Bias)
	var xE uint64
	for _, x := range dsq {
		c := costs[x]
		for k := 1; k <= om.M; k += 8 {
			w := subsat8(addsat8(binary.LittleEndian.Uint64(prev[k-1:]), bias), binary.LittleEndian.Uint64(c[k:]))
			binary.LittleEndian.PutUint64(cur[k:], w)
			xE = max8(xE, w)
		}
		if hmax8(xE) >= limit {
			return 255 // overflow: HMMER's view of the cell is >= 255-bias
		}
		prev, cur = cur, prev
		cur[0] = 0
	}
	return uint8(hmax8(xE) + 128)
}

func swarMSV(kn *kernel, dsq []byte, om *oprofile.MSVProfile) float32 {
	costs := om.Padded
	prev, cur := kn.rows(om.M)
	bias := splat8(om.Bias)
	b := int(om.Bias)
	base := int(om.Base)
	tjbm := int(uint8(om.TJB + om.TBM))
	tec := int(om.TEC)
	xJ := 0
	xB := satU8(base - tjbm)
	for _, x := range dsq {
		c := costs[x]
		xBv := splat8(xB)
		var xEv uint64
		for k := 1; k <= om.M; k += 8 {
			m := max8(binary.LittleEndian.Uint64(prev[k-1:]), xBv)
			m = subsat8(addsat8(m, bias), binary.LittleEndian.Uint64(c[k:]))
			binary.LittleEndian.PutUint64(cur[k:], m)
			xEv = max8(xEv, m)
		}
		xE := hmax8(xEv)
		if xE+b >= 255 {
			return float32(math.Inf(1))
		}
		xE = int(satU8(xE - tec))
		if xE > xJ {
			xJ = xE
		}
		xB = satU8(max(base, xJ) - tjbm)
		prev, cur = cur, prev
		cur[0] = 0
	}
	return finalScore(xJ, om)
}
