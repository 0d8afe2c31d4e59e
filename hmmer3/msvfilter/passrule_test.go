package msvfilter

import "testing"

// The pass's shape by its size, at the passes measured on an H100
// (docs/BENCHMARKS.md, "The MSV pass on large databases"; 132 SMs):
// T = 2 where it ran shorter, T = 4 where it did not, T = 1 at M = 10
// and 16 whatever the size.
func TestMSVNodesForPass(t *testing.T) {
	const sms = 132
	for _, c := range []struct {
		M                 int
		residues, longest int
		wantT             int
	}{
		{25, 164315073, 4673, 2}, // 1,000 M: T = 2 1.014 ms, T = 4 1.369
		{32, 177271067, 4296, 2}, // 1,000 M: 1.147 against 1.474
		{32, 51162118, 3541, 2},  // 175 M: 0.417 against 0.498
		{25, 16998511, 2760, 4},  // 175 M: 0.254 against 0.245
		{25, 15000000, 3359, 4},  // 100 M (earlier sizes): T = 4 measured
		{32, 22300000, 3535, 4},
		{28, 0, 0, 4},            // no pass: the precompiled shape
		{10, 415386869, 4680, 1}, // 1,000 M: T = 2 1.505 ms, T = 1 0.954
		{16, 86530682, 4148, 1},
		{40, 400000000, 4000, 1},
	} {
		ps := PassSize{Targets: 1, Residues: c.residues, Longest: c.longest}
		if got := shapeForNodes(c.M, 21, msvNodesForPass(c.M, ps, sms)).T; got != c.wantT {
			t.Errorf("M=%d, %d residues, longest %d: T = %d, want %d", c.M, c.residues, c.longest, got, c.wantT)
		}
	}
}
