package gpudb

import "testing"

// The arena's pieces never overlap, start on arenaAlign, and stop at its
// size; reset frees them all.
func TestArenaPieces(t *testing.T) {
	a := arena{size: 4096}
	type piece struct{ off, n int }
	var got []piece
	for _, n := range []int{1, 255, 256, 257, 1000, 2000, 300} {
		off, ok := a.claim(n)
		if !ok {
			continue
		}
		if off%arenaAlign != 0 || off+n > a.size {
			t.Fatalf("piece of %d at %d in %d bytes", n, off, a.size)
		}
		for _, p := range got {
			if off < p.off+p.n && p.off < off+n {
				t.Fatalf("piece %d+%d overlaps %d+%d", off, n, p.off, p.n)
			}
		}
		got = append(got, piece{off, n})
	}
	// 1, 255, 256, 257, 1000 take 256+256+256+512+1024 bytes; 2000 does
	// not fit in the 1792 left, 300 does.
	if len(got) != 6 || got[5] != (piece{2304, 300}) {
		t.Fatalf("pieces %v", got)
	}
	if _, ok := a.claim(0); ok {
		t.Fatal("an empty piece was handed out")
	}
	if _, ok := a.claim(5000); ok {
		t.Fatal("a piece larger than the arena was handed out")
	}
	a.reset()
	if off, ok := a.claim(4096); !ok || off != 0 {
		t.Fatalf("after reset: %d %v", off, ok)
	}
	if _, ok := a.claim(1); ok {
		t.Fatal("a full arena handed out a piece")
	}
}

func TestBackSize(t *testing.T) {
	if got := backSize(100, nil); got != 4<<20 {
		t.Fatalf("first buffer %d", got)
	}
	if got := backSize(5<<20, nil); got != 5<<20 {
		t.Fatalf("first buffer for 5 MiB: %d", got)
	}
}
