package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
)

// fakeDevice is a device in host memory. Its launches run either the Go
// model of the kernel below (refLaunch: the same arithmetic from the same
// packed arrays, so the packing and the host side are checked on every
// machine) or papara.cu itself compiled as C++ (the emulator test).
type fakeDevice struct {
	mu       sync.Mutex
	exec     func(c config, gridX, gridY int, args []any) error
	launches int
	// failAt makes the n-th launch (1-based) fail, as a lost device would.
	failAt  int
	kernels map[config]bool
	live    int // buffers allocated and not freed
}

type fakeBuf struct {
	data  []byte
	freed bool
	dev   *fakeDevice
}

func (b *fakeBuf) Size() int { return len(b.data) }
func (b *fakeBuf) Free() error {
	if b.freed {
		return errors.New("fake: buffer freed twice")
	}
	b.freed = true
	b.dev.live--
	return nil
}

func (f *fakeDevice) Name() string { return "fake device" }

func (f *fakeDevice) Kernel(c config) (kernel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.kernels == nil {
		f.kernels = map[config]bool{}
	}
	f.kernels[c] = true
	return c, nil
}

func (f *fakeDevice) Alloc(bytes int) (buffer, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("fake: Alloc of %d bytes", bytes)
	}
	f.live++
	// garbage, as cuMemAlloc leaves it
	b := &fakeBuf{data: make([]byte, bytes), dev: f}
	for i := range b.data {
		b.data[i] = 0xa5
	}
	return b, nil
}

func (f *fakeDevice) CopyIn(dst buffer, src []byte) error {
	copy(dst.(*fakeBuf).data, src)
	return nil
}

func (f *fakeDevice) Zero(dst buffer, n int) error {
	clear(dst.(*fakeBuf).data[:n])
	return nil
}

func (f *fakeDevice) Launch(k kernel, gridX, gridY int, args ...any) error {
	f.launches++
	if f.failAt > 0 && f.launches >= f.failAt {
		return errors.New("fake: device lost")
	}
	if len(args) != 15 {
		return fmt.Errorf("fake: %d kernel arguments", len(args))
	}
	for i, a := range args {
		_, isPtr := a.(ptr)
		if isPtr != (i < 7 || i == 14) {
			return fmt.Errorf("fake: argument %d is %T", i, a)
		}
	}
	exec := f.exec
	if exec == nil {
		exec = refLaunch
	}
	return exec(k.(config), gridX, gridY, args)
}

func (f *fakeDevice) Wait() (time.Duration, error) { return time.Microsecond, nil }

func (f *fakeDevice) CopyOut(dst []byte, src buffer) error {
	copy(dst, src.(*fakeBuf).data)
	return nil
}

func (f *fakeDevice) Close() error { return nil }

// argument helpers for the model kernel
func argBytes(a any) []byte {
	p := a.(ptr)
	return p.buf.(*fakeBuf).data[p.off:]
}

func u32At(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }

