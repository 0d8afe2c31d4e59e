package seqio

import (
	"fmt"
	"io"
	"strings"

	"github.com/hmmgo/hmmgo/alphabet"
)

// sqdump prints what the reader reads in the format of testdata/sqdump.c,
// our C driver around Easel's reader, so the two can be compared.
func sqdump(path string, t alphabet.Type) string {
	abc := alphabet.New(t)
	var b strings.Builder
	r, err := Open(path, nil, abc)
	if err != nil {
		return "ERROR " + err.Error() + "\n"
	}
	defer r.Close()
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(&b, "ERROR %v\n", err)
			break
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t", s.Name, s.Acc, s.Desc, s.L())
		for _, x := range s.Dsq {
			b.WriteByte(abc.Sym[x])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
