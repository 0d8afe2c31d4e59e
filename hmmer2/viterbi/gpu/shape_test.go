package gpu

import "testing"

// TestShapeLayout checks the node layout for every model length up to
// 3,300 and some larger: each node in exactly one slot, each thread's
// nodes consecutive and following its predecessor's, padding only in
// slot C-1 of ranks from Extra on, registers and shared memory within
// bounds.
func TestShapeLayout(t *testing.T) {
	lengths := []int{5000, 8000, 12288, 20000}
	for M := 1; M <= 3300; M++ {
		lengths = append(lengths, M)
	}
	for _, M := range lengths {
		s := ShapeFor(M)
		g := s.G()
		if s.T < 1 || s.T > 32 || 32%s.T != 0 || (s.W > 1 && s.T != 32) || s.Block%32 != 0 && s.W > 1 {
			t.Fatalf("M=%d: bad shape %+v", M, s)
		}
		if s.W == 1 && s.C > maxNodesPerThreadWarp || s.W > 1 && s.W < 32 && s.C > nodesPerThreadBlock {
			t.Fatalf("M=%d: %d nodes per thread (%+v)", M, s.C, s)
		}
		if s.SharedBytes() > 227*1024 {
			t.Fatalf("M=%d: %d bytes of shared memory", M, s.SharedBytes())
		}
		next := 1
		for r := 0; r < g; r++ {
			for j := 0; j < s.C; j++ {
				k := s.node(r, j)
				switch {
				case k == 0 && (j != s.C-1 || s.Extra == 0 || r < s.Extra):
					t.Fatalf("M=%d %+v: padding at rank %d slot %d", M, s, r, j)
				case k != 0 && k != next:
					t.Fatalf("M=%d %+v: rank %d slot %d holds node %d, want %d", M, s, r, j, k, next)
				case k != 0:
					next++
				}
			}
		}
		if next != M+1 {
			t.Fatalf("M=%d %+v: %d nodes laid out", M, s, next-1)
		}
	}
}
