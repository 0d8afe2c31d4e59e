package easel

import "math"

// Provisional stand-ins until the glibc-exact versions land (readers branch).
func Expf(x float32) float32          { return float32(math.Exp(float64(x))) }
func SSEExpf(x float32) float32       { return float32(math.Exp(float64(x))) }
func Exp(x float64) float64           { return math.Exp(x) }
func Log(x float64) float64           { return math.Log(x) }
func Logf(x float32) float32          { return float32(math.Log(float64(x))) }
