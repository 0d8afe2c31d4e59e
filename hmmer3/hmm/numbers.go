package hmm

import (
	"math"
	"strconv"

	"github.com/hmmgo/hmmgo/easel"
)

// pow10 holds the powers of ten that a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseReal converts a token as C's atof would, but refuses anything
// that is not entirely a number. Model files write values as "d.ddddd";
// for those a single division of two exact doubles gives the correctly
// rounded result that strtod gives, without allocating.
func parseReal(tok []byte) (float64, bool) {
	if v, ok := parseDecimal(tok); ok {
		return v, true
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true // ±inf or 0, as strtod returns
		}
		return 0, false
	}
	return v, true
}

// parseDecimal handles [-+]digits[.digits] with at most 15 significant
// digits: an exact integer mantissa divided by an exact power of ten is
// one correctly rounded operation.
func parseDecimal(tok []byte) (float64, bool) {
	i, neg := 0, false
	if len(tok) > 0 && (tok[0] == '-' || tok[0] == '+') {
		neg = tok[0] == '-'
		i++
	}
	var mant uint64
	digits, sig, frac, seenDot := 0, 0, 0, false
	for ; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if mant != 0 || c != '0' {
				sig++
			}
			mant = mant*10 + uint64(c-'0')
			if seenDot {
				frac++
			}
		case c == '.' && !seenDot:
			seenDot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || sig > 15 || frac >= len(pow10) {
		return 0, false
	}
	v := float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// parseInt converts a whole-token integer (what atoi reads when the
// token is well formed).
func parseInt(tok []byte) (int, bool) {
	v, err := strconv.Atoi(string(tok))
	return v, err == nil
}

// Header values are read with C's atof and atoi, which take the longest
// numeric prefix and ignore the rest: Pfam files of the HMMER 3.0 era
// write "GA 20.00 20.00;". These accept the same prefixes, but still
// refuse a token that does not start with a number.

// realPrefix reads a token's leading decimal number, as atof would.
func realPrefix(tok []byte) (float64, bool) {
	if v, ok := parseReal(tok); ok {
		return v, true
	}
	n := numericPrefix(tok, true)
	if n == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(tok[:n]), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

// intPrefix reads a token's leading integer, as atoi would.
func intPrefix(tok []byte) (int, bool) {
	n := numericPrefix(tok, false)
	if n == 0 {
		return 0, false
	}
	v, err := strconv.Atoi(string(tok[:n]))
	return v, err == nil
}

// numericPrefix returns the length of the leading [sign]digits (and, for
// reals, [.digits][e[sign]digits]) of tok; 0 if it has no digits.
func numericPrefix(tok []byte, real bool) int {
	i := 0
	if i < len(tok) && (tok[i] == '-' || tok[i] == '+') {
		i++
	}
	digits := 0
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		digits++
	}
	if real && i < len(tok) && tok[i] == '.' {
		for i++; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if real && i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		j := i + 1
		if j < len(tok) && (tok[j] == '-' || tok[j] == '+') {
			j++
		}
		if j < len(tok) && tok[j] >= '0' && tok[j] <= '9' {
			for i = j; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			}
		}
	}
	return i
}

// probability converts one HMMER3 parameter field: "*" is probability
// 0, anything else is -ln(p), read back as HMMER does with
// expf(-(float)atof(tok)) under flush-to-zero. Valid fields are
// non-negative numbers; "inf" is accepted as probability 0.
func probability(tok []byte) (float32, bool) {
	if len(tok) == 1 && tok[0] == '*' {
		return 0, true
	}
	v, ok := parseReal(tok)
	if !ok || math.IsNaN(v) || v < 0 {
		return 0, false
	}
	return easel.ExpfFTZ(float32(-v)), true
}
