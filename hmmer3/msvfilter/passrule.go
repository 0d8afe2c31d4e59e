package msvfilter

// The MSV pass's time is the longer of two bounds: its longest
// undecided target's rows, which one warp walks one after another, and
// all its undecided residues over the device's throughput. Which one
// binds depends on the pass, which the host knows before the launch
// (Scores' rest): fewer threads a target walk a row more slowly but do
// more cells a second. Measured on an H100 (docs/BENCHMARKS.md, "The MSV
// pass on large databases"), at M = 25 and 32 on T = 4 (msvNodesFor) the
// pass's longest target alone took 390-395 us (84-92 ns a row) and its
// throughput was 3.0-3.9 TCUPS; on T = 2 the pass ran 4.0-5.0 TCUPS.

// passBusy reports whether a pass of cells (undecided residues times M)
// would keep the device busy for longer than its longest target's rows
// take: more than 2,048 cells a multiprocessor for each of those rows
// (about 3 TCUPS at ~90 ns a row on 132 H100 SMs, the T = 4 pass's
// measured rates).
func passBusy(ps PassSize, M, sms int) bool {
	return ps.Residues*M > ps.Longest*sms*2048
}

// msvNodesForPass is msvNodesFor for a pass of size ps: for M = 25..32,
// 12 nodes (T = 2) instead of 6 (T = 4) when the pass is busy
// (passBusy). Measured on an H100 (docs/BENCHMARKS.md, "The MSV pass on
// large databases"), the pass on T = 2 against T = 4: 1.014 against
// 1.369 ms at M = 25 and 1.147 against 1.474 at 32 on 1,000 M random
// residues (164 M and 177 M undecided, cells 3.3 and 4.9 times the
// bound), 0.417 against 0.498 at M = 32 on 175 M (51 M undecided, 1.7
// times), and 0.254 against 0.243-0.245 at M = 25 on 175 M (17 M
// undecided, 0.57 times: not busy, T = 4 kept). Other M were not
// changed: at M = 10 and 16 (T = 1 already) and beyond 32 the
// alternatives measured no shorter or were not measured.
func msvNodesForPass(M int, ps PassSize, sms int) int {
	if M >= 25 && M <= 32 && passBusy(ps, M, sms) {
		return 12
	}
	return msvNodesFor(M)
}
