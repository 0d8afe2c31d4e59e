package profile

import (
	"math"

	"github.com/hmmgo/hmmgo/easel"
)

// HMMER adds log probabilities with a lookup table (p7_FLogsum) rather
// than exactly; its null2 corrections go through it, so we use the same
// table, built the same way, with the same truncating index.
const (
	logsumScale = 1000.0
	logsumTable = 16000
)

var flogsumTable = func() [logsumTable]float32 {
	var t [logsumTable]float32
	for i := range t {
		t[i] = float32(easel.Log(1.0 + easel.Exp(float64(-i)/logsumScale)))
	}
	return t
}()

// FLogsum returns an approximation of log(exp(a) + exp(b)) exactly as
// HMMER 3.3.2 computes it.
func FLogsum(a, b float32) float32 {
	max, min := b, b // C's ESL_MAX(a,b) and ESL_MIN(a,b)
	if a > b {
		max = a
	}
	if a < b {
		min = a
	}
	if math.IsInf(float64(min), -1) || max-min >= 15.7 {
		return max
	}
	return max + flogsumTable[int(float32(max-min)*logsumScale)]
}
