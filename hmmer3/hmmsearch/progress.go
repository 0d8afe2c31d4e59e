package hmmsearch

import (
	"fmt"
	"io"
	"time"
)

// progress prints one updating line on a terminal's stderr as queries
// finish: how many, residues searched per second and cells (model nodes x
// residues) per second over the run so far.
type progress struct {
	w       io.Writer
	start   time.Time
	now     func() time.Time
	queries int
	res     int64
	cells   float64
	printed bool
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, start: time.Now(), now: time.Now}
}

// done records a finished query of M nodes over res residues.
func (p *progress) done(M int, res int64) {
	p.queries++
	p.res += res
	p.cells += float64(M) * float64(res)
	sec := max(p.now().Sub(p.start).Seconds(), 1e-9)
	fmt.Fprintf(p.w, "\rhmmgo hmmsearch: %d queries done in %.1f s; %.1f M residues/s, %.2f GCUPS",
		p.queries, sec, float64(p.res)/sec/1e6, p.cells/sec/1e9)
	p.printed = true
}

// end finishes the line, so that what follows starts on its own.
func (p *progress) end() {
	if p.printed {
		fmt.Fprintln(p.w)
		p.printed = false
	}
}
