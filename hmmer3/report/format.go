// Package report writes HMMER 3.3.2 hmmsearch's outputs byte for byte:
// the human-readable report (header, per-query hit lists, domain tables
// and alignments, pipeline statistics), the --tblout and --domtblout
// tables and their trailer.
//
// Numbers are formatted with the same C printf conversions as HMMER. Go's
// fmt gives the same text for every fixed-precision verb used here; the
// exceptions are handled explicitly: C's bare %g (6 significant digits,
// written %.6g here), infinities and NaNs ("inf", "-nan"), and string
// widths and precisions, which C counts in bytes and Go in runes.
package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// log2e converts nats to bits (HMMER's eslCONST_LOG2R).
const log2e = 1.44269504088896341

// writer remembers the first write error so that formatting code can
// print freely and check once.
type writer struct {
	w   io.Writer
	err error
}

func (w *writer) printf(format string, args ...any) {
	if w.err != nil {
		return
	}
	_, w.err = fmt.Fprintf(w.w, format, args...)
}

func (w *writer) str(s string) {
	if w.err != nil {
		return
	}
	_, w.err = io.WriteString(w.w, s)
}

// ljust is C's "%-*s": s padded on the right to w bytes, never cut.
func ljust(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-len(s))
}

// rjust is C's "%*s".
func rjust(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}

// trunc is C's "%.*s": at most n bytes of s.
func trunc(s string, n int) string {
	if n < 0 || len(s) <= n {
		return s
	}
	return s[:n]
}

// num formats one float with a printf verb as glibc would, including the
// non-finite values Go spells differently. x86 arithmetic produces NaNs
// with the sign bit set, which glibc prints as "-nan".
func num(verb string, x float64) string {
	if !math.IsInf(x, 0) && !math.IsNaN(x) {
		return fmt.Sprintf(verb, x)
	}
	s := "inf"
	switch {
	case math.IsNaN(x):
		s = "-nan"
	case x < 0:
		s = "-inf"
	}
	// Keep the field width of the verb (digits between '%' and '.' or the
	// conversion letter); a '-' flag left-justifies.
	spec := verb[1 : len(verb)-1]
	left := strings.HasPrefix(spec, "-")
	spec = strings.TrimLeft(spec, "-+ #0")
	if i := strings.IndexByte(spec, '.'); i >= 0 {
		spec = spec[:i]
	}
	width := 0
	fmt.Sscanf(spec, "%d", &width)
	if left {
		return ljust(s, width)
	}
	return rjust(s, width)
}
