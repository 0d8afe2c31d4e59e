package easel

// LogTables returns copies of the bit patterns of the constants and tables
// Log and Logf use (glibc's __log_data and __logf_data), for ports of these
// functions to other processors (the GPU kernels) that must give the same
// bits: consts is (logConsts) ln2hi, ln2lo, A[0..4], B[0..10]; tab the 128
// (invc, logc) pairs; logf the 16 (invc, logc) pairs, ln2 and A[0..2].
func LogTables() (consts, tab, logf []uint64) {
	return append([]uint64(nil), logConsts[:]...), append([]uint64(nil), logTab[:]...), append([]uint64(nil), logfData[:]...)
}
