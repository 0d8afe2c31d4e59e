//go:build !amd64

package vitfilter

import (
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// vectorScore: no vector kernels on this architecture.
func vectorScore(simd.Level, []byte, *oprofile.VitProfile) (float32, bool) { return 0, false }
