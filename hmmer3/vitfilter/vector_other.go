//go:build !amd64

package vitfilter

import (
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// vectorScore: no vector kernels on this architecture.
func vectorScore(simd.Level, []byte, *oprofile.VitProfile, *[4][2]int16) (float32, bool) {
	return 0, false
}

// pairScores: no paired kernel on this architecture.
func pairScores(*oprofile.VitProfile, []Job, []float32, multiKernel) bool { return false }
