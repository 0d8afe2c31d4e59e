package hmm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/hmmgo/hmmgo/alphabet"
)

// Flag bits of a binary model (p7_hmm.h's p7H_* values).
const (
	flagDesc   = 1 << 1
	flagRF     = 1 << 2
	flagCS     = 1 << 3
	flagStats  = 1 << 7
	flagMap    = 1 << 8
	flagAcc    = 1 << 9
	flagGA     = 1 << 10
	flagTC     = 1 << 11
	flagNC     = 1 << 12
	flagCA     = 1 << 13
	flagCompo  = 1 << 14
	flagChksum = 1 << 15
	flagCons   = 1 << 16
	flagMM     = 1 << 17
)

// maxBinaryM bounds the model length a binary file may claim, so that a
// damaged file gives an error rather than a huge allocation.
const maxBinaryM = 1 << 20

// binReader reads the host-order (little-endian) fields of one binary
// model, remembering the first failure.
type binReader struct {
	r   io.Reader
	err error
	buf [8]byte
}

func (b *binReader) full(p []byte) {
	if b.err == nil {
		_, b.err = io.ReadFull(b.r, p)
	}
}

func (b *binReader) int32() int32 {
	b.full(b.buf[:4])
	return int32(binary.LittleEndian.Uint32(b.buf[:4]))
}

func (b *binReader) floats(p []float32) {
	for i := range p {
		b.full(b.buf[:4])
		p[i] = math.Float32frombits(binary.LittleEndian.Uint32(b.buf[:4]))
	}
}

// str reads a length-prefixed C string; ok is false for a NULL (length 0).
func (b *binReader) str() (s string, ok bool) {
	n := b.int32()
	if b.err != nil || n == 0 {
		return "", false
	}
	if n < 0 || n > 1<<24 {
		b.err = fmt.Errorf("implausible string length %d", n)
		return "", false
	}
	p := make([]byte, n)
	b.full(p)
	if i := bytes.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return string(p), true
}

// line reads an M+2 byte annotation line (node 0, nodes 1..M, NUL).
func (b *binReader) line(M int) string {
	p := make([]byte, M+2)
	b.full(p)
	if i := bytes.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return string(p)
}

// readBinary reads one model of a binary file (read_bin30hmm's layout).
func (r *Reader) readBinary() (*HMM, error) {
	b := &binReader{r: r.br}
	model := r.nread + 1
	fail := func(what string) error {
		msg := "model " + fmt.Sprint(model) + ": "
		switch {
		case b.err == errTruncatedGzip:
			return r.ioError(b.err, 0)
		case b.err == io.EOF || b.err == io.ErrUnexpectedEOF:
			msg += "unexpected end of binary data reading " + what
		case b.err != nil:
			return r.ioError(b.err, 0)
		default:
			msg += what
		}
		return &Error{Path: r.path, Msg: msg}
	}
	if r.started {
		var m [4]byte
		n, err := io.ReadFull(r.br, m[:])
		if n == 0 && err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			b.err = err
			return nil, fail("the magic number")
		}
		if binaryMagic[binary.LittleEndian.Uint32(m[:])] != r.format {
			return nil, fail("bad magic number at start of model (all models of a file must have one format)")
		}
	} else {
		r.br.Discard(4) // detect peeked the magic
	}
	r.started = true

	h := newHMM(r.format)
	flags := b.int32()
	M := b.int32()
	atype := b.int32()
	if b.err != nil {
		return nil, fail("the model header")
	}
	if M <= 0 || M > maxBinaryM {
		return nil, fail(fmt.Sprintf("implausible model length %d", M))
	}
	t, ok := map[int32]alphabet.Type{1: alphabet.RNA, 2: alphabet.DNA, 3: alphabet.Amino}[atype]
	if !ok {
		return nil, fail(fmt.Sprintf("unsupported alphabet type code %d", atype))
	}
	if err := r.setAlphabet(t); err != nil {
		return nil, fail(err.(*Error).Msg)
	}
	h.M = int(M)
	h.allocBody(r.abc)
	for k := 1; k <= h.M; k++ {
		b.floats(h.Mat[k])
	}
	for k := 0; k <= h.M; k++ {
		b.floats(h.Ins[k])
	}
	for k := 0; k <= h.M; k++ {
		b.floats(h.T[k][:])
	}
	if b.err != nil {
		return nil, fail("the probability parameters")
	}
	var okName bool
	h.Name, okName = b.str()
	if flags&flagAcc != 0 {
		h.Acc, _ = b.str()
	}
	if flags&flagDesc != 0 {
		h.Desc, _ = b.str()
	}
	if b.err != nil || !okName {
		return nil, fail("the name, accession or description")
	}
	if flags&flagRF != 0 {
		h.RF = b.line(h.M)
	}
	if flags&flagMM != 0 {
		h.MM = b.line(h.M)
	}
	if flags&flagCons != 0 {
		h.Consensus = b.line(h.M)
	}
	if flags&flagCS != 0 {
		h.CS = b.line(h.M)
	}
	if flags&flagCA != 0 {
		b.line(h.M) // surface accessibility: not used by hmmsearch
	}
	h.ComLog, _ = b.str()
	h.NSeq = int(b.int32())
	var eff [1]float32
	b.floats(eff[:])
	h.EffNSeq = eff[0]
	if r.format >= Format3c {
		h.MaxLength = int(b.int32())
	}
	h.Date, _ = b.str()
	if flags&flagMap != 0 {
		h.Map = make([]int, h.M+1)
		for k := range h.Map {
			h.Map[k] = int(b.int32())
		}
	}
	h.Checksum = uint32(b.int32())
	h.HasChksum = flags&flagChksum != 0
	if r.format >= Format3b {
		b.floats(h.EvParam[:])
	} else {
		// 3/a stored one lambda, one mu (MSV and Viterbi) and tau.
		var v [3]float32
		b.floats(v[:])
		h.EvParam = [NEvParam]float32{MSVMu: v[1], MSVLambda: v[0], VitMu: v[1], VitLambda: v[0], FwdTau: v[2], FwdLambda: v[0]}
	}
	b.floats(h.Cutoff[:])
	if flags&flagCompo != 0 {
		h.Compo = make([]float32, r.abc.K)
		b.floats(h.Compo)
	}
	if b.err != nil {
		return nil, fail("the model annotation")
	}
	h.HasStats = flags&flagStats != 0
	h.HasGA, h.HasTC, h.HasNC = flags&flagGA != 0, flags&flagTC != 0, flags&flagNC != 0
	if r.format < Format3e {
		h.setConsensus()
	}
	return h, nil
}
