package makedb

import (
	"errors"
	"io"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

// guessWindow is how many residues of the first sequence Easel looks at
// (esl_sqfile_GuessAlphabet reads one window of 4000).
const guessWindow = 4000

// guessAlphabet guesses a file's alphabet as Easel does, from the
// letters of the first guessWindow residues of its first sequence.
// Every letter has an amino code, so reading with the amino alphabet and
// mapping codes back to symbols recovers the letters.
func guessAlphabet(path string) (alphabet.Type, error) {
	amino := alphabet.New(alphabet.Amino)
	r, err := seqio.Open(path, nil, amino)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	sq, err := r.Read()
	if err == io.EOF {
		return 0, errors.New(path + ": no sequences to guess the alphabet from")
	}
	if err != nil {
		return 0, err
	}
	var ct [26]int64
	for _, x := range sq.Dsq[:min(len(sq.Dsq), guessWindow)] {
		if c := amino.Sym[x]; c >= 'A' && c <= 'Z' {
			ct[c-'A']++
		}
	}
	t, ok := guessFromCounts(&ct)
	if !ok {
		return 0, errors.New(path + ": cannot guess the alphabet from the first sequence; give --alphabet amino, dna or rna")
	}
	return t, nil
}

// guessFromCounts is Easel's rule (esl_abc_GuessAlphabet) on counts of
// the letters A..Z: too few letters is no guess; many Ns only is DNA; any
// letter only proteins have is amino; nearly all ACG plus T (or U) or N,
// with all four seen, is DNA (RNA); nearly all amino acids, more of the
// protein-typical letters than ACG, and at least 15 kinds seen is amino.
func guessFromCounts(ct *[26]int64) (alphabet.Type, bool) {
	count := func(c byte) int64 { return ct[c-'A'] }
	group := func(letters string) (n int64, kinds int) {
		for i := 0; i < len(letters); i++ {
			if x := count(letters[i]); x > 0 {
				n += x
				kinds++
			}
		}
		return n, kinds
	}
	var n int64
	for _, x := range ct {
		n += x
	}
	n1, x1 := group("EFIJLOPQZ") // only in proteins
	n2, x2 := group("ACG")       // in both
	n3, x3 := group("DHKMRSVWY") // canonical amino acids, degenerate nucleotides
	nt, xt := group("T")
	nu, xu := group("U")
	nn, xn := group("N")
	nx := count('X')
	few := func(rest int64) bool { return float64(rest) <= 0.02*float64(n) }
	switch {
	case n <= 10:
		return 0, false
	case n > 2000 && nn == n:
		return alphabet.DNA, true
	case n1 > 0:
		return alphabet.Amino, true
	case few(n-(n2+nt+nn)) && x2+xt == 4:
		return alphabet.DNA, true
	case few(n-(n2+nu+nn)) && x2+xu == 4:
		return alphabet.RNA, true
	case few(n-(n1+n2+n3+nn+nt+nx)) && n3 > n2 && x1+x2+x3+xn+xt >= 15:
		return alphabet.Amino, true
	}
	return 0, false
}
