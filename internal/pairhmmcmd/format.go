package pairhmmcmd

import (
	"math"
	"strconv"
)

// AppendCout formats v as C++ `std::cout << v` does with default stream
// settings: %g with 6 significant digits (trailing zeros dropped, exponent
// form below 1e-4 or from 1e6 on, at least two exponent digits), and
// "inf", "-inf", "nan" as glibc prints them. Go's 'g' format with precision
// 6 follows the same rules as C's %g for finite values.
func AppendCout(dst []byte, v float64) []byte {
	if s, ok := nonFinite(v); ok {
		return append(dst, s...)
	}
	return strconv.AppendFloat(dst, v, 'g', 6, 64)
}

// AppendFixed5 formats v as C's printf("%.5f"), gpuPairHMM's matrix format.
func AppendFixed5(dst []byte, v float64) []byte {
	if s, ok := nonFinite(v); ok {
		return append(dst, s...)
	}
	return strconv.AppendFloat(dst, v, 'f', 5, 64)
}

func nonFinite(v float64) (string, bool) {
	switch {
	case math.IsInf(v, -1):
		return "-inf", true
	case math.IsInf(v, 1):
		return "inf", true
	case math.IsNaN(v):
		return "nan", true
	}
	return "", false
}
