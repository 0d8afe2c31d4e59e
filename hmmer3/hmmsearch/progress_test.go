package hmmsearch

import (
	"bytes"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	t0 := p.start
	p.now = func() time.Time { return t0.Add(2 * time.Second) }
	p.done(100, 1_000_000_000)
	p.done(300, 1_000_000_000)
	p.end()
	p.end() // a second end adds nothing
	want := "\rhmmgo hmmsearch: 1 queries done in 2.0 s; 500.0 M residues/s, 50.00 GCUPS" +
		"\rhmmgo hmmsearch: 2 queries done in 2.0 s; 1000.0 M residues/s, 200.00 GCUPS\n"
	if b.String() != want {
		t.Errorf("progress printed\n%q\nwant\n%q", b.String(), want)
	}
}
