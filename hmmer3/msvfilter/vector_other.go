//go:build !amd64

package msvfilter

import (
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// vectorScore: no vector kernels on this architecture.
func vectorScore(simd.Level, []byte, *oprofile.MSVProfile) (float32, bool) { return 0, false }

func stripesFor(simd.Level, *oprofile.MSVProfile) *oprofile.MSVStripes { return nil }

func msvVector(simd.Level, []byte, *oprofile.MSVProfile, *oprofile.MSVStripes) float32 { return 0 }
