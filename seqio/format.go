package seqio

import (
	"bytes"
	"strings"
)

// Format is an unaligned sequence file format.
type Format int

const (
	FormatUnknown Format = iota
	FASTA
	EMBL // EMBL and UniProt/Swiss-Prot flat files
	GenBank
)

func (f Format) String() string {
	switch f {
	case FASTA:
		return "FASTA"
	case EMBL:
		return "EMBL"
	case GenBank:
		return "GenBank"
	}
	return "unknown"
}

// formatBySuffix is Easel's first guess: a name ending ".fa" is FASTA
// and ".gb" GenBank. Easel looks for the last '.' before a ".gz" suffix
// but compares everything from there to the end, so "x.fa.gz" is not
// recognised by name (its content decides).
func formatBySuffix(path string) Format {
	end := len(path)
	if strings.HasSuffix(path, ".gz") && len(path) > 3 {
		end -= 3
	}
	i := strings.LastIndexByte(path[:end], '.')
	if i < 0 {
		return FormatUnknown
	}
	switch path[i:] {
	case ".fa":
		return FASTA
	case ".gb":
		return GenBank
	}
	return FormatUnknown
}

// formatByLine is Easel's second guess, from the first non-blank line.
func formatByLine(line []byte) Format {
	switch {
	case len(line) > 0 && line[0] == '>':
		return FASTA
	case bytes.HasPrefix(line, []byte("ID   ")):
		return EMBL
	case bytes.HasPrefix(line, []byte("LOCUS   ")), bytes.Contains(line, []byte("Genetic Sequence Data Bank")):
		return GenBank
	}
	return FormatUnknown
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
