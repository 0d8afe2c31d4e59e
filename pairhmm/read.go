package pairhmm

import "fmt"

// Read is one sequencing read with its four per-base quality arrays, all
// Phred values (not ASCII: subtract 33 from text), the same length as Bases.
type Read struct {
	Bases     []byte // A, C, G, T or N
	BaseQuals []byte // substitution error quality
	InsQuals  []byte // insertion open quality
	DelQuals  []byte // deletion open quality
	GCPQuals  []byte // gap continuation quality
}

// Group is a set of reads to be scored against a set of haplotypes, every
// read against every haplotype: one active region of HaplotypeCaller, one
// record of the PairHMM test-data format.
type Group struct {
	Reads      []Read
	Haplotypes [][]byte
}

// Pairs is the number of likelihoods the group yields.
func (g *Group) Pairs() int { return len(g.Reads) * len(g.Haplotypes) }

// Cells is the number of dynamic-programming cells of the group, the unit
// of GCUPS figures.
func (g *Group) Cells() int64 {
	var rl, hl int64
	for _, r := range g.Reads {
		rl += int64(len(r.Bases))
	}
	for _, h := range g.Haplotypes {
		hl += int64(len(h))
	}
	return rl * hl
}

// Base codes: GKL maps A,C,T,G,N to 0..4 and everything else to 0 (so an
// IUPAC code or a lower-case base would count as A), whereas GATK's Java
// pair-HMM compares raw bytes. The two disagree on any other letter, so
// only the five upper-case letters are accepted.
const (
	codeA = iota
	codeC
	codeG
	codeT
	codeN
)

var baseCode = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	t['A'], t['C'], t['G'], t['T'], t['N'] = codeA, codeC, codeG, codeT, codeN
	return
}()

// encodeBases turns bases into codes 0..4, or reports the first bad one.
func encodeBases(dst []uint8, bases []byte) ([]uint8, error) {
	dst = dst[:0]
	for i, b := range bases {
		c := baseCode[b]
		if c < 0 {
			return nil, fmt.Errorf("base %d is %q: only A, C, G, T and N are accepted", i+1, b)
		}
		dst = append(dst, uint8(c))
	}
	return dst, nil
}

// Validate reports the first problem that would make the read unusable.
func (r *Read) Validate() error {
	n := len(r.Bases)
	if n == 0 {
		return fmt.Errorf("empty read")
	}
	for _, q := range []struct {
		name string
		v    []byte
	}{{"base", r.BaseQuals}, {"insertion", r.InsQuals}, {"deletion", r.DelQuals}, {"gap continuation", r.GCPQuals}} {
		if len(q.v) != n {
			return fmt.Errorf("%s qualities have length %d, bases %d", q.name, len(q.v), n)
		}
		for i, v := range q.v {
			if v > MaxQual {
				return fmt.Errorf("%s quality %d at position %d is above %d", q.name, v, i+1, MaxQual)
			}
		}
	}
	if _, err := encodeBases(make([]uint8, 0, n), r.Bases); err != nil {
		return err
	}
	return nil
}

// validateHaplotype reports the first problem of a haplotype.
func validateHaplotype(h []byte) error {
	if len(h) == 0 {
		return fmt.Errorf("empty haplotype")
	}
	_, err := encodeBases(make([]uint8, 0, len(h)), h)
	return err
}
