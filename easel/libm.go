package easel

import "math"

// Log, Exp and Logf are the double log and exp and the float logf that
// HMMER calls from libm. The pipeline calls these rather than package
// math so that one place decides how glibc is matched.
//
// For now they are package math's functions. glibc 2.36's versions are
// not correctly rounded and differ from Go's in the last bit on a few
// percent of doubles (Log, Exp) and on about 1 in 12,000 floats (Logf);
// glibc-exact versions replace these (see libm_test.go for the status).
func Log(x float64) float64 { return math.Log(x) }

// Exp is libm's exp in double.
func Exp(x float64) float64 { return math.Exp(x) }

// Logf is libm's logf.
func Logf(x float32) float32 { return float32(math.Log(float64(x))) }
