package pairhmm

import "math"

// preparedRead is a validated read with its float rows; the double rows
// are built only if a pair of this read needs the double pass.
type preparedRead struct {
	read   *Read
	codes  []uint8
	rows32 []row[float32]
	rows64 []row[float64]
}

func (p *preparedRead) prepare(r *Read) {
	p.read = r
	p.codes, _ = encodeBases(p.codes, r.Bases) // validated beforehand
	p.rows32 = prepareRows(p.rows32, tables32(), r, p.codes)
	p.rows64 = p.rows64[:0]
}

func (p *preparedRead) doubleRows() []row[float64] {
	if len(p.rows64) == 0 {
		p.rows64 = prepareRows(p.rows64, tables64(), p.read, p.codes)
	}
	return p.rows64
}

// scratch is the per-worker memory of the CPU kernels.
type scratch struct {
	fused         bool // the double passes use the fused arithmetic
	m32, x32, y32 []float32
	m64, x64, y64 []float64
}

func (s *scratch) grow(n int) {
	if cap(s.m32) < n {
		s.m32, s.x32, s.y32 = make([]float32, n), make([]float32, n), make([]float32, n)
		s.m64, s.x64, s.y64 = make([]float64, n), make([]float64, n), make([]float64, n)
	}
}

// log10f is log10 rounded to float, which is what glibc's log10f returns
// (checked on every float-pass result of the test sets).
func log10f(v float32) float32 { return float32(math.Log10(float64(v))) }

// fromFloat converts a float-pass result to log10 as GKL does: in single
// precision, then widened.
func fromFloat(raw float32) float64 { return float64(log10f(raw) - log10Initial32) }

// finish turns the float pass's raw result into the final log10
// likelihood, running the double pass (and, below the double range, the
// rescaled pass) when GATK's rule asks for it: a float result under
// MIN_ACCEPTED = 1e-28, compared before the log, is recomputed in double.
func (s *scratch) finish(raw float32, p *preparedRead, hap []uint8) float64 {
	if raw >= minAccepted {
		return fromFloat(raw)
	}
	s.grow(len(hap) + 1)
	rows := p.doubleRows()
	raw64 := forward(rows, hap, s.fused, initial64, s.m64, s.x64, s.y64)
	if raw64 >= 0x1p-1022 {
		return math.Log10(raw64) - log10Initial64
	}
	return forwardScaled(rows, hap, s.fused, s.m64, s.x64, s.y64)
}
