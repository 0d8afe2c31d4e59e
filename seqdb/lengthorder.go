package seqdb

import (
	"encoding/binary"
	"fmt"
)

// EncodeLengthOrder is the LORD section of order (sequence numbers,
// longest first, ties in database order, as lenorder.LongestFirst
// gives): one little-endian uint32 each. Sequence numbers must fit 32
// bits, as the GPU block tables' do.
func EncodeLengthOrder(order []int) ([]byte, error) {
	b := make([]byte, 4*len(order))
	for k, i := range order {
		if i < 0 || i > 1<<32-1 {
			return nil, fmt.Errorf("seqdb: sequence number %d does not fit the length order's 32 bits", i)
		}
		binary.LittleEndian.PutUint32(b[4*k:], uint32(i))
	}
	return b, nil
}

// LengthOrder returns the sequence numbers longest first, ties in
// database order, from the file's LORD section; nil (and no error) when
// the file has none (made before it existed, or with makedb
// --gpu-layouts none). The section is checked the first time it is
// asked for: a permutation of 0..n-1 whose lengths never increase, ties
// in database order; anything else is an error naming the file. Callers
// must not modify the slice.
func (db *DB) LengthOrder() ([]int, error) {
	db.orderOnce.Do(func() {
		b, ok := db.find(TagLengthOrder, 0)
		if !ok {
			return
		}
		order, err := db.decodeLengthOrder(b)
		if err != nil {
			db.orderErr = &Error{db.path, err.Error()}
			return
		}
		db.order = order
	})
	return db.order, db.orderErr
}

func (db *DB) decodeLengthOrder(b []byte) ([]int, error) {
	n := db.nseq
	if len(b) != 4*n {
		return nil, fmt.Errorf("section %s has %d bytes for %d sequences (want %d)", TagLengthOrder, len(b), n, 4*n)
	}
	order := make([]int, n)
	seen := make([]uint64, (n+63)/64)
	prev, prevLen := -1, 0
	for k := range order {
		i := int(binary.LittleEndian.Uint32(b[4*k:]))
		if i >= n || seen[i/64]&(1<<(i%64)) != 0 {
			return nil, fmt.Errorf("section %s is not an order of the %d sequences (entry %d)", TagLengthOrder, n, k+1)
		}
		seen[i/64] |= 1 << (i % 64)
		L := db.Len(i)
		if k > 0 && (L > prevLen || L == prevLen && i < prev) {
			return nil, fmt.Errorf("section %s is not longest first at entry %d", TagLengthOrder, k+1)
		}
		order[k], prev, prevLen = i, i, L
	}
	return order, nil
}
