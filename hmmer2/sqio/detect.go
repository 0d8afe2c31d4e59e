package sqio

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// detect guesses a file's format as squid's SeqfileFormat() does: the
// first non-blank line identifies the well-behaved formats; later lines
// may reveal PIR, MSF, GCG, GenBank, EMBL or SELEX; a file that none of
// these tests recognise is unknown.
func detect(r io.Reader, name string) (Format, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	ndata := 0
	hasJunk := false
	for {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			// A directory or an I/O error is not "no data".
			return Unknown, fmt.Errorf("%s: %v", name, unwrapPath(err))
		}
		if line == "" && err != nil {
			break
		}
		if blank(line) {
			if err != nil {
				break
			}
			continue
		}
		if ndata == 0 {
			switch {
			case strings.HasPrefix(line, ">>>>") && strings.Contains(line, "Len: "):
				return GCGData, nil
			case strings.HasPrefix(line, ">"):
				return FASTA, nil
			case strings.HasPrefix(line, "!!AA_SEQUENCE"), strings.HasPrefix(line, "!!NA_SEQUENCE"):
				return GCG, nil
			case strings.HasPrefix(line, "# STOCKHOLM 1."):
				return Stockholm, nil
			case strings.HasPrefix(line, "CLUSTAL "):
				return Clustal, nil
			case strings.HasPrefix(line, "!!AA_MULTIPLE_ALIGNMENT"), strings.HasPrefix(line, "!!NA_MULTIPLE_ALIGNMENT"):
				return MSF, nil
			}
			f := strings.Fields(line)
			if len(f) >= 2 && isInt(f[0]) && isInt(f[1]) {
				return PHYLIP, nil
			}
		}
		for _, tag := range []string{"#=AU", "#=ID", "#=AC", "#=DE", "#=GA", "#=TC", "#=NC", "#=SQ", "#=SS", "#=CS", "#=RF"} {
			if strings.HasPrefix(line, tag) {
				return SELEX, nil
			}
		}
		switch {
		case strings.HasPrefix(line, "///"), strings.HasPrefix(line, "ENTRY "):
			return PIR, nil
		case strings.Contains(line, "..") && strings.Contains(line, "MSF:") && strings.Contains(line, "Check:"):
			return MSF, nil
		case strings.Contains(line, " Check: ") && strings.Contains(line, ".."):
			return GCG, nil
		case strings.HasPrefix(line, "LOCUS "), strings.HasPrefix(line, "ORIGIN"):
			return GenBank, nil
		case strings.HasPrefix(line, "ID   "), strings.HasPrefix(line, "SQ   "):
			return EMBL, nil
		}
		// Past here squid can only try to disprove SELEX.
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
		if len(f) > 0 && !strings.ContainsRune("#%", rune(f[0][0])) {
			if len(f) < 2 || seqtypeIsOther(f[1]) {
				hasJunk = true
			}
			ndata++
			if ndata == 300 {
				break
			}
		}
		if err != nil {
			break
		}
	}
	if ndata == 0 {
		return Unknown, fmt.Errorf("%s: sequence file contains no data", name)
	}
	if hasJunk {
		return Unknown, fmt.Errorf("%s: cannot determine the sequence file format (use --informat)", name)
	}
	return SELEX, nil
}

func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

// isInt is squid's IsInt(): optional sign, then decimal (or 0x hex) digits.
func isInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if (strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")) && len(s) > 2 {
		for i := 2; i < len(s); i++ {
			if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// seqtypeIsOther is true when squid's Seqtype() would call s neither
// protein nor nucleic acid: it has a letter outside the amino acid and
// nucleotide alphabets among its first 300 non-gap characters.
func seqtypeIsOther(s string) bool {
	saw := 0
	for i := 0; i < len(s) && saw < 300; i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c == ' ' || c == '.' || c == '_' || c == '-' || c == '~' {
			continue
		}
		saw++
		if strings.IndexByte("EFIPQZ", c) >= 0 || strings.IndexByte("ACGTUN", c) >= 0 ||
			strings.IndexByte("ABCDEFGHIKLMNPQRSTVWXYZ*", c) >= 0 {
			continue
		}
		if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') {
			return true
		}
	}
	return false
}
