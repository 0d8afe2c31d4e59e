package gpudb

import (
	"sync"
	"testing"
)

// TestPoolReuse: a kept array comes back for a request it fits, a
// larger request gets a fresh one, and the pool keeps at most Max.
func TestPoolReuse(t *testing.T) {
	p := &Pool[byte]{Max: 2}
	a := p.Get(100)
	if len(a) != 100 {
		t.Fatalf("len %d, want 100", len(a))
	}
	a[0] = 7
	p.Put(a)
	b := p.Get(60)
	if len(b) != 60 || &b[:1][0] != &a[0] {
		t.Fatalf("Get(60) after Put of 100 bytes: a fresh array, want the kept one")
	}
	if b[0] != 7 {
		t.Errorf("the reused array was cleared: callers do not need that")
	}
	p.Put(b)
	c := p.Get(200)
	if len(c) != 200 || &c[0] == &a[0] {
		t.Fatalf("Get(200) reused a 100-byte array")
	}
	for range 3 {
		p.Put(make([]byte, 8))
	}
	if len(p.free) != 2 {
		t.Errorf("pool holds %d arrays, want Max = 2", len(p.free))
	}
	p.Put(nil)
	if len(p.free) != 2 {
		t.Errorf("Put(nil) was kept")
	}
}

// TestPoolConcurrent: concurrent users never share an array.
func TestPoolConcurrent(t *testing.T) {
	var p Pool[byte]
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 200 {
				b := p.Get(64 + r%7)
				for i := range b {
					b[i] = byte(g)
				}
				for i := range b {
					if b[i] != byte(g) {
						t.Errorf("array shared between goroutines")
						return
					}
				}
				p.Put(b)
			}
		}()
	}
	wg.Wait()
}

// TestResiduesCounted: Residues is the sum of the targets' lengths,
// counted once and the same from concurrent callers.
func TestResiduesCounted(t *testing.T) {
	dsqs := [][]byte{make([]byte, 7), nil, make([]byte, 300), make([]byte, 1)}
	db := New(nil, dsqs)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := db.Residues(); got != 308 {
				t.Errorf("Residues %d, want 308", got)
			}
		}()
	}
	wg.Wait()
	if got := (&DB{}).Residues(); got != 0 {
		t.Errorf("empty database: %d residues", got)
	}
}
