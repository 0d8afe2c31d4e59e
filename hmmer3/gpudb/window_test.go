package gpudb

import (
	"math/rand/v2"
	"testing"
)

// TestWindowsCoverEveryDiagonal checks what SSV's exactness needs of the
// windows: every stretch of overlap+1 residues ending at any position
// (clipped at the target's start) lies whole in one window, no window is
// longer than step+overlap, and short targets stay whole.
func TestWindowsCoverEveryDiagonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for range 300 {
		step, overlap := 1+rng.IntN(50), rng.IntN(40)
		var dsqs [][]byte
		for range 5 {
			dsqs = append(dsqs, make([]byte, rng.IntN(6*(step+overlap)+2)))
		}
		idx := []int{0, 1, 2, 3, 4}
		es := windows(dsqs, idx, step, overlap)
		for _, i := range idx {
			L := len(dsqs[i])
			var mine []entry
			for _, e := range es {
				if e.i == i {
					if e.off < 0 || e.n < 0 || e.off+e.n > L || e.n > step+overlap && e.n != L {
						t.Fatalf("step %d overlap %d L %d: bad window %+v", step, overlap, L, e)
					}
					mine = append(mine, e)
				}
			}
			if L <= step+overlap && (len(mine) != 1 || mine[0].n != L) {
				t.Fatalf("step %d overlap %d: target of %d cut into %+v", step, overlap, L, mine)
			}
			for p := range L {
				lo := max(0, p-overlap)
				ok := false
				for _, e := range mine {
					ok = ok || e.off <= lo && p < e.off+e.n
				}
				if !ok {
					t.Fatalf("step %d overlap %d L %d: no window holds [%d, %d] (%+v)", step, overlap, L, lo, p, mine)
				}
			}
		}
	}
}