// refLaunch computes what papara_score writes, with plain integers: every
// (read, branch) pair of every unit, from the packed columns.
func refLaunch(c config, gridX, gridY int, args []any) error {
	cols, seqs, offs, lens, order, units, kinds := argBytes(args[0]), argBytes(args[1]), argBytes(args[2]),
		argBytes(args[3]), argBytes(args[4]), argBytes(args[5]), argBytes(args[6])
	L, width, K := int(args[7].(int32)), int(args[8].(int32)), int(args[9].(int32))
	open, ext, match, mcg := int(args[10].(int32)), int(args[11].(int32)), int(args[12].(int32)), int(args[13].(int32))
	best := argBytes(args[14])
	for y := 0; y < gridY; y++ {
		first, nbr, at, nreads := int(int32(u32At(units, 4*y))), int(int32(u32At(units, 4*y+1))), int(int32(u32At(units, 4*y+2))), int(int32(u32At(units, 4*y+3)))
		if span := first + nbr - first&^1; nbr < 1 || nbr > unitBranches || c.mode.pairs() && span > unitBranches {
			return fmt.Errorf("fake: unit of branches [%d, %d) in %s", first, first+nbr, c)
		}
		if gridX < c.gridX(nreads) {
			return fmt.Errorf("fake: grid x %d too small for %d reads", gridX, nreads)
		}
		for i := 0; i < nreads; i++ {
			q := int(u32At(order, at+i))
			seq := seqs[u32At(offs, q):][:u32At(lens, q)]
			if len(seq) > c.maxLen() {
				return fmt.Errorf("fake: read %d of %d residues sent to %s", q, len(seq), c)
			}
			for b := first; b < first+nbr; b++ {
				var col func(col, j int) (m, o, e int)
				switch c.mode {
				case modeTable:
					col = func(cc, j int) (int, int, int) {
						at := 4 * (cc*width + b/2)
						k := u32At(kinds, int(seq[j]))
						m := int(int8(u32At(cols, at+b%2) >> (8 * k)))
						return m, int(int16(u32At(cols, at+2) >> (16 * (b % 2)))), int(int16(u32At(cols, at+3) >> (16 * (b % 2))))
					}
				case modeProfile:
					col = func(cc, j int) (int, int, int) {
						row := func(r int) int {
							return int(int16(u32At(cols, (cc*(K+3)+r)*width+b/2) >> (16 * (b % 2))))
						}
						return row(int(u32At(kinds, int(seq[j])))), row(K + 1), row(K + 2)
					}
				default:
					col = func(cc, j int) (int, int, int) {
						w := u32At(cols, cc*width+b)
						st, cg := w&0x7fffffff, w>>31 != 0
						m := 0
						if c.mode == modePaper {
							if st&u32At(kinds, int(seq[j])) == 0 {
								m += 3
							}
							if cg {
								return m + 3, 0, 0
							}
							return m, 4, 1
						}
						if st&u32At(kinds, int(seq[j])) != 0 {
							m = match
						}
						if cg {
							m += mcg
						}
						if m < 0 { // PaPaRa's rule
							return m, 0, 0
						}
						return m, open, ext
					}
				}
				var score int
				if c.mode == modePaper {
					score = -refPaper(L, len(seq), col)
				} else {
					score = refPaPaRa(L, len(seq), open, ext, col)
				}
				k := bestKey(int32(score), b)
				if old := binary.LittleEndian.Uint64(best[8*q:]); k > old {
					binary.LittleEndian.PutUint64(best[8*q:], k)
				}
			}
		}
	}
	return nil
}

// refPaPaRa is PaPaRa's free-shift DP, row by row.
func refPaPaRa(L, n, open, ext int, col func(c, j int) (m, o, e int)) int {
	const small = -1 << 40
	H := make([]int, L) // previous row
	SU := make([]int, L)
	for c := range SU {
		SU[c] = small
	}
	best := small
	for j := 0; j < n; j++ {
		left, sl, diag := 0, small, 0
		for c := 0; c < L; c++ {
			m, o, e := col(c, j)
			sl = max(left+o, sl+e)
			SU[c] = max(H[c]+open, SU[c]+ext)
			v := max(diag+m, sl, SU[c])
			diag = H[c]
			H[c] = v
			left = v
		}
		best = max(best, left) // last column
	}
	for c := 0; c < L; c++ {
		best = max(best, H[c]) // last row
	}
	return best
}

// refPaper is Equation 1 (minimised), the read aligned whole.
func refPaper(L, n int, col func(c, j int) (m, o, e int)) int {
	S := make([]int, L) // row -1: 0
	for j := 0; j < n; j++ {
		diag, left, dl := 3*j, 3*(j+1), 1<<29
		for c := 0; c < L; c++ {
			m, o, e := col(c, j)
			dl = min(left+o, dl+e)
			v := min(diag+m, dl, S[c]+3)
			diag = S[c]
			S[c] = v
			left = v
		}
	}
	return minSlice(S)
}

func minSlice(s []int) int {
	m := s[0]
	for _, v := range s[1:] {
		m = min(m, v)
	}
	return m
}
