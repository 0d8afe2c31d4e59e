// Package msvfilter is HMMER3's first filter: the SSV shortcut and the
// MSV dynamic program in saturating unsigned-byte arithmetic. The score
// (or overflow) of every target is bit-identical to HMMER 3.3.2's
// p7_MSVFilter, including the cases where HMMER returns the SSV result.
package msvfilter

import "github.com/hmmgo/hmmgo/hmmer3/oprofile"

// Score returns the MSV filter score of dsq in nats, or +Inf when the
// byte arithmetic overflows (a very high score; the pipeline passes it).
// It uses the fastest kernel this machine has; every kernel gives the
// reference's result.
func Score(dsq []byte, om *oprofile.MSVProfile) float32 {
	return swarScore(dsq, om)
}
