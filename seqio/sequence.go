// Package seqio reads biological sequence databases (FASTA, EMBL/UniProt
// and GenBank; plain, gzip'd or on stdin) into digital sequences, with
// Easel's rules for which characters are residues, which are ignored and
// which are errors, as HMMER 3.3.2's hmmsearch reads its targets.
package seqio

// Sequence is one digital sequence. Dsq holds the residue codes of the
// alphabet it was read with, Dsq[0..L-1] (no sentinels).
type Sequence struct {
	Name string
	Acc  string // empty when the format has none (FASTA)
	Desc string // empty when absent
	Dsq  []byte
}

// L is the sequence length.
func (s *Sequence) L() int { return len(s.Dsq) }
